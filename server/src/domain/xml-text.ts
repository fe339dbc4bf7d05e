/**
 * XML text as every XML document reelshelf writes needs it (DLNA's DIDL-Lite and SOAP bodies, the
 * SVG charts of /stats): one escaper, so a title such as `Tom & Jerry <3` or a stray control
 * character can never break a parser.
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
