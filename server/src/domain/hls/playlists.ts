/**
 * HLS playlists (RFC 8216) as text: the media playlist of one rendition (fMP4 segments, VOD, the
 * whole film listed up front) and the master playlist naming the video variant and every audio
 * rendition. Pure: URIs are made by the caller (they carry the playback token).
 */
import { type HlsSegment, START_SNAP_SECONDS } from './segment-plan.ts';

export interface MediaPlaylistInput {
  segments: HlsSegment[];
  /** The EXT-X-MAP; null for MPEG-TS segments that carry their own PAT and PMT. */
  initUri: string | null;
  segmentUri(index: number): string;
  /**
   * Where the playlist's timeline starts in film time ({@link playlistTimelineStart}): the first
   * EXTINF is counted from here instead of from 0. Default 0.
   */
  timelineStart?: number;
}

export interface AudioRendition {
  uri: string;
  groupId: string;
  name: string;
  /** ISO 639-2 as stored by the analysis ("eng", "fre"), or already BCP 47; null/"und" → omitted. */
  language: string | null;
  isDefault: boolean;
  channels: number | null;
  codecs: string | null;
  /** Peak bits per second. */
  bandwidth: number;
}

/** A text subtitle track as a WebVTT rendition (`EXT-X-MEDIA TYPE=SUBTITLES`). */
export interface SubtitleRendition {
  uri: string;
  name: string;
  /** ISO 639-2 or BCP 47; null → omitted. */
  language: string | null;
  /** The track shown by default (forced in the audio's language, else default-flagged). */
  isDefault: boolean;
  forced: boolean;
}

/** GROUP-ID of the subtitle renditions. */
export const SUBTITLE_GROUP = 'subs';

export interface VideoVariant {
  uri: string;
  codecs: string | null;
  width: number | null;
  height: number | null;
  frameRate: number | null;
  /** Peak bits per second of the video alone; the audio is added here. */
  bandwidth: number;
  averageBandwidth?: number;
}

/** EXT-X-MAP with fMP4 needs version 6; 7 is what the issue asks and every player we target reads. */
const PLAYLIST_VERSION = 7;
/** EXTINF precision: microseconds, the precision of the segment plan. */
const EXTINF_DECIMALS = 6;

/** A URI is one playlist line (or a quoted-string): a CR, LF or `"` in it is a caller bug. */
function checkedUri(uri: string): string {
  if (uri === '' || /[\r\n"]/.test(uri)) {
    throw new Error(`HLS URI must be non-empty without CR, LF or '"': ${JSON.stringify(uri)}`);
  }
  return uri;
}

/** Names come from track titles in the file: a quoted-string may hold no `"`, CR or LF (§4.2). */
function quotedString(text: string): string {
  return `"${text.replace(/"/g, "'").replace(/[\r\n]+/g, ' ')}"`;
}

/** Frame rate assumed when the analysis has none (the film's frame duration is the margin). */
const FALLBACK_FRAME_RATE = 24;

/**
 * Where the media playlists' timeline starts (film seconds): the video's first frame plus one frame.
 * FFmpeg's HLS demuxer (≤ 7.0: ffmpeg, mpv, Kodi) places segment n at the first packet's decode
 * time plus the EXTINFs before it, and after a seek drops the video's packets until a keyframe
 * whose *decode* time is at or after that place. Counted from 0, every boundary fell after its own
 * keyframe's decode time when the first frame is later than 0 (0.023 s in an MKV) or decode times
 * run ahead of presentation times (B-frames): the video started a GOP late, or, in the last
 * segment, not at all. Started at the first frame (plus a frame of margin for rounding and a
 * keyframe whose reorder delay differs), each boundary is at or before its keyframe's decode time.
 * This holds when the video's playlist is the one the demuxer reads first: the master lists the
 * variant before the audio renditions ({@link renderMasterPlaylist}).
 * @param firstKeyframe copied video: the first keyframe of the container's index; encoded: null
 * @param hasVideo an audio-only presentation has no keyframes to miss: 0
 * @example playlistTimelineStart({ hasVideo: true, firstKeyframe: 0.023, frameRate: 25 }) // 0.063
 */
export function playlistTimelineStart(input: {
  hasVideo: boolean;
  firstKeyframe: number | null;
  frameRate: number | null;
}): number {
  if (!input.hasVideo) return 0;
  const first =
    input.firstKeyframe !== null &&
    Number.isFinite(input.firstKeyframe) &&
    input.firstKeyframe > 0 &&
    input.firstKeyframe < START_SNAP_SECONDS
      ? input.firstKeyframe
      : 0;
  const rate =
    input.frameRate !== null && Number.isFinite(input.frameRate) && input.frameRate > 0
      ? input.frameRate
      : FALLBACK_FRAME_RATE;
  return Math.round((first + 1 / rate) * 1_000_000) / 1_000_000;
}

export function renderMediaPlaylist(input: MediaPlaylistInput): string {
  if (input.segments.length === 0) throw new Error('an HLS media playlist needs at least one segment');
  const lead = input.timelineStart ?? 0;
  const durations = input.segments.map((segment, position) =>
    // The lead comes off the first segment only (never below half of it).
    (position === 0 ? Math.max(segment.duration / 2, segment.duration - lead) : segment.duration).toFixed(
      EXTINF_DECIMALS,
    ),
  );
  // §4.3.3.1: every EXTINF rounded to the nearest integer must be ≤ the target duration.
  const targetDuration = Math.max(1, ...durations.map((text) => Math.round(Number(text))));
  const lines = [
    '#EXTM3U',
    `#EXT-X-VERSION:${PLAYLIST_VERSION}`,
    `#EXT-X-TARGETDURATION:${targetDuration}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-INDEPENDENT-SEGMENTS',
  ];
  if (input.initUri !== null) lines.push(`#EXT-X-MAP:URI="${checkedUri(input.initUri)}"`);
  input.segments.forEach((segment, position) => {
    lines.push(`#EXTINF:${durations[position]},`, checkedUri(input.segmentUri(segment.index)));
  });
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** Languages that name no language: the attribute is left out rather than claim one. */
const NO_LANGUAGE = new Set(['und', 'mul', 'zxx', 'mis']);

/**
 * LANGUAGE must be a BCP 47 tag (RFC 5646), which uses the ISO 639-1 code where one exists:
 * "eng" → "en", "fre"/"fra" → "fr", "ger"/"deu" → "de". CLDR's alias data (through Intl) holds the
 * mapping; codes without a 639-1 form ("gsw") stay as they are. Not a language → null.
 */
export function hlsLanguageTag(language: string | null): string | null {
  if (language === null) return null;
  const trimmed = language.trim();
  if (trimmed === '' || NO_LANGUAGE.has(trimmed.toLowerCase())) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(trimmed);
    return canonical === undefined || NO_LANGUAGE.has(canonical) ? null : canonical;
  } catch {
    return null; // not a well-formed tag: better no LANGUAGE than a wrong one
  }
}

/** NAME must be unique within a group (§4.3.4.1.1): "English", "English (2)", … */
function uniqueNames(renditions: AudioRendition[]): string[] {
  const used = new Set<string>();
  return renditions.map((rendition) => {
    const base = rendition.name.trim() === '' ? 'Audio' : rendition.name.trim();
    let name = base;
    for (let copy = 2; used.has(name.toLowerCase()); copy += 1) name = `${base} (${copy})`;
    used.add(name.toLowerCase());
    return name;
  });
}

/** Exactly one DEFAULT=YES per group: the first one flagged, else the first one. */
function defaultPosition(renditions: AudioRendition[]): number {
  const flagged = renditions.findIndex((rendition) => rendition.isDefault);
  return flagged === -1 ? 0 : flagged;
}

function groupsOf(audio: AudioRendition[]): Map<string, AudioRendition[]> {
  const groups = new Map<string, AudioRendition[]>();
  for (const rendition of audio) {
    const group = groups.get(rendition.groupId);
    if (group === undefined) groups.set(rendition.groupId, [rendition]);
    else group.push(rendition);
  }
  return groups;
}

function mediaTag(rendition: AudioRendition, name: string, isDefault: boolean): string {
  const attributes = [
    'TYPE=AUDIO',
    `GROUP-ID=${quotedString(rendition.groupId)}`,
    `NAME=${quotedString(name)}`,
  ];
  const language = hlsLanguageTag(rendition.language);
  if (language !== null) attributes.push(`LANGUAGE=${quotedString(language)}`);
  attributes.push(`DEFAULT=${isDefault ? 'YES' : 'NO'}`, 'AUTOSELECT=YES');
  if (rendition.channels !== null && rendition.channels > 0) {
    attributes.push(`CHANNELS="${Math.round(rendition.channels)}"`);
  }
  attributes.push(`URI="${checkedUri(rendition.uri)}"`);
  return `#EXT-X-MEDIA:${attributes.join(',')}`;
}

/** BANDWIDTH is a decimal-integer of at least 1: a rate is rounded up, never to 0. */
function bitsPerSecond(rate: number): number {
  return Number.isFinite(rate) && rate > 0 ? Math.ceil(rate) : 1;
}

/**
 * CODECS lists the video codec and every distinct audio codec of the group. One unknown codec
 * string and CODECS is left out: a player may refuse a variant whose CODECS it cannot decode,
 * so a wrong value is worse than none (§4.3.4.2 says SHOULD, not MUST).
 */
function codecsAttribute(video: VideoVariant, group: AudioRendition[]): string | null {
  if (video.codecs === null) return null;
  const codecs = [video.codecs];
  for (const rendition of group) {
    if (rendition.codecs === null) return null;
    if (!codecs.includes(rendition.codecs)) codecs.push(rendition.codecs);
  }
  return quotedString(codecs.join(','));
}

function subtitleTag(rendition: SubtitleRendition, name: string): string {
  const attributes = [
    'TYPE=SUBTITLES',
    `GROUP-ID=${quotedString(SUBTITLE_GROUP)}`,
    `NAME=${quotedString(name)}`,
  ];
  const language = hlsLanguageTag(rendition.language);
  if (language !== null) attributes.push(`LANGUAGE=${quotedString(language)}`);
  // A forced track shows only when the player's subtitles are off or in its language: AUTOSELECT
  // lets the player pick it by language; DEFAULT=YES needs AUTOSELECT=YES (§4.3.4.1).
  attributes.push(
    `DEFAULT=${rendition.isDefault ? 'YES' : 'NO'}`,
    `AUTOSELECT=${rendition.isDefault || rendition.forced || language !== null ? 'YES' : 'NO'}`,
    `FORCED=${rendition.forced ? 'YES' : 'NO'}`,
    `URI="${checkedUri(rendition.uri)}"`,
  );
  return `#EXT-X-MEDIA:${attributes.join(',')}`;
}

function streamInfTag(
  video: VideoVariant,
  groupId: string | null,
  group: AudioRendition[],
  subtitles = false,
): string {
  const audioPeak = Math.max(0, ...group.map((rendition) => rendition.bandwidth));
  const attributes = [`BANDWIDTH=${bitsPerSecond(video.bandwidth + audioPeak)}`];
  if (video.averageBandwidth !== undefined) {
    attributes.push(`AVERAGE-BANDWIDTH=${bitsPerSecond(video.averageBandwidth + audioPeak)}`);
  }
  const codecs = codecsAttribute(video, group);
  if (codecs !== null) attributes.push(`CODECS=${codecs}`);
  if (video.width !== null && video.height !== null && video.width > 0 && video.height > 0) {
    attributes.push(`RESOLUTION=${Math.round(video.width)}x${Math.round(video.height)}`);
  }
  if (video.frameRate !== null && video.frameRate > 0) {
    attributes.push(`FRAME-RATE=${video.frameRate.toFixed(3)}`);
  }
  if (groupId !== null) attributes.push(`AUDIO=${quotedString(groupId)}`);
  if (subtitles) attributes.push(`SUBTITLES=${quotedString(SUBTITLE_GROUP)}`);
  return `#EXT-X-STREAM-INF:${attributes.join(',')}`;
}

/**
 * The master playlist: the video variant once per audio group (normally one group: every audio
 * track of the file), then one EXT-X-MEDIA per subtitle and audio rendition (RFC 8216 allows them
 * anywhere: the variant's AUDIO names a group defined elsewhere in the playlist). The variant comes
 * first because FFmpeg's HLS demuxer takes its timeline's zero from the first packet of the first
 * playlist listed: the video's, as {@link playlistTimelineStart} assumes. Without audio, no AUDIO
 * attribute.
 */
export function renderMasterPlaylist(input: {
  video: VideoVariant;
  audio: AudioRendition[];
  subtitles?: SubtitleRendition[];
}): string {
  const lines = ['#EXTM3U', `#EXT-X-VERSION:${PLAYLIST_VERSION}`, '#EXT-X-INDEPENDENT-SEGMENTS'];
  const subtitles = input.subtitles ?? [];
  const subtitleNames = uniqueNames(
    subtitles.map((r) => ({ ...r, groupId: SUBTITLE_GROUP, channels: null, codecs: null, bandwidth: 0 })),
  );
  // At most one DEFAULT=YES in the group.
  const shown = subtitles.findIndex((r) => r.isDefault);
  const media: string[] = [];
  subtitles.forEach((rendition, position) => {
    media.push(
      subtitleTag({ ...rendition, isDefault: position === shown }, subtitleNames[position] ?? rendition.name),
    );
  });
  const withSubtitles = subtitles.length > 0;
  const groups = groupsOf(input.audio);
  for (const group of groups.values()) {
    const names = uniqueNames(group);
    const chosen = defaultPosition(group);
    group.forEach((rendition, position) => {
      media.push(mediaTag(rendition, names[position] ?? rendition.name, position === chosen));
    });
  }
  const videoUri = checkedUri(input.video.uri);
  if (groups.size === 0) {
    lines.push(streamInfTag(input.video, null, [], withSubtitles), videoUri);
  }
  for (const [groupId, group] of groups) {
    lines.push(streamInfTag(input.video, groupId, group, withSubtitles), videoUri);
  }
  return `${[...lines, ...media].join('\n')}\n`;
}
