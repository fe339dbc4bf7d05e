/**
 * SQLite's BINARY collation (memcmp of UTF-8) in JavaScript, so the listing can place a changed
 * movie where `ORDER BY sort_title, id` would, without asking the database for the whole order.
 * UTF-16 code units order as code points except that surrogates (code points above U+FFFF) must
 * sort after U+E000–U+FFFF; UTF-8 bytes order as code points.
 */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

export function compareSqliteText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** `ORDER BY sort_title, id`. */
export function compareTitleThenId(
  a: { sortTitle: string; id: number },
  b: { sortTitle: string; id: number },
): number {
  return compareSqliteText(a.sortTitle, b.sortTitle) || a.id - b.id;
}
