/**
 * The XML text rules every DLNA answer shares (DIDL-Lite, SOAP bodies): one escaper, so a film titled
 * `Tom & Jerry <3` or a tag pasted with a stray control character can never break a TV's parser.
 */

// XML 1.0 forbids C0 controls other than tab, newline and carriage return, the non-characters U+FFFE/U+FFFF
// and lone surrogates; TVs reject the whole document on any of them, so they are dropped, not escaped.
// (Built from a string so the source itself holds no control characters.)
const FORBIDDEN = new RegExp(
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text or attribute value made safe for XML 1.0: forbidden characters dropped, the five specials escaped. */
export function escapeXml(text: string): string {
  return text.replace(FORBIDDEN, '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** `<name attr="…">text</name>`, attributes with null/undefined values left out; empty text gives `<name/>`. */
export function element(
  name: string,
  text: string | null,
  attributes: Record<string, string | number | null | undefined> = {},
): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== null && entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeXml(String(value))}"`)
    .join('');
  return text === null || text === ''
    ? `<${name}${attrs}/>`
    : `<${name}${attrs}>${escapeXml(text)}</${name}>`;
}
