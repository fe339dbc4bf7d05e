/**
 * How one file is offered to a TV in DIDL (players.md §2.1–2.2): the MIME type DLNA renderers expect
 * for each container, the stream's shape for `protocolInfo`, the URLs of the media routes, and the
 * few words that say why nothing plays. Pure.
 */
import type { HlsPlan } from '../hls/hls-plan.ts';
import type { Capabilities } from '../media/capabilities.ts';
import type { Incompatibility } from '../playback/decision-types.ts';
import { DLNA_MEDIA_PREFIX } from './paths.ts';
import type { StreamShape } from './protocol-info.ts';
import type { TvFamily } from './tv-family.ts';

/**
 * DLNA's MIME types, which differ from the web's for MPEG-TS: renderers take `video/mpeg` for
 * 188-byte MPEG-TS (minidlna, Jellyfin) and `video/vnd.dlna.mpeg-tts` for 192-byte M2TS.
 */
const DLNA_MIME: Readonly<Record<string, string>> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  ts: 'video/mpeg',
  m2ts: 'video/vnd.dlna.mpeg-tts',
  mpeg: 'video/mpeg',
  avi: 'video/avi',
  asf: 'video/x-ms-asf',
  wmv: 'video/x-ms-wmv',
  ogg: 'video/ogg',
  flv: 'video/x-flv',
};

/** The MIME type of a container as DLNA renderers name it (unknown: `application/octet-stream`). */
export function dlnaMimeOf(container: string): string {
  return DLNA_MIME[container.toLowerCase()] ?? 'application/octet-stream';
}

/** The extension a file URL ends in, for renderers that look at it (the container's own). */
export function extensionOf(container: string): string {
  const known = /^[a-z0-9]{1,5}$/.exec(container.toLowerCase());
  return known === null ? 'bin' : known[0];
}

/** protocol-info.ts names containers as ffmpeg muxers do. */
function shapeContainer(container: string): string {
  if (container === 'ts') return 'mpegts';
  if (container === 'mkv') return 'matroska';
  return container;
}

/** The stream a file is, with the audio track a TV plays first (the decision's choice). */
export function fileShape(caps: Capabilities, audioTrack: number | null): StreamShape {
  const audio = caps.audio.find((a) => a.track === audioTrack) ?? caps.audio[0] ?? null;
  return {
    container: shapeContainer(caps.container),
    videoCodec: caps.video?.codec ?? null,
    videoProfile: caps.video?.profile ?? null,
    width: caps.video?.width ?? null,
    height: caps.video?.height ?? null,
    framesPerSecond: caps.video?.frame_rate ?? null,
    audioCodec: audio?.codec ?? null,
    audioChannels: audio?.channels ?? null,
  };
}

/**
 * The stream a conversion writes: the HLS plan's video (copied: the source's; encoded: H.264 at the
 * source's size when it fits the target, else a size not known here, so none is said) and its
 * default audio rendition, in MPEG-TS.
 */
export function conversionShape(caps: Capabilities, plan: HlsPlan): StreamShape {
  const video = caps.video;
  const rendition = plan.audio.find((a) => a.isDefault) ?? plan.audio[0] ?? null;
  let width: number | null = null;
  let height: number | null = null;
  let codec: string | null = null;
  let profile: string | null = null;
  if (plan.video === 'copy' && video !== null) {
    ({ width, height, codec, profile } = video);
  } else if (plan.video !== null && plan.video !== 'copy' && video !== null) {
    codec = plan.video.codec;
    // libx264 writes High for 8-bit 4:2:0.
    profile = plan.video.codec === 'h264' && plan.video.bitDepth === 8 ? 'High' : null;
    const fits =
      (plan.video.maxWidth === undefined || (video.width ?? Infinity) <= plan.video.maxWidth) &&
      (plan.video.maxHeight === undefined || (video.height ?? Infinity) <= plan.video.maxHeight);
    if (fits) ({ width, height } = video);
  }
  return {
    container: 'mpegts',
    videoCodec: codec,
    videoProfile: profile,
    width,
    height,
    framesPerSecond: video?.frame_rate ?? null,
    audioCodec: rendition?.codec ?? null,
    audioChannels: rendition?.channels ?? null,
  };
}

/**
 * Why a file cannot play on a TV, in the few words a title can carry: "DTS audio", "VC-1 video".
 * The decision's detail without the sentence around it.
 */
export function cannotPlayReason(incompatibility: Incompatibility | null): string {
  if (incompatibility === null) return 'not playable';
  const detail = incompatibility.detail.trim();
  const cut =
    /\s+(?:is not supported by|cannot be decoded by|cannot be played by|exceeds|is not|is tagged|with \d+)\b|[;:]/.exec(
      detail,
    );
  const words = (cut === null ? detail : detail.slice(0, cut.index)).replace(/\.$/, '').trim();
  return words === '' ? incompatibility.type : words.slice(0, 60);
}

/** What a media URL serves, as its path names it. */
export type DlnaMediaTarget =
  | { kind: 'file'; family: TvFamily; fileId: number; extension: string }
  | { kind: 'conversion'; family: TvFamily; fileId: number }
  | { kind: 'subtitle'; family: TvFamily; fileId: number; index: number }
  | { kind: 'art'; family: TvFamily; movieId: number; profile: 'JPEG_TN' | 'JPEG_SM' };

/**
 * The path of a media URL (the token and an image's version ride in the query, whose `token` the
 * request log redacts): `/dlna/media/<family>/<file>/file.<ext>`, `…/conversion.ts`,
 * `…/subtitles/<index>.srt`, `/dlna/media/<family>/art/<movie>/<JPEG_TN|JPEG_SM>.jpg`. The file's
 * extension is last, for renderers that go by it.
 */
export function dlnaMediaPath(target: DlnaMediaTarget): string {
  const base = `${DLNA_MEDIA_PREFIX}/${target.family}`;
  switch (target.kind) {
    case 'file':
      return `${base}/${target.fileId}/file.${target.extension}`;
    case 'conversion':
      return `${base}/${target.fileId}/conversion.ts`;
    case 'subtitle':
      return `${base}/${target.fileId}/subtitles/${target.index}.srt`;
    case 'art':
      return `${base}/art/${target.movieId}/${target.profile}.jpg`;
  }
}

/** The largest box of each DLNA image profile (JPEG_TN ≤ 160×160, JPEG_SM ≤ 640×480). */
export const ART_BOX = {
  JPEG_TN: { width: 160, height: 160 },
  JPEG_SM: { width: 640, height: 480 },
} as const;
