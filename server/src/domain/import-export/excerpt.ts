/**
 * @module import-export/excerpt
 * How much of an imported file a message may quote. Errors and warnings quote the file so that a person
 * finds the place, but a cut or binary upload can put megabytes in one line or cell: quoted whole, a
 * 40 MB line became a 40 MB error body.
 */

/** The most characters of a file's text that one message quotes. */
export const MAX_QUOTED_CHARS = 200;

/**
 * `text` cut to `max` characters with an ellipsis when longer; never splits a surrogate pair.
 * @example excerpt('a'.repeat(300)) === `${'a'.repeat(200)}…`
 */
export function excerpt(text: string, max: number = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * `text` in double quotes, cut like {@link excerpt}.
 * @example quoted('Titel;Jahr') === '"Titel;Jahr"'
 */
export function quoted(text: string, max: number = MAX_QUOTED_CHARS): string {
  return `"${excerpt(text, max)}"`;
}
