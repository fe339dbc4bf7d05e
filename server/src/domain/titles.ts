const LEADING_ARTICLE = /^(the|a|an)\s+/i;
const TRAILING_ARTICLE = /,\s*(the|a|an)$/i;

/**
 * A matching key for a title: accents, case, punctuation and articles removed, `&` read as "and".
 * @example normalizeTitle('Amélie') === 'amelie'
 * @example normalizeTitle('Matrix, The') === normalizeTitle('The Matrix')
 */
export function normalizeTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .trim()
    .replace(TRAILING_ARTICLE, '')
    .replace(LEADING_ARTICLE, '')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ');
}

/**
 * The key titles sort by: leading article dropped, case folded, accents removed.
 * @example sortTitle('The Matrix') === 'matrix'
 */
export function sortTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .trim()
    .replace(LEADING_ARTICLE, '')
    .toLowerCase();
}
