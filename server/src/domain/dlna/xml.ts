/**
 * The XML text rules every DLNA answer shares (DIDL-Lite, SOAP bodies): one escaper, so a film titled
 * `Tom & Jerry <3` or a tag pasted with a stray control character can never break a TV's parser.
 */

import { escapeXml } from '../xml-text.ts';

export { escapeXml };

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
