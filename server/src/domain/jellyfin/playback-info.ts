/**
 * reelshelf's playback decision of one file → Jellyfin's `MediaSourceInfo` (players.md §1.7). Pure:
 * the URLs are made by the caller (they carry the app's token). Stream numbering: the video stream is
 * Index 0, then the audio tracks in audio order, then the subtitle tracks in reelshelf's order
 * (embedded, then sidecar files as `IsExternal`), so `AudioStreamIndex` and `SubtitleStreamIndex`
 * map back to reelshelf's tracks with {@link trackOfStreamIndex}.
 */
import type { Capabilities } from '../media/capabilities.ts';
import type { Reason } from '../playback/codes.ts';
import type { PlaybackDecision } from '../playback/decision-types.ts';
import { secondsToTicks } from './wire.ts';

export interface MediaStreamDto {
  Index: number;
  Type: 'Video' | 'Audio' | 'Subtitle';
  Codec: string;
  Language?: string | null;
  Title?: string | null;
  DisplayTitle?: string | null;
  IsDefault: boolean;
  IsForced: boolean;
  IsExternal: boolean;
  IsTextSubtitleStream?: boolean;
  SupportsExternalStream?: boolean;
  Width?: number | null;
  Height?: number | null;
  BitRate?: number | null;
  Channels?: number | null;
  SampleRate?: number | null;
  AverageFrameRate?: number | null;
  Profile?: string | null;
  Level?: number | null;
  PixelFormat?: string | null;
  BitDepth?: number | null;
  IsInterlaced?: boolean;
  VideoRange?: string;
  DeliveryMethod?: 'Embed' | 'External' | 'Encode' | 'Hls';
  DeliveryUrl?: string;
}

export interface MediaSourceDto {
  Id: string;
  Protocol: 'File';
  Type: 'Default';
  Name: string;
  Container?: string | null;
  Size?: number | null;
  ETag?: string;
  RunTimeTicks?: number | null;
  Bitrate?: number | null;
  IsRemote: false;
  RequiresOpening: false;
  RequiresClosing: false;
  SupportsProbing: true;
  SupportsDirectPlay: boolean;
  SupportsDirectStream: boolean;
  SupportsTranscoding: boolean;
  DirectStreamUrl?: string;
  TranscodingUrl?: string;
  TranscodingSubProtocol?: 'hls';
  TranscodingContainer?: string;
  TranscodeReasons?: string[];
  MediaStreams: MediaStreamDto[];
  DefaultAudioStreamIndex?: number;
  DefaultSubtitleStreamIndex?: number;
  Formats: string[];
}

/** Jellyfin's `TranscodeReason` names for reelshelf's reason codes (unlisted: no Jellyfin name). */
const TRANSCODE_REASONS: Readonly<Record<string, string>> = {
  container_unsupported: 'ContainerNotSupported',
  container_stream_count_exceeded: 'StreamCountExceedsLimit',
  container_bitrate_exceeded: 'ContainerBitrateExceedsLimit',
  video_codec_unsupported: 'VideoCodecNotSupported',
  video_codec_tag_unsupported: 'VideoCodecTagNotSupported',
  video_profile_unsupported: 'VideoProfileNotSupported',
  video_level_exceeded: 'VideoLevelNotSupported',
  video_bit_depth_unsupported: 'VideoBitDepthNotSupported',
  video_resolution_exceeded: 'VideoResolutionNotSupported',
  video_framerate_exceeded: 'VideoFramerateNotSupported',
  video_bitrate_exceeded: 'VideoBitrateNotSupported',
  video_interlaced_unsupported: 'InterlacedVideoNotSupported',
  video_anamorphic_unsupported: 'AnamorphicVideoNotSupported',
  video_container_unsupported: 'ContainerNotSupported',
  video_hdr_unsupported: 'VideoRangeTypeNotSupported',
  video_dolby_vision_unsupported: 'VideoRangeTypeNotSupported',
  video_dolby_vision_el_unsupported: 'VideoRangeTypeNotSupported',
  video_dolby_vision_container_unsupported: 'VideoRangeTypeNotSupported',
  video_dolby_vision_invalid: 'VideoRangeTypeNotSupported',
  audio_codec_unsupported: 'AudioCodecNotSupported',
  audio_container_unsupported: 'ContainerNotSupported',
  audio_channels_exceeded: 'AudioChannelsNotSupported',
  audio_profile_unsupported: 'AudioProfileNotSupported',
  audio_sample_rate_unsupported: 'AudioSampleRateNotSupported',
  audio_bit_depth_unsupported: 'AudioBitDepthNotSupported',
  audio_bitrate_exceeded: 'AudioBitrateNotSupported',
  audio_track_switch_unsupported: 'SecondaryAudioNotSupported',
  audio_external_unsupported: 'AudioIsExternal',
  subtitle_image_burn_in_required: 'SubtitleCodecNotSupported',
  subtitle_styled_text_burn_in_required: 'SubtitleCodecNotSupported',
  subtitle_text_burn_in_required: 'SubtitleCodecNotSupported',
  subtitle_conversion_required: 'SubtitleCodecNotSupported',
  subtitle_delivery_unsupported: 'SubtitleCodecNotSupported',
  stream_info_incomplete: 'UnknownVideoStreamInfo',
};

/** Jellyfin `TranscodeReasons` for a decision's reasons, each once, in the reasons' order. */
export function transcodeReasons(reasons: readonly Reason[]): string[] {
  const out: string[] = [];
  for (const reason of reasons) {
    const name = TRANSCODE_REASONS[reason.code];
    if (name !== undefined && !out.includes(name)) out.push(name);
  }
  return out;
}

export type StreamRef = { kind: 'audio' | 'subtitle'; track: number } | { kind: 'video' };

/** A Jellyfin stream Index → the reelshelf track it names (audio order or subtitle order), or null. */
export function trackOfStreamIndex(caps: Capabilities, index: number): StreamRef | null {
  if (!Number.isInteger(index) || index < 0) return null;
  const first = caps.video === null ? 0 : 1;
  if (caps.video !== null && index === 0) return { kind: 'video' };
  const audio = caps.audio[index - first];
  if (audio !== undefined) return { kind: 'audio', track: audio.track };
  const sub = caps.subtitles[index - first - caps.audio.length];
  return sub === undefined ? null : { kind: 'subtitle', track: sub.track };
}

/** The Jellyfin stream Index of a reelshelf subtitle track (its position in the list). */
export function subtitleStreamIndex(caps: Capabilities, track: number): number | null {
  const at = caps.subtitles.findIndex((s) => s.track === track);
  return at === -1 ? null : (caps.video === null ? 0 : 1) + caps.audio.length + at;
}

function audioStreamIndex(caps: Capabilities, track: number): number | null {
  const at = caps.audio.findIndex((a) => a.track === track);
  return at === -1 ? null : (caps.video === null ? 0 : 1) + at;
}

export interface SourceFacts {
  id: string;
  name: string;
  container: string | null;
  sizeBytes: number | null;
  etag: string;
  caps: Capabilities | null;
  decision: PlaybackDecision;
  /** Subtitle formats the app loads as a separate file, in its preference ('vtt', 'srt'). */
  externalFormats: readonly string[];
  /** Formats reelshelf can deliver a text track in. */
  deliverable: readonly string[];
}

export interface SourceUrls {
  /** The static file (direct play). */
  direct: string;
  /** The HLS master playlist of a conversion. */
  transcoding: string;
  /** A text subtitle track as a separate file in `format`. */
  subtitle(index: number, format: string): string;
}

const RANGE_NAMES: Readonly<Record<string, string>> = {
  sdr: 'SDR',
  hdr10: 'HDR10',
  hdr10plus: 'HDR10Plus',
  hlg: 'HLG',
  dolby_vision: 'DOVI',
};

/** The subtitle file format the app takes that reelshelf can give, or null (then it is burned in). */
export function subtitleFormatFor(
  externalFormats: readonly string[],
  deliverable: readonly string[],
): string | null {
  return externalFormats.map(wireFormat).find((f) => deliverable.includes(f)) ?? null;
}

function wireFormat(codec: string): string {
  return codec === 'webvtt' ? 'vtt' : codec;
}

function mediaStreams(facts: SourceFacts, urls: SourceUrls, shownSubtitle: number | null): MediaStreamDto[] {
  const caps = facts.caps;
  if (caps === null) return [];
  const streams: MediaStreamDto[] = [];
  const video = caps.video;
  if (video !== null) {
    streams.push({
      Index: 0,
      Type: 'Video',
      Codec: video.codec,
      IsDefault: true,
      IsForced: false,
      IsExternal: false,
      Width: video.width,
      Height: video.height,
      BitRate: video.bitrate_bps,
      AverageFrameRate: video.frame_rate,
      Profile: video.profile,
      PixelFormat: video.pix_fmt,
      BitDepth: video.bit_depth,
      IsInterlaced: video.interlaced,
      VideoRange: video.hdr === 'sdr' ? 'SDR' : 'HDR',
      ...(video.level === null
        ? {}
        : { Level: Math.round(video.level * (video.codec === 'hevc' ? 30 : 10)) }),
      DisplayTitle: RANGE_NAMES[video.hdr] ?? null,
    });
  }
  const selectedAudio = facts.decision.selectedAudioTrack;
  for (const a of caps.audio) {
    streams.push({
      Index: audioStreamIndex(caps, a.track) ?? 0,
      Type: 'Audio',
      Codec: a.codec,
      Language: a.language,
      Title: a.title,
      IsDefault: selectedAudio === null ? a.default : a.track === selectedAudio,
      IsForced: a.forced,
      IsExternal: false,
      Channels: a.channels,
      SampleRate: a.sample_rate,
      BitRate: a.bitrate_bps,
      Profile: a.profile,
    });
  }
  const format = subtitleFormatFor(facts.externalFormats, facts.deliverable);
  for (const s of caps.subtitles) {
    const index = subtitleStreamIndex(caps, s.track) ?? 0;
    const text = s.kind === 'text';
    const external = text && format !== null;
    streams.push({
      Index: index,
      Type: 'Subtitle',
      Codec: s.codec === 'webvtt' ? 'vtt' : s.codec === 'pgs' ? 'pgssub' : s.codec,
      Language: s.language,
      Title: s.title,
      IsDefault: s.track === shownSubtitle || (shownSubtitle === null && s.default),
      IsForced: s.forced,
      IsExternal: s.external === true,
      IsTextSubtitleStream: text,
      SupportsExternalStream: text,
      ...(external
        ? { DeliveryMethod: 'External' as const, DeliveryUrl: urls.subtitle(index, format) }
        : { DeliveryMethod: 'Encode' as const }),
    });
  }
  return streams;
}

/**
 * One MediaSourceInfo: direct → `SupportsDirectPlay` and the static file; a conversion →
 * `TranscodingUrl` to reelshelf's HLS with `TranscodeReasons`; nothing plays → neither.
 */
export function mediaSourceInfo(facts: SourceFacts, urls: SourceUrls): MediaSourceDto {
  const { decision, caps } = facts;
  const direct = decision.prediction === 'direct';
  const converted = decision.isPlayable && !direct;
  const selection = decision.selectedSubtitle;
  const streams = mediaStreams(facts, urls, selection?.track ?? null);
  const duration = caps?.duration_seconds ?? null;
  const source: MediaSourceDto = {
    Id: facts.id,
    Protocol: 'File',
    Type: 'Default',
    Name: facts.name,
    Container: facts.container,
    Size: facts.sizeBytes,
    ETag: facts.etag,
    RunTimeTicks: duration !== null && duration > 0 ? secondsToTicks(duration) : null,
    Bitrate: caps?.bitrate_bps ?? null,
    IsRemote: false,
    RequiresOpening: false,
    RequiresClosing: false,
    SupportsProbing: true,
    SupportsDirectPlay: direct,
    SupportsDirectStream: direct,
    SupportsTranscoding: converted,
    MediaStreams: streams,
    Formats: [],
  };
  if (direct) source.DirectStreamUrl = urls.direct;
  if (converted) {
    source.TranscodingUrl = urls.transcoding;
    source.TranscodingSubProtocol = 'hls';
    source.TranscodingContainer = 'ts';
    source.TranscodeReasons = transcodeReasons(decision.reasons);
  }
  if (caps !== null && decision.selectedAudioTrack !== null) {
    const index = audioStreamIndex(caps, decision.selectedAudioTrack);
    if (index !== null) source.DefaultAudioStreamIndex = index;
  }
  if (caps !== null && selection !== null && selection !== undefined) {
    const index = subtitleStreamIndex(caps, selection.track);
    if (index !== null) source.DefaultSubtitleStreamIndex = index;
  }
  return source;
}

/**
 * The message Jellyfin apps show when nothing plays: reelshelf's incompatibility detail and hint.
 * @example noCompatibleStreamMessage({ detail: 'The file could not be read.', hint: 'Rescan.' })
 *   // 'The file could not be read. Rescan.'
 */
export function noCompatibleStreamMessage(incompatibility: { detail: string; hint?: string } | null): string {
  if (incompatibility === null) return 'This file cannot be played on this device.';
  return [incompatibility.detail, incompatibility.hint].filter((s) => s !== undefined && s !== '').join(' ');
}

/**
 * A master playlist that starts playing at `seconds` (RFC 8216 §4.3.5.2 `EXT-X-START`): how an app's
 * `StartTimeTicks` is honoured without cutting the film, so seeking back before it still works. The
 * segment there is made by a run started at it (HLS restarts at a seek).
 * @example withStartOffset('#EXTM3U\n#EXT-X-VERSION:7\n', 90) // '#EXTM3U\n#EXT-X-START:TIME-OFFSET=90.000,PRECISE=YES\n#EXT-X-VERSION:7\n'
 */
export function withStartOffset(playlist: string, seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return playlist;
  if (!playlist.startsWith('#EXTM3U\n')) return playlist;
  return `#EXTM3U\n#EXT-X-START:TIME-OFFSET=${seconds.toFixed(3)},PRECISE=YES\n${playlist.slice('#EXTM3U\n'.length)}`;
}

/**
 * A master playlist whose default audio rendition is reelshelf track `track` (the app's
 * `AudioStreamIndex`): every audio rendition stays listed, so the player may still switch, but it
 * starts on the one asked for (RFC 8216 §4.3.4.1: one `DEFAULT=YES` per group, which needs
 * `AUTOSELECT=YES`). A track that is not among the renditions leaves the playlist as it was.
 * @example withDefaultAudio('#EXT-X-MEDIA:TYPE=AUDIO,DEFAULT=YES,AUTOSELECT=YES,URI="hls/a0/index.m3u8"\n#EXT-X-MEDIA:TYPE=AUDIO,DEFAULT=NO,AUTOSELECT=YES,URI="hls/a1/index.m3u8"\n', 1)
 *   // DEFAULT=NO on a0, DEFAULT=YES on a1
 */
export function withDefaultAudio(playlist: string, track: number | null): string {
  if (track === null || !Number.isInteger(track) || track < 0) return playlist;
  const lines = playlist.split('\n');
  const isAudio = (line: string) => line.startsWith('#EXT-X-MEDIA:') && line.includes('TYPE=AUDIO');
  const wanted = `URI="hls/a${track}/`;
  if (!lines.some((line) => isAudio(line) && line.includes(wanted))) return playlist;
  return lines
    .map((line) => {
      if (!isAudio(line)) return line;
      const chosen = line.includes(wanted);
      const flagged = line.replace(/DEFAULT=(YES|NO)/, `DEFAULT=${chosen ? 'YES' : 'NO'}`);
      return chosen ? flagged.replace('AUTOSELECT=NO', 'AUTOSELECT=YES') : flagged;
    })
    .join('\n');
}
