/** The most words one search uses (a pasted paragraph is cut, not refused). */
export const MAX_SEARCH_TERMS = 16;

/** Longer words are cut: no title, cast or director name has a longer one. */
const MAX_TERM_LENGTH = 64;

/**
 * The words of what a person typed in a search box: letters and digits (with their accents and
 * combining marks), lower-cased, without repeats. Everything else separates words, as the index's
 * `unicode61` tokenizer does: quotes, `AND`-style operators' punctuation, `*`, `-`, `:`, `/`, `^`,
 * brackets. `"AC/DC"` → `['ac', 'dc']`; `'  "-*:' ` → `[]`.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const raw of text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{M}]+/u)) {
    // A word must hold a letter or digit: lone combining marks are not a word.
    if (!/[\p{L}\p{N}]/u.test(raw)) continue;
    const term = [...raw].slice(0, MAX_TERM_LENGTH).join('');
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === MAX_SEARCH_TERMS) break;
  }
  return terms;
}

/**
 * An SQLite FTS5 MATCH expression for a person's search text, or null when it holds no word (then
 * the caller lists instead of searching). Every word is a quoted prefix phrase (`"amel"*`), the
 * phrases AND-ed: a quote, `NOT`, `OR`, `NEAR`, `-`, `*` or `col:` typed by a person is searched
 * for as text and can never be read as FTS5 syntax (quoting makes `not` a word, and a term holds no
 * `"` to close its quotes early).
 * @example ftsMatchQuery('Amélie') === '"amélie"*'
 * @example ftsMatchQuery('tom NOT hanks') === '"tom"* "not"* "hanks"*'
 */
export function ftsMatchQuery(text: string): string | null {
  const terms = searchTerms(text);
  return terms.length === 0 ? null : ftsMatchExpression(terms);
}

/** The FTS5 MATCH expression of words from searchTerms (at least one). */
export function ftsMatchExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(' ');
}

/**
 * The PostgreSQL `to_tsquery` text for a person's search text, or null when it holds no word: the
 * sibling of ftsMatchQuery, with the same words. Every word is a quoted prefix lexeme
 * (`'amel':*`), the lexemes AND-ed (`&`): a quote, `&`, `|`, `!`, `<->`, `:`, `*` or a bracket typed
 * by a person is never tsquery syntax (searchTerms keeps only letters, digits and marks, and the
 * quoting doubles `'` and escapes `\` anyway, so no word can close its quotes early).
 * to_tsquery then folds each word as the index did (unaccent, lower case).
 * @example tsQueryText('Amélie') === "'amélie':*"
 * @example tsQueryText('tom & !hanks') === "'tom':* & 'hanks':*"
 */
export function tsQueryText(text: string): string | null {
  const terms = searchTerms(text);
  return terms.length === 0 ? null : tsQueryExpression(terms);
}

/** The to_tsquery text of words from searchTerms (at least one). */
export function tsQueryExpression(terms: readonly string[]): string {
  return terms.map((t) => `'${t.replaceAll('\\', '\\\\').replaceAll("'", "''")}':*`).join(' & ');
}
