/**
 * Turns a retail disc product title ("Inception (Blu-ray) [Blu-ray]") into a searchable movie title
 * plus what the packaging says about the disc (reference metadata.md §3.4). Pure, no I/O.
 *
 * Where the title is read:
 * - Format, 3D, digital copy and edition are read only from `(…)`/`[…]` groups, ` - …` suffixes
 *   and trailing format tokens, never from the title body or the category ("The Collector" stays).
 * - Groups with a format keyword, a disc count or an edition word are removed (edition words become
 *   `edition`); other `[…]` groups (Amazon binding, region) are removed; other `(…)` groups are removed
 *   too unless they open the title ("(500) Days of Summer") or the title would otherwise be empty.
 * - A `(1999)` group is the year. Text after `:` is kept. A trailing article moves to the front.
 * - A trailing " 3D" in the title is dropped only when a format group says the disc is 3D.
 */

export type DiscFormat = 'DVD' | 'Blu-ray' | '4K UHD';

export interface CleanDiscTitle {
  title: string;
  year: number | null;
  format: DiscFormat | null;
  is3d: boolean;
  /** The removed edition text, e.g. "Two-Disc Collector's Edition"; several parts joined by ", ". */
  edition: string | null;
  hasDigitalCopy: boolean;
  /** The category is a movie category, or the title carries a disc format. */
  looksLikeMovie: boolean;
}

const APOS = `['’‘]`;

/** One format token (longest alternatives first). */
const FORMAT_TOKEN = String.raw`(?:4K(?:\s*Ultra\s*HD)?(?:\s*Blu[- ]?ray)?|Ultra\s*HD(?:\s*Blu[- ]?ray)?|UHD|Blu[- ]?ray(?:\s*Disc)?(?:\s*3-?D)?|BD|DVD|HD|3-?D|Digital(?:\s*(?:Copy|Code|HD))?|UltraViolet|Combo(?:\s*Pack)?)`;
const FORMAT_RE = new RegExp(String.raw`(?<![\w-])${FORMAT_TOKEN}(?![\w-])`, 'i');
const FORMAT_RE_G = new RegExp(FORMAT_RE.source, 'gi');
const EDITION_RE = new RegExp(
  String.raw`\b(?:editions?|collector${APOS}?s|special|anniversary|steel\s?book|widescreen|full\s?screen|unrated|uncut|extended|director${APOS}?s|limited|remastered|restored|theatrical|criterion|deluxe|ultimate|definitive|imax|version|cut)\b`,
  'i',
);
const DISC_COUNT_RE =
  /\b(?:\d+|one|two|three|four|five|six|single|double)[\s-]?discs?\b|\bdiscs?\s*set\b|\bbox\s*set\b/i;
const FOUR_K_RE = /\b4K\b|\bUHD\b|\bUltra\s*HD\b/i;
const BLU_RAY_RE = /\bBlu[- ]?ray\b|(?<![\w-])BD(?![\w-])/i;
const DVD_RE = /(?<![\w-])DVD(?![\w-])/i;
const THREE_D_RE = /(?<![\w-])3-?D(?![\w-])/i;
const DIGITAL_RE = /\bDigital\b|\bUltraViolet\b/i;
const GROUP_RE = /\(([^()]*)\)|\[([^[\]]*)\]/g;
const CONDITION_RE =
  /(?:\s*[-–,]\s*|\s+)(brand\s+new|factory\s+sealed|like\s+new|new|used|sealed|mint|opened|unopened)\s*$/i;
const DASH_SUFFIX_RE = /^(.*\S)\s+[-–—]\s+([^-–—]+)$/;
const TRAILING_FORMATS_RE = new RegExp(
  String.raw`\s+${FORMAT_TOKEN}(?:\s*[+/&]\s*${FORMAT_TOKEN})*\s*$`,
  'i',
);
const TRAILING_ARTICLE_RE = /^(.*?\S)(?:,\s*|\s+)(the|a|an)$/i;
const MOVIE_CATEGORY_RE = /^\s*(?:Media\s*>\s*DVDs?\s*&\s*Videos|Movies\b)/i;

/**
 * Cleans a UPC product title.
 * @example cleanDiscTitle('Inception (Blu-ray) [Blu-ray]').title === 'Inception'
 * @example cleanDiscTitle("1408 (Two-Disc Collector's Edition)").edition === "Two-Disc Collector's Edition"
 */
export function cleanDiscTitle(productTitle: string, category?: string): CleanDiscTitle {
  const formatTexts: string[] = [];
  const editions: string[] = [];
  const otherGroups: string[] = [];
  let year: number | null = null;
  let text = collapse(productTitle.normalize('NFC'));

  // A leading "(…)" that is not a format/edition/year group belongs to the title: "(500) Days of Summer".
  let leading = '';
  const lead = /^\(([^()]*)\)\s*/.exec(text);
  if (lead !== null && classify(lead[1] ?? '') === 'other' && text.length > lead[0].length) {
    leading = lead[0].trim();
    text = text.slice(lead[0].length);
  }

  const takeGroup = (inner: string, bracket: boolean): void => {
    const kind = classify(inner);
    const trimmed = collapse(inner);
    if (kind === 'year') year ??= Number(trimmed);
    else if (kind === 'format') {
      formatTexts.push(trimmed);
      const rest = editionRemainder(trimmed);
      if (rest !== null) editions.push(rest);
    } else if (kind === 'edition') editions.push(cleanEdge(trimmed));
    else if (kind === 'other' && !bracket && trimmed !== '') otherGroups.push(trimmed);
  };

  for (let round = 0; round < 8; round++) {
    const before = text;
    text = stripCondition(text);
    text = collapse(
      text.replace(GROUP_RE, (_m, paren: string | undefined, bracket: string | undefined) => {
        takeGroup(paren ?? bracket ?? '', bracket !== undefined);
        return ' ';
      }),
    );
    const dash = DASH_SUFFIX_RE.exec(text);
    if (dash !== null) {
      const suffix = collapse(dash[2] ?? '');
      const kind = classify(suffix);
      if (kind === 'format' || kind === 'edition' || isCondition(suffix)) {
        if (!isCondition(suffix)) takeGroup(suffix, true);
        text = dash[1] ?? '';
      }
    }
    const trailing = TRAILING_FORMATS_RE.exec(text);
    if (trailing !== null && trailing.index > 0 && !/^\s*3-?D\s*$/i.test(trailing[0])) {
      formatTexts.push(trailing[0].trim());
      text = text.slice(0, trailing.index);
    }
    text = collapse(text.replace(/\s*[-–—:,;/+]+\s*$/, ''));
    if (text === before) break;
  }

  const formatText = formatTexts.join(' ');
  const is3d = THREE_D_RE.test(formatText);
  if (is3d) text = collapse(text.replace(/\s+3-?D$/i, ''));
  text = moveTrailingArticle(text);
  if (leading !== '') text = collapse(`${leading} ${text}`);
  if (text === '') text = otherGroups[0] ?? collapse(productTitle);

  const format = detectFormat(formatText);
  const uniqueEditions = [...new Set(editions.filter((e) => e !== ''))];
  return {
    title: text,
    year,
    format,
    is3d,
    edition: uniqueEditions.length > 0 ? uniqueEditions.join(', ') : null,
    hasDigitalCopy: DIGITAL_RE.test(formatText),
    looksLikeMovie: format !== null || is3d || (category !== undefined && MOVIE_CATEGORY_RE.test(category)),
  };
}

type GroupKind = 'year' | 'format' | 'edition' | 'disc_count' | 'other';

function classify(inner: string): GroupKind {
  const text = inner.trim();
  if (/^\d{4}$/.test(text)) {
    const y = Number(text);
    if (y >= 1880 && y <= 2100) return 'year';
  }
  if (FORMAT_RE.test(text)) return 'format';
  if (EDITION_RE.test(text)) return 'edition';
  if (DISC_COUNT_RE.test(text)) return 'disc_count';
  return 'other';
}

/** The edition words left in a format group once the format tokens are gone ("Blu-ray Steelbook"). */
function editionRemainder(group: string): string | null {
  const rest = cleanEdge(collapse(group.replace(FORMAT_RE_G, ' ')));
  return rest !== '' && EDITION_RE.test(rest) ? rest : null;
}

function detectFormat(text: string): DiscFormat | null {
  if (FOUR_K_RE.test(text)) return '4K UHD';
  if (BLU_RAY_RE.test(text)) return 'Blu-ray';
  if (DVD_RE.test(text)) return 'DVD';
  return null;
}

function isCondition(text: string): boolean {
  return /^(?:brand\s+new|factory\s+sealed|like\s+new|new|used|sealed|mint|opened|unopened)$/i.test(
    text.trim(),
  );
}

/**
 * Drops a trailing condition word. A mixed-case one ("Something New") is a title word unless it
 * follows a group or a format token; an upper-case one ("NEW") is always the seller's note.
 */
function stripCondition(text: string): string {
  const m = CONDITION_RE.exec(text);
  if (m === null || m.index === 0) return text;
  const word = m[1] ?? '';
  const head = text.slice(0, m.index);
  const afterGroup = /[)\]]\s*$/.test(head) || TRAILING_FORMATS_RE.test(head) || /\s[-–]\s*$/.test(m[0]);
  const shouting = word === word.toUpperCase() && head !== head.toUpperCase();
  if (shouting || afterGroup) return collapse(head);
  return text;
}

function moveTrailingArticle(text: string): string {
  const m = TRAILING_ARTICLE_RE.exec(text);
  if (m === null) return text;
  const article = m[2] ?? '';
  const proper = article.charAt(0).toUpperCase() + article.slice(1).toLowerCase();
  return `${proper} ${m[1] ?? ''}`;
}

function cleanEdge(text: string): string {
  return collapse(text)
    .replace(/^(?:[-–—+/&,;:]|\band\b|\bwith\b|\s)+/i, '')
    .replace(/(?:[-–—+/&,;:]|\band\b|\bwith\b|\s)+$/i, '');
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
