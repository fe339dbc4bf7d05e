/**
 * An RFC 8216 check for the playlists the server writes: parsed with m3u8-parser (its Parser for the
 * result, its ParseStream for the order of the lines, which the Parser does not keep), plus the rules
 * a VOD fMP4 stream must keep. Every violated rule is listed in one Error, each with a stable id in
 * brackets (`[target-duration] …`) so that a test can say which rule it expects to fire.
 */
import { createRequire } from 'node:module';

interface ParseEvent {
  type: 'tag' | 'uri' | 'comment';
  tagType?: string;
  uri?: string;
  duration?: number;
  number?: number;
  version?: number;
  playlistType?: string;
  attributes?: Record<string, unknown>;
}

interface LineStream {
  push(text: string): void;
  pipe(destination: ParseStream): void;
}

interface ParseStream {
  on(event: 'data', listener: (event: ParseEvent) => void): void;
}

interface ParsedSegment {
  uri: string;
  duration: number;
  map?: { uri: string };
}

interface ParsedVariant {
  uri: string;
  attributes: Record<string, unknown>;
}

interface Manifest {
  version?: number;
  targetDuration?: number;
  mediaSequence?: number;
  playlistType?: string;
  endList?: boolean;
  segments: ParsedSegment[];
  playlists?: ParsedVariant[];
}

interface Parser {
  on(event: 'warn', listener: (warning: { message: string }) => void): void;
  push(text: string): void;
  end(): void;
  manifest: Manifest;
}

interface M3u8Parser {
  LineStream: new () => LineStream;
  ParseStream: new () => ParseStream;
  Parser: new () => Parser;
}

// m3u8-parser ships no type declarations; its CommonJS build is loaded and typed here.
const loadCommonJs = createRequire(import.meta.url);
const m3u8 = loadCommonJs('m3u8-parser') as M3u8Parser;

export class HlsCheckError extends Error {
  constructor(
    kind: 'media' | 'master',
    readonly rules: string[],
    readonly violations: string[],
  ) {
    super(`${kind} playlist breaks RFC 8216:\n${violations.map((line) => `- ${line}`).join('\n')}`);
    this.name = 'HlsCheckError';
  }
}

class Violations {
  readonly rules: string[] = [];
  readonly lines: string[] = [];
  add(rule: string, message: string): void {
    if (!this.rules.includes(rule)) this.rules.push(rule);
    const line = `[${rule}] ${message}`;
    if (!this.lines.includes(line)) this.lines.push(line);
  }
}

function events(text: string): ParseEvent[] {
  const lineStream = new m3u8.LineStream();
  const parseStream = new m3u8.ParseStream();
  const seen: ParseEvent[] = [];
  lineStream.pipe(parseStream);
  parseStream.on('data', (event) => seen.push(event));
  lineStream.push(text.endsWith('\n') ? text : `${text}\n`);
  return seen;
}

function parse(text: string, violations: Violations): Manifest {
  const parser = new m3u8.Parser();
  parser.on('warn', (warning) => violations.add('parser-warning', warning.message));
  parser.push(text);
  parser.end();
  return parser.manifest;
}

function tagCount(all: ParseEvent[], tagType: string): number {
  return all.filter((event) => event.type === 'tag' && event.tagType === tagType).length;
}

/** §4.3.1.1, §4.3.1.2 and §4.2, common to both kinds of playlist. */
function checkBasics(text: string, all: ParseEvent[], violations: Violations): void {
  if (text.split(/\r?\n/, 1)[0] !== '#EXTM3U') {
    violations.add('extm3u', 'the first line must be exactly #EXTM3U (§4.3.1.1)');
  }
  const versions = all.filter((event) => event.tagType === 'version');
  if (versions.length !== 1 || versions[0]?.version !== 7) {
    const found = versions.map((event) => event.version).join(', ') || 'none';
    violations.add('version', `exactly one EXT-X-VERSION:7 is required (found ${found})`);
  }
  text.split(/\r?\n/).forEach((line, position) => {
    if (/^#EXT/.test(line) && /="[^"]*$/.test(line)) {
      violations.add('quoted-string', `line ${position + 1}: an unterminated quoted-string (§4.2)`);
    }
  });
}

/** Attributes whose value must be a quoted-string (§4.3.4.1, §4.3.4.2), read from the raw line. */
const QUOTED_ATTRIBUTES = ['GROUP-ID', 'NAME', 'LANGUAGE', 'URI', 'CHANNELS', 'CODECS', 'AUDIO'];

function checkQuoting(text: string, violations: Violations): void {
  text.split(/\r?\n/).forEach((line, position) => {
    if (!/^#EXT-X-(MEDIA|STREAM-INF|MAP):/.test(line)) return;
    for (const name of QUOTED_ATTRIBUTES) {
      const value = new RegExp(`(?:^|[:,])${name}=([^,]*)`).exec(line)?.[1];
      if (value !== undefined && !value.startsWith('"')) {
        violations.add('quoted-string', `line ${position + 1}: ${name} must be a quoted-string (§4.2)`);
      }
    }
  });
}

const MEDIA_ONLY_TAGS = ['inf', 'targetduration', 'media-sequence', 'endlist', 'map', 'playlist-type'];
const MASTER_ONLY_TAGS = ['stream-inf', 'media', 'i-frame-playlist'];

export interface CheckedMediaPlaylist {
  segments: { uri: string; duration: number }[];
  targetDuration: number;
  mapUri: string;
}

/** A VOD media playlist (fMP4, MPEG-TS or WebVTT); throws an HlsCheckError naming every rule it breaks. */
export function checkMediaPlaylist(text: string): CheckedMediaPlaylist {
  const violations = new Violations();
  const all = events(text);
  const manifest = parse(text, violations);
  checkBasics(text, all, violations);
  checkQuoting(text, violations);

  for (const tagType of MASTER_ONLY_TAGS) {
    if (tagCount(all, tagType) > 0) {
      violations.add(
        'mixed-playlist',
        `a media playlist must not hold EXT-X-${tagType.toUpperCase()} (§4.3.4)`,
      );
    }
  }

  const targets = all.filter((event) => event.tagType === 'targetduration');
  const targetDuration = targets[0]?.duration;
  if (targets.length !== 1 || targetDuration === undefined || !Number.isInteger(targetDuration)) {
    violations.add('target-duration', 'exactly one integer EXT-X-TARGETDURATION is required (§4.3.3.1)');
  }
  const sequences = all.filter((event) => event.tagType === 'media-sequence');
  if (sequences.length !== 1 || sequences[0]?.number !== 0) {
    violations.add('media-sequence', 'exactly one EXT-X-MEDIA-SEQUENCE:0 is required (§4.3.3.2)');
  }
  if (tagCount(all, 'discontinuity') > 0) {
    violations.add('sequential', 'EXT-X-DISCONTINUITY: segments must join without a break (§4.3.2.3)');
  }
  const playlistTypes = all.filter((event) => event.tagType === 'playlist-type');
  if (playlistTypes.length !== 1 || playlistTypes[0]?.playlistType !== 'VOD') {
    violations.add('playlist-type', 'exactly one EXT-X-PLAYLIST-TYPE:VOD is required (§4.3.3.5)');
  }
  if (tagCount(all, 'endlist') !== 1 || all.at(-1)?.tagType !== 'endlist') {
    violations.add('endlist', 'a VOD playlist must end with one EXT-X-ENDLIST (§4.3.3.4)');
  }

  // Walk the lines in order: EXT-X-MAP before the first segment, each EXTINF followed by its URI.
  const uris = all
    .filter((event) => event.type === 'uri')
    .map((event) => (event.uri ?? '').split('?')[0] ?? '');
  // fMP4 segments need their init section; WebVTT segments (a subtitles rendition) have none, and
  // MPEG-TS segments carry their own PAT and PMT.
  const selfContained = uris.length > 0 && uris.every((uri) => uri.endsWith('.vtt') || uri.endsWith('.ts'));
  const segments: { uri: string; duration: number }[] = [];
  let mapUri: string | null = null;
  let pendingDuration: number | null = null;
  for (const event of all) {
    if (event.tagType === 'map') {
      if (segments.length > 0 || pendingDuration !== null) {
        violations.add('map', 'EXT-X-MAP must come before the first segment (§4.3.2.5)');
      }
      mapUri ??= event.uri ?? null;
    } else if (event.tagType === 'inf') {
      if (pendingDuration !== null) violations.add('extinf-uri', 'an EXTINF without a URI (§4.3.2.1)');
      pendingDuration = event.duration ?? Number.NaN;
      if (mapUri === null && !selfContained) {
        violations.add('map', 'EXT-X-MAP must come before the first segment (§4.3.2.5)');
      }
    } else if (event.type === 'uri') {
      if (pendingDuration === null) {
        violations.add('extinf-uri', `segment ${event.uri ?? ''} has no EXTINF (§4.3.2.1)`);
      } else {
        segments.push({ uri: event.uri ?? '', duration: pendingDuration });
      }
      pendingDuration = null;
    }
  }
  if (pendingDuration !== null) violations.add('extinf-uri', 'the last EXTINF has no URI (§4.3.2.1)');
  if (segments.length === 0) violations.add('segments', 'a media playlist needs at least one segment');

  const seenUris = new Set<string>();
  segments.forEach((segment, position) => {
    if (!(segment.duration > 0)) {
      violations.add('extinf', `segment ${position}: EXTINF duration ${segment.duration} is not positive`);
    }
    if (targetDuration !== undefined && Math.round(segment.duration) > targetDuration) {
      violations.add(
        'target-duration',
        `segment ${position}: EXTINF ${segment.duration} rounds above EXT-X-TARGETDURATION ${targetDuration} (§4.3.3.1)`,
      );
    }
    if (seenUris.has(segment.uri)) {
      violations.add('sequential', `segment ${position}: ${segment.uri} is listed twice`);
    }
    seenUris.add(segment.uri);
  });
  if (manifest.segments.length !== segments.length) {
    violations.add(
      'parser-warning',
      `m3u8-parser found ${manifest.segments.length} segments, the lines ${segments.length}`,
    );
  }

  if (violations.lines.length > 0) throw new HlsCheckError('media', violations.rules, violations.lines);
  return { segments, targetDuration: targetDuration ?? 0, mapUri: mapUri ?? '' };
}

export interface CheckedAudioRendition {
  groupId: string;
  name: string;
  language: string | null;
  isDefault: boolean;
  autoselect: boolean;
  channels: string | null;
  uri: string | null;
}

export interface CheckedVariant {
  uri: string;
  bandwidth: number;
  averageBandwidth: number | null;
  codecs: string[] | null;
  resolution: { width: number; height: number } | null;
  frameRate: number | null;
  audioGroup: string | null;
}

export interface CheckedMasterPlaylist {
  variants: CheckedVariant[];
  audio: CheckedAudioRendition[];
}

/**
 * RFC 6381 codec strings as HLS players read them: the sample-entry four-character code, then
 * the dotted parameters its codec defines. An unknown four-character code only needs the shape.
 */
const CODEC_PATTERNS: [RegExp, RegExp][] = [
  [/^(avc1|avc3)\./, /^(avc1|avc3)\.[0-9A-Fa-f]{6}$/],
  [/^(dvh1|dvhe|dav1|dva1|dvav)\./, /^(dvh1|dvhe|dav1|dva1|dvav)\.\d{2}\.\d{2}$/],
  [/^(hvc1|hev1)\./, /^(hvc1|hev1)\.[ABC]?\d{1,2}\.[0-9A-Fa-f]{1,8}\.[LH]\d{1,3}(\.[0-9A-Fa-f]{1,2}){0,6}$/],
  [/^av01\./, /^av01\.\d\.\d{2}[MH]\.\d{2}(\.\d\.\d{3}\.\d{2}\.\d{2}\.\d{2}\.\d)?$/],
  [/^vp09\./, /^vp09\.\d{2}\.\d{2}\.\d{2}(\.\d{2}){0,5}$/],
  [/^mp4a\./, /^mp4a\.(40\.\d{1,2}|[0-9A-Fa-f]{2})$/],
  [/^mp4v\./, /^mp4v\.[0-9A-Fa-f]{2}(\.\d{1,3})?$/],
];
const CODEC_SHAPE = /^[A-Za-z0-9][A-Za-z0-9-]{3}(\.[A-Za-z0-9]+)*$/;

function codecProblem(codec: string): string | null {
  if (!CODEC_SHAPE.test(codec)) return `"${codec}" is not an RFC 6381 codec string`;
  const rule = CODEC_PATTERNS.find(([prefix]) => prefix.test(codec));
  if (rule !== undefined && !rule[1].test(codec)) return `"${codec}" has malformed codec parameters`;
  return null;
}

function attributeText(attributes: Record<string, unknown> | undefined, name: string): string | null {
  const value = attributes?.[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

function checkLanguage(language: string, name: string, violations: Violations): void {
  try {
    const [canonical] = Intl.getCanonicalLocales(language);
    if (canonical?.toLowerCase() !== language.toLowerCase()) {
      violations.add(
        'language',
        `rendition "${name}": LANGUAGE "${language}" should be "${canonical}" (RFC 5646)`,
      );
    }
  } catch {
    violations.add('language', `rendition "${name}": LANGUAGE "${language}" is not a BCP 47 tag (RFC 5646)`);
  }
}

function collectRenditions(all: ParseEvent[], violations: Violations): CheckedAudioRendition[] {
  const audio: CheckedAudioRendition[] = [];
  for (const event of all) {
    if (event.tagType !== 'media') continue;
    const attributes = event.attributes;
    const type = attributeText(attributes, 'TYPE');
    const groupId = attributeText(attributes, 'GROUP-ID');
    const name = attributeText(attributes, 'NAME');
    if (type === null || groupId === null || name === null) {
      violations.add('media-attributes', 'EXT-X-MEDIA needs TYPE, GROUP-ID and NAME (§4.3.4.1)');
      continue;
    }
    if (type !== 'AUDIO') continue;
    const isDefault = attributeText(attributes, 'DEFAULT') === 'YES';
    const autoselectText = attributeText(attributes, 'AUTOSELECT');
    if (isDefault && autoselectText !== null && autoselectText !== 'YES') {
      violations.add('default', `rendition "${name}": DEFAULT=YES needs AUTOSELECT=YES (§4.3.4.1)`);
    }
    const language = attributeText(attributes, 'LANGUAGE');
    if (language !== null) checkLanguage(language, name, violations);
    audio.push({
      groupId,
      name,
      language,
      isDefault,
      autoselect: autoselectText === 'YES',
      channels: attributeText(attributes, 'CHANNELS'),
      uri: attributeText(attributes, 'URI'),
    });
  }
  return audio;
}

function checkGroups(audio: CheckedAudioRendition[], violations: Violations): Set<string> {
  const groups = new Set(audio.map((rendition) => rendition.groupId));
  for (const groupId of groups) {
    const members = audio.filter((rendition) => rendition.groupId === groupId);
    const defaults = members.filter((rendition) => rendition.isDefault).length;
    if (defaults !== 1) {
      violations.add(
        'default',
        `audio group "${groupId}" has ${defaults} DEFAULT=YES renditions, not exactly one`,
      );
    }
    const names = members.map((rendition) => rendition.name);
    const repeated = names.filter((name, position) => names.indexOf(name) !== position);
    if (repeated.length > 0) {
      violations.add(
        'name-unique',
        `audio group "${groupId}" repeats NAME ${repeated.join(', ')} (§4.3.4.1.1)`,
      );
    }
  }
  return groups;
}

function collectVariants(all: ParseEvent[], groups: Set<string>, violations: Violations): CheckedVariant[] {
  const variants: CheckedVariant[] = [];
  let pending: Record<string, unknown> | null = null;
  for (const event of all) {
    if (event.tagType === 'stream-inf') {
      if (pending !== null) violations.add('stream-inf-uri', 'an EXT-X-STREAM-INF without a URI (§4.3.4.2)');
      pending = event.attributes ?? {};
    } else if (event.type === 'uri') {
      if (pending === null) {
        violations.add('stream-inf-uri', `URI ${event.uri ?? ''} has no EXT-X-STREAM-INF (§4.3.4.2)`);
        continue;
      }
      variants.push(variantOf(event.uri ?? '', pending, groups, variants.length, violations));
      pending = null;
    }
  }
  if (pending !== null) violations.add('stream-inf-uri', 'the last EXT-X-STREAM-INF has no URI (§4.3.4.2)');
  if (variants.length === 0) violations.add('variants', 'a master playlist needs an EXT-X-STREAM-INF');
  return variants;
}

function positiveInteger(text: string | null): number | null {
  return text !== null && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : null;
}

function variantOf(
  uri: string,
  attributes: Record<string, unknown>,
  groups: Set<string>,
  position: number,
  violations: Violations,
): CheckedVariant {
  const bandwidth = positiveInteger(attributeText(attributes, 'BANDWIDTH'));
  if (bandwidth === null) {
    violations.add('bandwidth', `variant ${position}: BANDWIDTH is required, a positive integer (§4.3.4.2)`);
  }
  const averageText = attributeText(attributes, 'AVERAGE-BANDWIDTH');
  const averageBandwidth = positiveInteger(averageText);
  if (averageText !== null && averageBandwidth === null) {
    violations.add('bandwidth', `variant ${position}: AVERAGE-BANDWIDTH must be a positive integer`);
  }
  const codecsText = attributeText(attributes, 'CODECS');
  const codecs = codecsText === null ? null : codecsText.split(',');
  for (const codec of codecs ?? []) {
    const problem = codecProblem(codec);
    if (problem !== null) violations.add('codecs', `variant ${position}: ${problem}`);
  }
  const audioGroup = attributeText(attributes, 'AUDIO');
  if (audioGroup !== null && !groups.has(audioGroup)) {
    violations.add(
      'audio-group',
      `variant ${position}: AUDIO="${audioGroup}" names no EXT-X-MEDIA group (§4.3.4.2)`,
    );
  }
  const resolution = attributes.RESOLUTION;
  let size: { width: number; height: number } | null = null;
  if (resolution !== undefined) {
    const { width, height } = resolution as { width?: unknown; height?: unknown };
    if (typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0) {
      size = { width, height };
    } else {
      violations.add('resolution', `variant ${position}: RESOLUTION must be <width>x<height>`);
    }
  }
  const frameRateValue = attributes['FRAME-RATE'];
  const frameRate = typeof frameRateValue === 'number' && frameRateValue > 0 ? frameRateValue : null;
  if (frameRateValue !== undefined && frameRate === null) {
    violations.add('frame-rate', `variant ${position}: FRAME-RATE must be a positive number`);
  }
  return {
    uri,
    bandwidth: bandwidth ?? 0,
    averageBandwidth,
    codecs,
    resolution: size,
    frameRate,
    audioGroup,
  };
}

/** A master playlist; throws an HlsCheckError naming every rule it breaks. */
export function checkMasterPlaylist(text: string): CheckedMasterPlaylist {
  const violations = new Violations();
  const all = events(text);
  parse(text, violations);
  checkBasics(text, all, violations);
  checkQuoting(text, violations);
  for (const tagType of MEDIA_ONLY_TAGS) {
    if (tagCount(all, tagType) > 0) {
      violations.add(
        'mixed-playlist',
        `a master playlist must not hold a media playlist tag (${tagType}) (§4.3.4)`,
      );
    }
  }
  const audio = collectRenditions(all, violations);
  const groups = checkGroups(audio, violations);
  const variants = collectVariants(all, groups, violations);
  if (violations.lines.length > 0) throw new HlsCheckError('master', violations.rules, violations.lines);
  return { variants, audio };
}
