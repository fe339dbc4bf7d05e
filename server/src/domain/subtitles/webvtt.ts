/**
 * Text subtitles → WebVTT (https://www.w3.org/TR/webvtt1/), pure: SubRip, ASS/SSA, MicroDVD and
 * WebVTT itself. What a browser's `<track>` and an HLS subtitle rendition read.
 *
 * Every format goes through one cue model: a start and end in whole milliseconds and a cue text that
 * is already WebVTT (`&`, `<`, `>` escaped; only `<i>`, `<b>`, `<u>` kept, balanced within the cue;
 * no empty line, which would end the cue). Cues are written in start order (WebVTT requires it; ASS
 * events come in any order), overlapping cues stay separate cues, and a cue that shows nothing (no
 * text, or an end not after its start) is left out.
 */

/** A text subtitle format this module reads. */
export type TextSubtitleFormat = 'srt' | 'ass' | 'webvtt' | 'microdvd';

export interface WebVttCue {
  startMs: number;
  endMs: number;
  /** WebVTT cue text: escaped, tags balanced, lines without empty ones. */
  text: string;
}

export interface WebVttResult {
  /** The whole WebVTT file (UTF-8 text, LF line ends, no BOM). */
  vtt: string;
  cues: number;
  /** The format the text was read as (the declared one, or the one its content shows). */
  format: TextSubtitleFormat;
}

export interface ConvertOptions {
  /**
   * Frames per second for MicroDVD (its times are frame numbers) when the file does not say
   * (`{1}{1}25`): the video's frame rate. Default 23.976 (24000/1001).
   */
  frameRate?: number | null;
  /**
   * For ASS/SSA: the events' times in milliseconds, when known better than the text says (see
   * {@link parseAss}); each event takes the one within its centisecond rounding.
   */
  exactTimes?: readonly CueTiming[];
}

export type SubtitleFormatProblem = 'binary' | 'no_cues' | 'not_webvtt' | 'unknown_format';

/** The text is not what it says it is: binary bytes, no cue at all, a WebVTT without its header. */
export class SubtitleFormatError extends Error {
  override name = 'SubtitleFormatError';
  constructor(
    readonly problem: SubtitleFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The default MicroDVD frame rate when neither the file nor the video says. */
export const DEFAULT_MICRODVD_FPS = 24000 / 1001;

const FORMAT_NAMES: Record<string, TextSubtitleFormat> = {
  srt: 'srt',
  subrip: 'srt',
  ass: 'ass',
  ssa: 'ass',
  webvtt: 'webvtt',
  vtt: 'webvtt',
  microdvd: 'microdvd',
};

/** The reader for a format name as the analysis and the scan write them (srt, ass, ssa, webvtt…); null when none. */
export function textFormatOf(name: string): TextSubtitleFormat | null {
  return FORMAT_NAMES[name.toLowerCase()] ?? null;
}

/**
 * Converts subtitle text to WebVTT. The declared format is tried first; when it finds no cue and the
 * content is plainly another format (a `.srt` that holds WebVTT, a `.sub` that is MicroDVD), that one
 * is read instead. An unknown format name is read by its content.
 * @throws SubtitleFormatError when the text is binary, or no format finds a cue in it.
 */
export function toWebVtt(text: string, format: string, options: ConvertOptions = {}): WebVttResult {
  const clean = normaliseText(text);
  if (looksBinary(clean)) {
    throw new SubtitleFormatError('binary', 'The file holds binary data, not subtitle text.');
  }
  const declared = textFormatOf(format);
  const sniffed = sniffSubtitleFormat(clean);
  const order = [declared, sniffed].filter(
    (f, i, all): f is TextSubtitleFormat => f !== null && all.indexOf(f) === i,
  );
  if (order.length === 0) {
    throw new SubtitleFormatError(
      'unknown_format',
      `The file is not in a text subtitle format this server reads (${format}: not SubRip, ASS/SSA, WebVTT or MicroDVD).`,
    );
  }
  let first: SubtitleFormatError | null = null;
  for (const candidate of order) {
    try {
      return convertAs(clean, candidate, options);
    } catch (err) {
      if (!(err instanceof SubtitleFormatError)) throw err;
      first ??= err;
    }
  }
  throw first ?? new SubtitleFormatError('no_cues', 'The file holds no subtitle cue.');
}

function convertAs(text: string, format: TextSubtitleFormat, options: ConvertOptions): WebVttResult {
  if (format === 'webvtt') {
    const checked = checkWebVtt(text);
    return { vtt: checked.vtt, cues: checked.cues, format };
  }
  const cues =
    format === 'srt'
      ? parseSrt(text)
      : format === 'ass'
        ? parseAss(text, options.exactTimes)
        : parseMicroDvd(text, options.frameRate ?? null);
  if (cues.length === 0) {
    throw new SubtitleFormatError('no_cues', `The file holds no ${FORMAT_LABELS[format]} cue.`);
  }
  return { vtt: serializeWebVtt(cues), cues: cues.length, format };
}

const FORMAT_LABELS: Record<TextSubtitleFormat, string> = {
  srt: 'SubRip',
  ass: 'ASS/SSA',
  webvtt: 'WebVTT',
  microdvd: 'MicroDVD',
};

/** The format the content shows, whatever the file is named; null when none. */
export function sniffSubtitleFormat(text: string): TextSubtitleFormat | null {
  const head = normaliseText(text).slice(0, 64 * 1024);
  if (/^WEBVTT(?:[ \t\n]|$)/.test(head)) return 'webvtt';
  if (/^\s*\[Script Info\]/im.test(head) || /^\s*\[Events\]\s*$/im.test(head)) return 'ass';
  if (TIMING_LINE.test(head)) return 'srt';
  if (/^\s*\{\d+\}\{\d*\}/m.test(head)) return 'microdvd';
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Text clean-up shared by every reader

/** Strips a BOM, unifies line ends to LF and replaces NUL (as the WebVTT parser does). */
function normaliseText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\0/g, '\uFFFD');
}

/** Control characters (beyond tab, line ends, form feed) in more than 1 % of the text: not subtitles. */
function looksBinary(text: string): boolean {
  if (text.length === 0) return false;
  const sample = text.slice(0, 256 * 1024);
  let controls = 0;
  for (let i = 0; i < sample.length; i += 1) {
    const c = sample.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c) || c === 0x7f || c === 0xfffd) controls += 1;
  }
  return controls > Math.max(2, sample.length * 0.01);
}

/** `&`, `<`, `>` as character references: text never becomes a tag, and `-->` never appears. */
export function escapeCueText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type Style = 'i' | 'b' | 'u';

type Token =
  | { kind: 'text'; value: string }
  | { kind: 'open'; tag: Style }
  | { kind: 'close'; tag: Style }
  | { kind: 'break' };

/**
 * Builds one cue's WebVTT text from text runs, style switches and line breaks: escapes the text,
 * keeps tags balanced (a close of a tag not open is dropped, one that closes an outer tag reopens the
 * inner ones, everything open is closed at the end), and never writes an empty line.
 */
class CueTextBuilder {
  private readonly tokens: Token[] = [];
  private readonly open: Style[] = [];

  text(value: string): void {
    if (value !== '') this.tokens.push({ kind: 'text', value });
  }

  lineBreak(): void {
    this.tokens.push({ kind: 'break' });
  }

  set(tag: Style, on: boolean): void {
    if (on) {
      if (this.open.includes(tag)) return;
      this.open.push(tag);
      this.tokens.push({ kind: 'open', tag });
      return;
    }
    const at = this.open.lastIndexOf(tag);
    if (at < 0) return;
    const inner = this.open.splice(at);
    for (const t of [...inner].reverse()) this.tokens.push({ kind: 'close', tag: t });
    for (const t of inner.slice(1)) {
      this.open.push(t);
      this.tokens.push({ kind: 'open', tag: t });
    }
  }

  /** Closes every open tag (an ASS `\r`, the end of a line in MicroDVD). */
  reset(): void {
    for (const t of [...this.open]) this.set(t, false);
  }

  isOpen(tag: Style): boolean {
    return this.open.includes(tag);
  }

  /** The cue text; '' when it shows nothing. */
  finish(): string {
    this.reset();
    // Opening tags wait for visible text (a pair around nothing is dropped); a line break is written
    // only between visible text, so no line is empty; spaces at the ends of lines go.
    let out = '';
    let waiting: string[] = [];
    let seenText = false;
    let breakPending = false;
    for (const token of this.tokens) {
      if (token.kind === 'break') {
        breakPending = seenText;
      } else if (token.kind === 'open') {
        waiting.push(token.tag);
      } else if (token.kind === 'close') {
        const at = waiting.lastIndexOf(token.tag);
        if (at >= 0) waiting.splice(at, 1);
        else out += `</${token.tag}>`;
      } else {
        const visible = token.value.trim() !== '';
        if (!visible && (!seenText || breakPending)) continue;
        let value = token.value;
        if (breakPending) {
          out = `${out.replace(/[ \t]+((?:<\/[ibu]>)*)$/, '$1')}\n`;
          breakPending = false;
        }
        if (!seenText || out.endsWith('\n')) value = value.trimStart();
        out += waiting.map((tag) => `<${tag}>`).join('') + escapeCueText(value);
        waiting = [];
        seenText = true;
      }
    }
    if (!seenText) return '';
    // A tag closed and opened again at once (`</b><b>`, from a reset to the same style) is one run.
    return out.replace(/<\/([ibu])><\1>/g, '').replace(/[ \t]+((?:<\/[ibu]>)*)$/, '$1');
  }
}

// ---------------------------------------------------------------------------------------------------
// Times and writing

/** `HH:MM:SS.mmm` (hours keep two digits at least; WebVTT allows more). */
export function formatVttTime(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1000) % 60;
  const millis = whole % 1000;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hours)}:${two(minutes)}:${two(seconds)}.${String(millis).padStart(3, '0')}`;
}

/** Hours, minutes, seconds and a decimal fraction ("5" = 500 ms, "50" = 500 ms, "500" = 500 ms). */
function toMs(
  hours: string | undefined,
  minutes: string,
  seconds: string,
  fraction: string | undefined,
): number {
  const frac = (fraction ?? '').slice(0, 3).padEnd(3, '0');
  return ((Number(hours ?? 0) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(frac);
}

/**
 * The WebVTT file of a list of cues: in start order (then end order; the sort is stable), the cues
 * that show nothing left out.
 */
export function serializeWebVtt(cues: readonly WebVttCue[]): string {
  const kept = cues
    .filter((cue) => cue.text !== '' && cue.endMs > cue.startMs)
    .map((cue, order) => ({ cue, order }))
    .sort((a, b) => a.cue.startMs - b.cue.startMs || a.cue.endMs - b.cue.endMs || a.order - b.order);
  let out = 'WEBVTT\n';
  for (const { cue } of kept) {
    out += `\n${formatVttTime(cue.startMs)} --> ${formatVttTime(cue.endMs)}\n${cue.text}\n`;
  }
  return out;
}

function cue(startMs: number, endMs: number, text: string): WebVttCue[] {
  return text === '' || endMs <= startMs ? [] : [{ startMs, endMs, text }];
}

// ---------------------------------------------------------------------------------------------------
// SubRip

/** `00:01:02,345 --> 00:01:04,000` (also `.`, short fractions, missing hours; positions after are ignored). */
const TIMING_LINE =
  /^[ \t]*(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})(?:[,.:](\d{1,9}))?[ \t]*-+>[ \t]*(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})(?:[,.:](\d{1,9}))?(?:[ \t].*)?$/m;

function parseTimingLine(line: string): { startMs: number; endMs: number } | null {
  const m = TIMING_LINE.exec(line);
  if (m === null) return null;
  return {
    startMs: toMs(m[1], m[2] ?? '0', m[3] ?? '0', m[4]),
    endMs: toMs(m[5], m[6] ?? '0', m[7] ?? '0', m[8]),
  };
}

/**
 * SubRip: blocks of an index line, a timing line and text lines. Read by timing lines rather than by
 * blank lines, so a missing index, a missing or doubled blank line, or a blank line inside the text
 * do not lose or merge cues; a number alone on the line before a timing line is the next cue's index.
 */
export function parseSrt(text: string): WebVttCue[] {
  const lines = normaliseText(text).split('\n');
  const cues: WebVttCue[] = [];
  let i = 0;
  while (i < lines.length) {
    const timing = parseTimingLine(lines[i] ?? '');
    if (timing === null) {
      i += 1;
      continue;
    }
    i += 1;
    const body: string[] = [];
    while (i < lines.length) {
      const line = lines[i] ?? '';
      if (parseTimingLine(line) !== null) break;
      if (/^\s*\d+\s*$/.test(line) && parseTimingLine(lines[i + 1] ?? '') !== null) break;
      body.push(line);
      i += 1;
    }
    cues.push(...cue(timing.startMs, timing.endMs, srtCueText(body)));
  }
  return cues;
}

/** SubRip text: `<i>`, `<b>`, `<u>` kept, `<br>` a line break, SSA blocks (`{\i1}`) read, other tags dropped. */
function srtCueText(lines: string[]): string {
  const builder = new CueTextBuilder();
  lines.forEach((line, n) => {
    if (n > 0) builder.lineBreak();
    readSrtLine(line, builder);
  });
  return builder.finish();
}

const SRT_CONTEXT: OverrideContext = { base: null, styles: new Map() };

/** `<i>`, `</b>`, `<font color="…">` (a letter right after `<` or `</`: `a < b > c` is text), `{\…}`, `\N`. */
const SRT_MARKUP = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)(?:[\s/][^<>\n]*)?>|\{\\[^{}\n]*\}|\\N/g;

function readSrtLine(line: string, builder: CueTextBuilder): void {
  let last = 0;
  for (const m of line.matchAll(SRT_MARKUP)) {
    builder.text(line.slice(last, m.index));
    last = m.index + m[0].length;
    const token = m[0];
    if (token === '\\N') {
      builder.lineBreak();
    } else if (token.startsWith('{')) {
      applyOverrides(token.slice(1, -1), builder, { drawing: false }, SRT_CONTEXT);
    } else {
      const name = (m[2] ?? '').toLowerCase();
      const closing = m[1] === '/';
      if (name === 'i' || name === 'b' || name === 'u') builder.set(name, !closing);
      else if (name === 'em') builder.set('i', !closing);
      else if (name === 'strong') builder.set('b', !closing);
      else if (name === 'br') builder.lineBreak();
      // Any other tag (<font>, <span>, <c.yellow>…) is dropped; its text stays.
    }
  }
  builder.text(line.slice(last));
}

// ---------------------------------------------------------------------------------------------------
// ASS / SSA

interface AssStyle {
  bold: boolean;
  italic: boolean;
  underline: boolean;
}

const DEFAULT_EVENT_FORMAT = [
  'layer',
  'start',
  'end',
  'style',
  'name',
  'marginl',
  'marginr',
  'marginv',
  'effect',
  'text',
];

/** `H:MM:SS.cc` (centiseconds; more digits are read as a decimal fraction). */
function parseAssTime(value: string): number | null {
  const m = /^\s*(\d+):(\d{1,2}):(\d{1,2})(?:[.,](\d+))?\s*$/.exec(value);
  return m === null ? null : toMs(m[1], m[2] ?? '0', m[3] ?? '0', m[4]);
}

/** Splits `a, b, c` into at most `count` fields, the last taking the rest (the Text may hold commas). */
function splitFields(value: string, count: number): string[] {
  const parts: string[] = [];
  let rest = value;
  while (parts.length < count - 1) {
    const comma = rest.indexOf(',');
    if (comma < 0) break;
    parts.push(rest.slice(0, comma));
    rest = rest.slice(comma + 1);
  }
  parts.push(rest);
  return parts;
}

const isOn = (value: string | undefined) => value !== undefined && value.trim() !== '' && Number(value) !== 0;

/**
 * ASS/SSA: Dialogue events read by the Format line's field order (SSA's and ASS's default when it is
 * missing); styles are dropped except their bold/italic/underline (a style "Italics" stays italic);
 * `\N`, `\n` line breaks, `\h` a space; override blocks `{\i1}…{\i0}`, `\b`, `\u`, `\r` read, every
 * other override (positions, colours, fonts, karaoke, transforms) dropped, drawings (`\p1`) dropped.
 */
export function parseAss(text: string, exactTimes?: readonly CueTiming[]): WebVttCue[] {
  const lines = normaliseText(text).split('\n');
  const styles = new Map<string, AssStyle>();
  let section = '';
  let styleFormat: string[] = [];
  let eventFormat = DEFAULT_EVENT_FORMAT;
  const events: { startMs: number; endMs: number; style: string; text: string }[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = (header[1] ?? '').trim().toLowerCase();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1);
    if (section.endsWith('styles')) {
      if (key === 'format') styleFormat = value.split(',').map((f) => f.trim().toLowerCase());
      if (key === 'style' && styleFormat.length > 0) {
        const fields = splitFields(value, styleFormat.length).map((f) => f.trim());
        const field = (name: string) => fields[styleFormat.indexOf(name)];
        const name = (field('name') ?? '').replace(/^\*/, '');
        styles.set(name.toLowerCase(), {
          bold: isOn(field('bold')),
          italic: isOn(field('italic')),
          underline: isOn(field('underline')),
        });
      }
      continue;
    }
    if (section !== 'events') continue;
    if (key === 'format') {
      const format = value.split(',').map((f) => f.trim().toLowerCase());
      if (format.includes('text') && format.includes('start') && format.includes('end')) eventFormat = format;
      continue;
    }
    if (key !== 'dialogue') continue;
    const fields = splitFields(value, eventFormat.length);
    const field = (name: string) => fields[eventFormat.indexOf(name)];
    const startMs = parseAssTime(field('start') ?? '');
    const endMs = parseAssTime(field('end') ?? '');
    if (startMs === null || endMs === null) continue;
    events.push({
      startMs,
      endMs,
      style: (field('style') ?? '').trim().replace(/^\*/, '').toLowerCase(),
      text: field('text') ?? '',
    });
  }
  if (exactTimes !== undefined) retime(events, exactTimes);
  const cues: WebVttCue[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    const base = styles.get(event.style) ?? styles.get('default') ?? null;
    const textOut = assCueText(event.text, base, styles);
    // The same text at the same time twice (a typesetter's layered copies) is one cue.
    const key = `${event.startMs}|${event.endMs}|${textOut}`;
    if (seen.has(key)) continue;
    seen.add(key);
    cues.push(...cue(event.startMs, event.endMs, textOut));
  }
  return cues;
}

export interface CueTiming {
  startMs: number;
  endMs: number;
}

/**
 * Gives ASS events the millisecond times of the same events read elsewhere (ffmpeg's `.ass` output
 * rounds the packets' millisecond times to centiseconds; its SubRip output of the same stream keeps
 * them): each event takes the unused timing nearest to its own within a centisecond's rounding (start
 * ±10 ms, end ±20 ms, as the end is a rounded start plus a rounded duration), else keeps its own.
 */
function retime(events: CueTiming[], exact: readonly CueTiming[]): void {
  const sorted = exact.map((t, i) => ({ ...t, i })).sort((a, b) => a.startMs - b.startMs || a.i - b.i);
  const used = new Set<number>();
  for (const event of events) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid]?.startMs ?? 0) < event.startMs - 10) lo = mid + 1;
      else hi = mid;
    }
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let j = lo; j < sorted.length; j += 1) {
      const t = sorted[j];
      if (t === undefined || t.startMs > event.startMs + 10) break;
      const endOff = Math.abs(t.endMs - event.endMs);
      if (used.has(j) || endOff > 20) continue;
      const cost = Math.abs(t.startMs - event.startMs) + endOff;
      if (cost < bestCost) {
        best = j;
        bestCost = cost;
      }
    }
    const match = sorted[best];
    if (match === undefined) continue;
    used.add(best);
    event.startMs = match.startMs;
    event.endMs = match.endMs;
  }
}

/** The times of every cue of a SubRip text, cues without text included (for {@link parseAss}'s retiming). */
export function subripTimings(text: string): CueTiming[] {
  return normaliseText(text)
    .split('\n')
    .flatMap((line) => {
      const timing = parseTimingLine(line);
      return timing === null ? [] : [timing];
    });
}

function applyStyle(builder: CueTextBuilder, style: AssStyle | null): void {
  builder.reset();
  if (style === null) return;
  if (style.bold) builder.set('b', true);
  if (style.italic) builder.set('i', true);
  if (style.underline) builder.set('u', true);
}

function assCueText(text: string, base: AssStyle | null, styles: Map<string, AssStyle>): string {
  const builder = new CueTextBuilder();
  const state = { drawing: false };
  applyStyle(builder, base);
  const context: OverrideContext = { base, styles };
  let last = 0;
  const emit = (segment: string) => {
    if (state.drawing) return;
    // \N and \n break lines, \h is a (hard) space.
    segment.split(/\\[Nn]/).forEach((part, n) => {
      if (n > 0) builder.lineBreak();
      builder.text(part.replace(/\\h/g, ' '));
    });
  };
  for (const m of text.matchAll(/\{([^{}]*)\}/g)) {
    emit(text.slice(last, m.index));
    last = m.index + m[0].length;
    // A block without a backslash is a comment (not shown).
    applyOverrides(m[1] ?? '', builder, state, context);
  }
  emit(text.slice(last));
  return builder.finish();
}

/** The override tags of one `{…}` block, split at backslashes outside parentheses (`\t(\i1)` is one tag). */
function overrideTags(block: string): string[] {
  const tags: string[] = [];
  let depth = 0;
  let current: string | null = null;
  for (const ch of block) {
    if (ch === '\\' && depth === 0) {
      if (current !== null) tags.push(current);
      current = '';
      continue;
    }
    if (ch === '(') depth += 1;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (current !== null) current += ch;
  }
  if (current !== null) tags.push(current);
  return tags.map((t) => t.trim());
}

interface OverrideContext {
  /** The event's style (for `\i` without a value and `\r`); null in SubRip. */
  base: AssStyle | null;
  styles: Map<string, AssStyle>;
}

function styleFlag(style: AssStyle | null, tag: Style): boolean {
  if (style === null) return false;
  return tag === 'i' ? style.italic : tag === 'b' ? style.bold : style.underline;
}

function applyOverrides(
  block: string,
  builder: CueTextBuilder,
  state: { drawing: boolean },
  context: OverrideContext,
): void {
  for (const tag of overrideTags(block)) {
    // \i1 \i0 \u1 \u0, \b1 \b0 or a weight (\b700 bold, \b400 not), no value: back to the style.
    const toggle = /^([ibu])(\d*)$/.exec(tag);
    if (toggle !== null) {
      const name = toggle[1] as Style;
      const value = toggle[2] ?? '';
      const n = Number(value);
      builder.set(name, value === '' ? styleFlag(context.base, name) : n === 1 || (name === 'b' && n >= 600));
      continue;
    }
    // \p1 (any scale above 0) starts a drawing, whose "text" is vector commands; \p0 ends it.
    const drawing = /^p(\d+)$/.exec(tag);
    if (drawing !== null) {
      state.drawing = Number(drawing[1]) > 0;
      continue;
    }
    // \r back to the event's style, \rName to another style.
    const reset = /^r(.*)$/.exec(tag);
    if (reset !== null) {
      const named = (reset[1] ?? '').trim().toLowerCase();
      applyStyle(builder, named === '' ? context.base : (context.styles.get(named) ?? context.base));
    }
    // Everything else (\an8, \pos, \fn, \c, \k, \t, \fad, \blur, \clip, \s…) is dropped.
  }
}

// ---------------------------------------------------------------------------------------------------
// MicroDVD

/** Frames per second as given (23.976 means 24000/1001, as players read it). */
function exactFps(fps: number): number {
  for (const base of [24, 30, 60]) {
    if (Math.abs(fps - (base * 1000) / 1001) < 0.0015) return (base * 1000) / 1001;
  }
  return fps;
}

/**
 * MicroDVD `{start}{end}text`, times in frames: the file's own frame rate (`{1}{1}25` or `{0}{0}25`
 * as its first line) wins, then `frameRate`, then 23.976. `|` breaks lines; `{y:i}` (this line) and
 * `{Y:i}` (every line) set italic, bold and underline; a line starting with `/` is italic; other
 * control codes (`{c:$…}`, `{f:…}`, `{s:…}`, `{P:…}`) are dropped.
 */
export function parseMicroDvd(text: string, frameRate: number | null): WebVttCue[] {
  const lines = normaliseText(text).split('\n');
  let fps =
    frameRate !== null && frameRate > 0 && Number.isFinite(frameRate) ? frameRate : DEFAULT_MICRODVD_FPS;
  const raw: { start: number; end: number; text: string }[] = [];
  lines.forEach((line, n) => {
    const m = /^\s*\{(\d+)\}\{(\d*)\}(.*)$/.exec(line);
    if (m === null) return;
    const start = Number(m[1]);
    const end = m[2] === '' ? Number.NaN : Number(m[2]);
    const body = (m[3] ?? '').trim();
    if (n < 3 && raw.length === 0 && start === end && start <= 1 && /^\d+(?:[.,]\d+)?$/.test(body)) {
      const declared = Number(body.replace(',', '.'));
      if (declared > 0 && declared < 1000) fps = declared;
      return;
    }
    if (Number.isNaN(end)) return;
    raw.push({ start, end, text: body });
  });
  const perFrame = 1000 / exactFps(fps);
  return raw.flatMap((entry) =>
    cue(Math.round(entry.start * perFrame), Math.round(entry.end * perFrame), microDvdCueText(entry.text)),
  );
}

function microDvdCueText(text: string): string {
  const builder = new CueTextBuilder();
  const all: Style[] = [];
  text.split('|').forEach((line, n) => {
    if (n > 0) builder.lineBreak();
    builder.reset();
    const local: Style[] = [];
    let rest = line;
    if (rest.startsWith('/')) {
      local.push('i');
      rest = rest.slice(1);
    }
    let last = 0;
    const styles = () => {
      for (const s of new Set([...all, ...local])) builder.set(s, true);
    };
    styles();
    for (const m of rest.matchAll(/\{([A-Za-z]):([^{}]*)\}/g)) {
      builder.text(rest.slice(last, m.index));
      last = m.index + m[0].length;
      const code = m[1] ?? '';
      if (code.toLowerCase() !== 'y') continue;
      const target = code === 'Y' ? all : local;
      for (const ch of (m[2] ?? '').toLowerCase()) {
        if ((ch === 'i' || ch === 'b' || ch === 'u') && !target.includes(ch)) target.push(ch);
      }
      styles();
    }
    builder.text(rest.slice(last));
  });
  return builder.finish();
}

// ---------------------------------------------------------------------------------------------------
// WebVTT

/**
 * A WebVTT file served as is, after checks: the `WEBVTT` header, at least one cue with valid timings.
 * The BOM goes and line ends become LF; nothing else is changed.
 */
export function checkWebVtt(text: string): { vtt: string; cues: number } {
  const clean = normaliseText(text);
  if (!/^WEBVTT(?:[ \t\n]|$)/.test(clean)) {
    throw new SubtitleFormatError('not_webvtt', 'The file does not start with the WEBVTT header.');
  }
  const timing =
    /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})[ \t]+-->[ \t]+(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})(?:[ \t].*)?$/gm;
  let cues = 0;
  for (const m of clean.matchAll(timing)) {
    const start = toMs(m[1], m[2] ?? '0', m[3] ?? '0', m[4]);
    const end = toMs(m[5], m[6] ?? '0', m[7] ?? '0', m[8]);
    if (end > start) cues += 1;
  }
  if (cues === 0) throw new SubtitleFormatError('no_cues', 'The WebVTT file holds no cue.');
  return { vtt: clean.endsWith('\n') ? clean : `${clean}\n`, cues };
}
