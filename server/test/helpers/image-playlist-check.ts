/**
 * A check of the HLS image playlists (the Disney/Roku "image playlist" tags Roku OS 9.3+ reads):
 * the RFC 8216 rules of a VOD media playlist, read with m3u8-parser (its ParseStream for the order of
 * the lines, its Parser for what a player's parser makes of them), plus the image tags by hand:
 * EXT-X-IMAGES-ONLY before the first segment, and per segment EXTINF, EXT-X-TILES (RESOLUTION,
 * LAYOUT, DURATION) and a URI. Every broken rule is listed in one Error, each with a stable id.
 * m3u8-parser knows none of the image tags: it hands them over as untyped tags.
 */
import { createRequire } from 'node:module';

interface ParseEvent {
  type: 'tag' | 'uri' | 'comment';
  tagType?: string;
  data?: string;
  uri?: string;
  duration?: number;
  number?: number;
  version?: number;
  playlistType?: string;
}

interface LineStream {
  push(text: string): void;
  pipe(destination: ParseStream): void;
}
interface ParseStream {
  on(event: 'data', listener: (event: ParseEvent) => void): void;
}
interface Parser {
  on(event: 'warn', listener: (warning: { message: string }) => void): void;
  push(text: string): void;
  end(): void;
  manifest: { segments: { uri: string; duration: number }[]; targetDuration?: number; endList?: boolean };
}
interface M3u8Parser {
  LineStream: new () => LineStream;
  ParseStream: new () => ParseStream;
  Parser: new () => Parser;
}

// m3u8-parser ships no type declarations; its CommonJS build is loaded and typed here.
const m3u8 = createRequire(import.meta.url)('m3u8-parser') as M3u8Parser;

export class ImagePlaylistCheckError extends Error {
  constructor(
    readonly rules: string[],
    readonly violations: string[],
  ) {
    super(`image playlist breaks its rules:\n${violations.map((line) => `- ${line}`).join('\n')}`);
    this.name = 'ImagePlaylistCheckError';
  }
}

export interface ImageTiles {
  width: number;
  height: number;
  columns: number;
  rows: number;
  /** Seconds per thumbnail. */
  duration: number;
}

export interface CheckedImagePlaylist {
  targetDuration: number;
  mediaSequence: number;
  segments: { uri: string; duration: number; tiles: ImageTiles }[];
}

/** An attribute list (RFC 8216 §4.2): NAME=value pairs, quoted-strings kept with their quotes. */
export function attributeList(text: string): Map<string, string> | null {
  const attributes = new Map<string, string>();
  const pattern = /([A-Z0-9-]+)=("[^"\r\n]*"|[^",\s]+)(?:,|$)/y;
  let position = 0;
  while (position < text.length) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (match === null || attributes.has(match[1] ?? '')) return null;
    attributes.set(match[1] ?? '', match[2] ?? '');
    position = pattern.lastIndex;
  }
  return attributes;
}

const DECIMAL = /^\d+(\.\d+)?$/;

function tilesOf(data: string, add: (rule: string, message: string) => void): ImageTiles | null {
  const attributes = attributeList(data.slice('-X-TILES:'.length));
  const resolution = /^(\d+)x(\d+)$/.exec(attributes?.get('RESOLUTION') ?? '');
  const layout = /^(\d+)x(\d+)$/.exec(attributes?.get('LAYOUT') ?? '');
  const duration = attributes?.get('DURATION') ?? '';
  if (attributes === null || resolution === null || layout === null || !DECIMAL.test(duration)) {
    add('tiles', `EXT-X-TILES needs RESOLUTION=<w>x<h>, LAYOUT=<c>x<r> and a decimal DURATION: ${data}`);
    return null;
  }
  const tiles = {
    width: Number(resolution[1]),
    height: Number(resolution[2]),
    columns: Number(layout[1]),
    rows: Number(layout[2]),
    duration: Number(duration),
  };
  if (Object.values(tiles).some((value) => !(value > 0)))
    add('tiles', `EXT-X-TILES values must be positive: ${data}`);
  return tiles;
}

export function checkImagePlaylist(text: string): CheckedImagePlaylist {
  const rules: string[] = [];
  const violations: string[] = [];
  const add = (rule: string, message: string): void => {
    if (!rules.includes(rule)) rules.push(rule);
    violations.push(`[${rule}] ${message}`);
  };

  const all: ParseEvent[] = [];
  const lineStream = new m3u8.LineStream();
  const parseStream = new m3u8.ParseStream();
  lineStream.pipe(parseStream);
  parseStream.on('data', (event) => all.push(event));
  lineStream.push(text.endsWith('\n') ? text : `${text}\n`);
  const parser = new m3u8.Parser();
  parser.on('warn', (warning) => add('parser-warning', warning.message));
  parser.push(text);
  parser.end();

  if (text.split('\n', 1)[0] !== '#EXTM3U')
    add('extm3u', 'the first line must be exactly #EXTM3U (§4.3.1.1)');
  const of = (tagType: string): ParseEvent[] => all.filter((event) => event.tagType === tagType);
  const raw = (prefix: string): ParseEvent[] =>
    all.filter(
      (event) => event.type === 'tag' && event.tagType === undefined && event.data?.startsWith(prefix),
    );
  if (of('version').length !== 1 || of('version')[0]?.version !== 7)
    add('version', 'exactly one EXT-X-VERSION:7');
  const targetDuration = of('targetduration')[0]?.duration;
  if (
    of('targetduration').length !== 1 ||
    targetDuration === undefined ||
    !Number.isInteger(targetDuration)
  ) {
    add('target-duration', 'exactly one integer EXT-X-TARGETDURATION (§4.3.3.1)');
  }
  const mediaSequence = of('media-sequence')[0]?.number;
  if (of('media-sequence').length > 1 || (mediaSequence !== undefined && !Number.isInteger(mediaSequence))) {
    add('media-sequence', 'at most one integer EXT-X-MEDIA-SEQUENCE (§4.3.3.2)');
  }
  if (of('playlist-type').length !== 1 || of('playlist-type')[0]?.playlistType !== 'VOD') {
    add('playlist-type', 'exactly one EXT-X-PLAYLIST-TYPE:VOD (§4.3.3.5)');
  }
  if (of('endlist').length !== 1 || all.at(-1)?.tagType !== 'endlist') {
    add('endlist', 'a VOD playlist ends with one EXT-X-ENDLIST (§4.3.3.4)');
  }
  for (const tagType of ['stream-inf', 'media', 'map', 'discontinuity']) {
    if (of(tagType).length > 0)
      add('foreign-tag', `an image playlist holds no EXT-X-${tagType.toUpperCase()}`);
  }
  const imagesOnly = raw('-X-IMAGES-ONLY');
  if (imagesOnly.length !== 1 || imagesOnly[0]?.data !== '-X-IMAGES-ONLY') {
    add('images-only', 'exactly one EXT-X-IMAGES-ONLY');
  } else if (all.indexOf(imagesOnly[0]) > all.findIndex((event) => event.tagType === 'inf')) {
    add('images-only', 'EXT-X-IMAGES-ONLY must come before the first segment');
  }

  // Walk the lines: each segment is EXTINF, EXT-X-TILES (in either order), then its URI.
  const segments: CheckedImagePlaylist['segments'] = [];
  let duration: number | null = null;
  let tiles: ImageTiles | null = null;
  let sawTiles = false;
  for (const event of all) {
    if (event.tagType === 'inf') {
      if (duration !== null) add('extinf-uri', 'an EXTINF without a URI (§4.3.2.1)');
      duration = event.duration ?? Number.NaN;
    } else if (event.data?.startsWith('-X-TILES')) {
      if (sawTiles) add('tiles', 'two EXT-X-TILES for one segment');
      sawTiles = true;
      tiles = tilesOf(event.data, add);
    } else if (event.type === 'uri') {
      if (duration === null) add('extinf-uri', `segment ${event.uri ?? ''} has no EXTINF (§4.3.2.1)`);
      if (!sawTiles) add('tiles', `segment ${event.uri ?? ''} has no EXT-X-TILES`);
      if (duration !== null && tiles !== null) segments.push({ uri: event.uri ?? '', duration, tiles });
      duration = null;
      tiles = null;
      sawTiles = false;
    }
  }
  if (duration !== null || sawTiles) add('extinf-uri', 'the last segment has no URI (§4.3.2.1)');
  if (segments.length === 0) add('segments', 'an image playlist needs at least one sheet');
  if (parser.manifest.segments.length !== segments.length) {
    add(
      'parser-warning',
      `m3u8-parser found ${parser.manifest.segments.length} segments, the lines ${segments.length}`,
    );
  }
  const uris = new Set<string>();
  segments.forEach((segment, position) => {
    const { tiles: grid } = segment;
    if (!(segment.duration > 0))
      add('extinf', `sheet ${position}: EXTINF ${segment.duration} is not positive`);
    if (targetDuration !== undefined && Math.round(segment.duration) > targetDuration) {
      add(
        'target-duration',
        `sheet ${position}: EXTINF ${segment.duration} rounds above ${targetDuration} (§4.3.3.1)`,
      );
    }
    // A sheet holds whole thumbnails, at most its grid.
    const thumbnails = segment.duration / grid.duration;
    if (
      Math.abs(thumbnails - Math.round(thumbnails)) > 1e-6 ||
      Math.round(thumbnails) > grid.columns * grid.rows
    ) {
      add(
        'tiles',
        `sheet ${position}: EXTINF ${segment.duration} is not whole thumbnails of ${grid.duration} s within ${grid.columns}x${grid.rows}`,
      );
    }
    if (position < segments.length - 1 && Math.round(thumbnails) !== grid.columns * grid.rows) {
      add('tiles', `sheet ${position}: only the last sheet may be partial`);
    }
    if (uris.has(segment.uri)) add('sequential', `sheet ${position}: ${segment.uri} is listed twice`);
    uris.add(segment.uri);
  });

  if (violations.length > 0) throw new ImagePlaylistCheckError(rules, violations);
  return { targetDuration: targetDuration ?? 0, mediaSequence: mediaSequence ?? 0, segments };
}
