/** Capability records and plans for the ffmpeg argv tests, built by hand (no decision engine). */
import type {
  AudioCapabilities,
  Capabilities,
  SubtitleCapabilities,
  VideoCapabilities,
} from '../../../src/domain/media/capabilities.ts';
import type { PlaybackPlan, VideoEncodePlan } from '../../../src/domain/playback/decision-types.ts';

export function videoCaps(over: Partial<VideoCapabilities> = {}): VideoCapabilities {
  return {
    index: 0,
    codec: 'h264',
    profile: 'High',
    level: 4.1,
    width: 1920,
    height: 1080,
    bit_depth: 8,
    pix_fmt: 'yuv420p',
    frame_rate: 23.976,
    interlaced: false,
    codec_tag: null,
    hdr: 'sdr',
    dolby_vision: null,
    sar: '1:1',
    anamorphic: false,
    rotation: 0,
    bitrate_bps: null,
    ...over,
  };
}

export function audioCaps(
  track: number,
  codec: string,
  over: Partial<AudioCapabilities> = {},
): AudioCapabilities {
  return {
    index: track + 1,
    track,
    codec,
    profile: null,
    channels: 2,
    channel_layout: 'stereo',
    sample_rate: 48_000,
    bitrate_bps: null,
    language: 'eng',
    title: null,
    default: track === 0,
    forced: false,
    ...over,
  };
}

export function subCaps(
  track: number,
  codec: string,
  over: Partial<SubtitleCapabilities> = {},
): SubtitleCapabilities {
  const image = ['pgs', 'vobsub', 'dvbsub'].includes(codec);
  return {
    index: 10 + track,
    track,
    codec,
    kind: image ? 'image' : 'text',
    language: 'eng',
    title: null,
    forced: false,
    default: false,
    ...over,
  };
}

export function caps(over: Partial<Capabilities> = {}): Capabilities {
  return {
    container: 'mkv',
    format_name: 'matroska,webm',
    duration_seconds: 2,
    size_bytes: 100_000,
    bitrate_bps: 400_000,
    stream_count: 2,
    video: videoCaps(),
    audio: [audioCaps(0, 'aac')],
    subtitles: [],
    ...over,
  };
}

export function plan(over: Partial<PlaybackPlan> = {}): PlaybackPlan {
  return {
    container: 'mp4',
    video: 'copy',
    videoTag: null,
    videoStrip: null,
    audio: 'copy',
    audioTrack: 0,
    subtitles: { mode: 'none' },
    ...over,
  };
}

export function encode(over: Partial<VideoEncodePlan> = {}): VideoEncodePlan {
  return {
    codec: 'h264',
    bitDepth: 8,
    hdr: 'sdr',
    toneMap: false,
    deinterlace: false,
    burnSubtitle: null,
    ...over,
  };
}

/** The value after the first `flag` (undefined when absent). */
export function valueOf(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
}

/** The values after every occurrence of `flag` (e.g. all `-map`s). */
export function valuesOf(args: string[], flag: string): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    const next = args[i + 1];
    if (arg === flag && next !== undefined) out.push(next);
  });
  return out;
}
