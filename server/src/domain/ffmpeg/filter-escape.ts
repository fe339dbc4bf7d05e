/**
 * Escaping for ffmpeg filtergraphs (ffmpeg-filters "Notes on filtergraph escaping"). A value such as
 * a file name passes two parsers, both `av_get_token`: the filtergraph parser (which splits filters
 * on `[ ] , ;` and honours quotes) and the filter's option parser (which splits `key=value` pairs on
 * `:`). Each level is escaped in turn: the value first, then the whole option string.
 */

/** Level 1: a value in a filter's `key=value:key=value` list. Escapes `\ ' :` and whitespace. */
export function escapeFilterOptionValue(value: string): string {
  return value.replace(/[\\':\s]/g, (char) => `\\${char}`);
}

/**
 * Level 2: a filter's option string inside a filtergraph, single-quoted so `[ ] , ;` are literal;
 * a quote inside becomes `'\''` (close, escaped quote, reopen).
 */
export function quoteFilterArguments(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** `filter=key=value:…` with every value escaped for both levels (values are taken literally). */
export function filterWithOptions(name: string, options: [string, string | number][]): string {
  const list = options.map(([key, value]) => `${key}=${escapeFilterOptionValue(String(value))}`).join(':');
  return `${name}=${quoteFilterArguments(list)}`;
}

/**
 * A path as an ffmpeg URL: absolute POSIX paths as they are, anything else behind `file:` so that
 * a relative name with a colon (`a:b.mkv`) is not read as a protocol.
 */
export function ffmpegPath(path: string): string {
  return path.startsWith('/') ? path : `file:${path}`;
}
