/**
 * A Jellyfin `DeviceProfile` (posted with PlaybackInfo, players.md §1.7) → a reelshelf device profile,
 * so the app's file is judged by reelshelf's one decision engine (domain/playback/decide-playback.ts)
 * and not by a second set of rules. Pure; what it cannot express is listed in `ignored`.
 *
 * Read: DirectPlayProfiles (Type Video: containers, video and audio codecs), CodecProfiles (Video,
 * VideoAudio, Audio; their conditions below), TranscodingProfiles (Type Video: target codecs and
 * MaxAudioChannels), SubtitleProfiles (Embed, External, Hls, Encode) and MaxStreamingBitrate.
 * Condition values compare case-insensitively (players.md §1.7: "constrained baseline").
 */
import { createHash } from 'node:crypto';
import type {
  AudioCodecRule,
  AudioTarget,
  DeviceProfile,
  HdrOutput,
  VideoCodecRule,
  VideoTarget,
} from '../playback/device-profile-types.ts';

export interface JellyfinProfileCondition {
  Condition?: string;
  Property?: string;
  Value?: string | null;
  IsRequired?: boolean;
}

export interface JellyfinDeviceProfile {
  Name?: string | null;
  MaxStreamingBitrate?: number | null;
  MaxStaticBitrate?: number | null;
  DirectPlayProfiles?:
    | { Container?: string | null; VideoCodec?: string | null; AudioCodec?: string | null; Type?: string }[]
    | null;
  TranscodingProfiles?:
    | {
        Container?: string | null;
        Type?: string;
        VideoCodec?: string | null;
        AudioCodec?: string | null;
        Protocol?: string | null;
        MaxAudioChannels?: string | null;
      }[]
    | null;
  CodecProfiles?:
    | {
        Type?: string;
        Codec?: string | null;
        Container?: string | null;
        Conditions?: JellyfinProfileCondition[] | null;
        ApplyConditions?: JellyfinProfileCondition[] | null;
      }[]
    | null;
  SubtitleProfiles?: { Format?: string | null; Method?: string | null }[] | null;
}

export interface TranslatedProfile {
  profile: DeviceProfile;
  /** Conditions and profiles reelshelf has no rule for (documented, not silently dropped). */
  ignored: string[];
  /** Subtitle formats the app loads as a separate file (`vtt`, `srt`), in its order. */
  externalSubtitleFormats: string[];
  /** Whether the app asked for HLS conversions (a TranscodingProfile with Protocol hls). */
  hls: boolean;
}

/** Jellyfin's container names → the Capabilities container ids. */
const CONTAINERS: Record<string, string> = {
  m4v: 'mp4',
  mp4: 'mp4',
  mov: 'mov',
  matroska: 'mkv',
  mkv: 'mkv',
  webm: 'webm',
  mpegts: 'ts',
  ts: 'ts',
  m2ts: 'm2ts',
  avi: 'avi',
  mpeg: 'mpeg',
  mpg: 'mpeg',
  asf: 'asf',
  wmv: 'asf',
  ogg: 'ogg',
  flv: 'flv',
};

/** Jellyfin's codec names → ffprobe's. */
const CODECS: Record<string, string> = {
  avc: 'h264',
  h265: 'hevc',
  hvc1: 'hevc',
  mpeg2: 'mpeg2video',
  dca: 'dts',
  'e-ac3': 'eac3',
  'ac-3': 'ac3',
};

/** Jellyfin's subtitle formats → the Capabilities subtitle codec ids. */
const SUBTITLE_FORMATS: Record<string, string> = {
  vtt: 'webvtt',
  webvtt: 'webvtt',
  srt: 'srt',
  subrip: 'srt',
  ass: 'ass',
  ssa: 'ssa',
  pgssub: 'pgs',
  pgs: 'pgs',
  dvdsub: 'vobsub',
  vobsub: 'vobsub',
  dvbsub: 'dvbsub',
  mov_text: 'mov_text',
  ttml: 'ttml',
};

/** reelshelf encodes these (conversion targets): others in a TranscodingProfile are skipped. */
const VIDEO_TARGETS = new Set(['h264', 'hevc']);
const AUDIO_TARGETS = ['aac', 'eac3', 'ac3', 'mp3', 'opus', 'flac'];

function list(value: string | null | undefined, map: Record<string, string> = {}): string[] {
  if (value === null || value === undefined) return [];
  const out: string[] = [];
  for (const raw of value.split(/[,|]/)) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    const mapped = map[name] ?? name;
    if (!out.includes(mapped)) out.push(mapped);
  }
  return out;
}

const codecs = (value: string | null | undefined) => list(value, CODECS);
const containers = (value: string | null | undefined) => list(value, CONTAINERS);

function numberOf(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

const RANGE_TYPES: Record<string, HdrOutput | 'dv' | 'sdr'> = {
  sdr: 'sdr',
  hdr10: 'hdr10',
  hdr10plus: 'hdr10plus',
  hlg: 'hlg',
};

/** The levels ffprobe reports are divided this way in Capabilities (normaliseLevel). */
const LEVEL_DIVISORS: Record<string, number> = { h264: 10, hevc: 30 };

interface VideoConditions {
  rule: Omit<VideoCodecRule, 'codec' | 'containers'>;
  hdr: HdrOutput[] | null;
  dolbyVision: boolean;
}

/** One condition onto a video rule; false when reelshelf has no such rule. */
function applyVideoCondition(codec: string, c: JellyfinProfileCondition, out: VideoConditions): boolean {
  const property = (c.Property ?? '').toLowerCase();
  const op = (c.Condition ?? '').toLowerCase();
  const value = c.Value ?? '';
  const n = numberOf(value);
  const upper = op === 'lessthanequal';
  const rule = out.rule;
  if (property === 'videoprofile' && (op === 'equalsany' || op === 'equals')) {
    rule.profiles = list(value);
    return true;
  }
  if (property === 'videorangetype' && (op === 'equalsany' || op === 'equals')) {
    const ranges = list(value);
    out.hdr = ranges.flatMap((r) => {
      const known = RANGE_TYPES[r];
      return known === undefined || known === 'sdr' || known === 'dv' ? [] : [known];
    });
    out.dolbyVision = ranges.some((r) => r.startsWith('dovi'));
    return true;
  }
  if (upper && n !== null) {
    switch (property) {
      case 'videolevel': {
        const divisor = LEVEL_DIVISORS[codec];
        if (divisor === undefined) return false;
        rule.max_level = Math.round((n / divisor) * 10) / 10;
        return true;
      }
      case 'videobitdepth':
        rule.max_bit_depth = n;
        return true;
      case 'width':
        rule.max_width = n;
        return true;
      case 'height':
        rule.max_height = n;
        return true;
      case 'videoframerate':
        rule.max_frame_rate = n;
        return true;
      case 'videobitrate':
        rule.max_bitrate_bps = n;
        return true;
    }
  }
  const saysFalse =
    (op === 'notequals' && value.toLowerCase() === 'true') ||
    (op === 'equals' && value.toLowerCase() === 'false');
  if (property === 'isinterlaced' && saysFalse) {
    rule.allow_interlaced = false;
    return true;
  }
  if (property === 'isanamorphic' && saysFalse) {
    rule.allow_anamorphic = false;
    return true;
  }
  return false;
}

function applyAudioCondition(c: JellyfinProfileCondition, rule: AudioCodecRule): boolean {
  const property = (c.Property ?? '').toLowerCase();
  const op = (c.Condition ?? '').toLowerCase();
  const n = numberOf(c.Value);
  if (op === 'lessthanequal' && n !== null && property === 'audiochannels') {
    rule.max_channels = n;
    return true;
  }
  if (op === 'lessthanequal' && n !== null && property === 'audiosamplerate') {
    rule.max_sample_rate = n;
    return true;
  }
  if (property === 'audioprofile' && op === 'notequals' && c.Value) {
    rule.excluded_profiles = [...(rule.excluded_profiles ?? []), c.Value];
    return true;
  }
  return false;
}

function describe(c: JellyfinProfileCondition, where: string): string {
  return `${where}: ${c.Property ?? '?'} ${c.Condition ?? '?'} ${c.Value ?? ''}`.trim();
}

/** Codec profiles for `codec` of `types` (an empty Codec applies to every codec). */
function codecProfilesFor(posted: JellyfinDeviceProfile, types: readonly string[], codec: string) {
  return (posted.CodecProfiles ?? []).filter((p) => {
    if (!types.includes((p.Type ?? '').toLowerCase())) return false;
    const named = codecs(p.Codec);
    return named.length === 0 || named.includes(codec);
  });
}

function conditionsOf(
  p: { Conditions?: JellyfinProfileCondition[] | null; ApplyConditions?: JellyfinProfileCondition[] | null },
  ignored: string[],
  where: string,
) {
  // ApplyConditions make a codec profile apply only sometimes; reelshelf's rules are unconditional.
  if ((p.ApplyConditions ?? []).length > 0) {
    ignored.push(`${where}: a codec profile with ApplyConditions (applied unconditionally)`);
  }
  return p.Conditions ?? [];
}

/** Which containers list `codec` among a direct-play profile's codecs (an empty codec list = any). */
function containersByCodec(profiles: readonly { containers: string[]; codecs: string[] }[]): {
  byCodec: Map<string, string[]>;
  anyCodec: string[];
} {
  const byCodec = new Map<string, string[]>();
  const anyCodec: string[] = [];
  for (const p of profiles) {
    const cs = p.containers.length === 0 ? ['*'] : p.containers;
    if (p.codecs.length === 0) anyCodec.push(...cs);
    for (const codec of p.codecs) byCodec.set(codec, [...new Set([...(byCodec.get(codec) ?? []), ...cs])]);
  }
  return { byCodec, anyCodec: [...new Set(anyCodec)] };
}

function withContainers<T extends { codec: string }>(rule: T, cs: string[]): T {
  return cs.includes('*') ? rule : { ...rule, containers: cs };
}

/** A short stable id for a posted profile, so the same app's profile names the same reelshelf device. */
export function jellyfinDeviceId(posted: JellyfinDeviceProfile): string {
  return `jf-${createHash('sha256').update(JSON.stringify(posted)).digest('hex').slice(0, 16)}`;
}

/** Whether a device id was made by {@link jellyfinDeviceId}. */
export function isJellyfinDeviceId(id: string): boolean {
  return /^jf-[0-9a-f]{16}$/.test(id);
}

/**
 * Translates a posted Jellyfin DeviceProfile into reelshelf's.
 * @example translateDeviceProfile({ DirectPlayProfiles: [{ Type: 'Video', Container: 'mp4',
 *   VideoCodec: 'h264', AudioCodec: 'aac' }] }).profile.containers // ['mp4']
 */
export function translateDeviceProfile(posted: JellyfinDeviceProfile): TranslatedProfile {
  const ignored: string[] = [];
  const direct = (posted.DirectPlayProfiles ?? [])
    .filter((p) => (p.Type ?? 'Video').toLowerCase() === 'video')
    .map((p) => ({
      containers: containers(p.Container),
      video: codecs(p.VideoCodec),
      audio: codecs(p.AudioCodec),
    }));
  const allContainers = [
    ...new Set(direct.flatMap((p) => (p.containers.length === 0 ? ['*'] : p.containers))),
  ];
  const videoBy = containersByCodec(direct.map((p) => ({ containers: p.containers, codecs: p.video })));
  const audioBy = containersByCodec(direct.map((p) => ({ containers: p.containers, codecs: p.audio })));

  let hdr: HdrOutput[] | null = null;
  let dolbyVision = false;
  const videoRules: VideoCodecRule[] = [];
  for (const [codec, cs] of videoBy.byCodec) {
    const out: VideoConditions = { rule: {}, hdr: null, dolbyVision: false };
    for (const p of codecProfilesFor(posted, ['video'], codec)) {
      for (const c of conditionsOf(p, ignored, `video ${codec}`)) {
        if (!applyVideoCondition(codec, c, out)) ignored.push(describe(c, `video ${codec}`));
      }
    }
    // reelshelf's HDR support is per device, Jellyfin's per codec: the widest declared wins.
    if (out.hdr !== null) hdr = [...new Set([...(hdr ?? []), ...out.hdr])];
    dolbyVision ||= out.dolbyVision;
    videoRules.push(withContainers({ codec, ...out.rule }, cs));
  }
  if (videoBy.anyCodec.length > 0) videoRules.push(withContainers({ codec: '*' }, videoBy.anyCodec));

  const audioRules: AudioCodecRule[] = [];
  const audioRule = (codec: string, cs: string[]) => {
    const rule: AudioCodecRule = withContainers({ codec }, cs);
    for (const p of codecProfilesFor(posted, ['videoaudio', 'audio'], codec)) {
      for (const c of conditionsOf(p, ignored, `audio ${codec}`)) {
        if (!applyAudioCondition(c, rule)) ignored.push(describe(c, `audio ${codec}`));
      }
    }
    return rule;
  };
  for (const [codec, cs] of audioBy.byCodec) audioRules.push(audioRule(codec, cs));
  if (audioBy.anyCodec.length > 0) audioRules.push(audioRule('*', audioBy.anyCodec));

  // MaxStreamingBitrate caps what plays as it is (Jellyfin: "ContainerBitrateExceedsLimit").
  const cap = posted.MaxStreamingBitrate ?? null;
  if (cap !== null && cap > 0) {
    for (const rule of videoRules) rule.max_bitrate_bps = Math.min(rule.max_bitrate_bps ?? cap, cap);
  }

  const subtitles = subtitleSupport(posted);
  const transcoding = (posted.TranscodingProfiles ?? []).filter(
    (p) => (p.Type ?? 'Video').toLowerCase() === 'video',
  );
  const preferred = transcoding.find((p) => (p.Protocol ?? '').toLowerCase() === 'hls') ?? transcoding[0];
  const videoTargets: VideoTarget[] = codecs(preferred?.VideoCodec)
    .filter((c) => VIDEO_TARGETS.has(c))
    .map((codec) => ({ codec }));
  const maxChannels = numberOf(preferred?.MaxAudioChannels) ?? 2;
  const audioNames = codecs(preferred?.AudioCodec);
  const audioTargets: AudioTarget[] = AUDIO_TARGETS.filter((c) => audioNames.includes(c))
    .sort((a, b) => audioNames.indexOf(a) - audioNames.indexOf(b))
    .map((codec) => ({ codec, min_source_channels: 1, max_channels: maxChannels }));

  const profile: DeviceProfile = {
    id: jellyfinDeviceId(posted),
    name: nameOf(posted),
    description: 'A Jellyfin app’s posted DeviceProfile, translated (domain/jellyfin/device-profile.ts).',
    containers: allContainers,
    video: {
      codecs: videoRules,
      // No VideoRangeType condition: Jellyfin lets every range through; so does reelshelf.
      hdr: hdr ?? ['hdr10', 'hdr10plus', 'hlg'],
      dolby_vision: dolbyVision
        ? { profiles: ['*'], containers: allContainers, enhancement_layer: false }
        : null,
    },
    audio: { codecs: audioRules, passthrough: [], track_switching: true },
    subtitles: subtitles.support,
    max_streams: null,
    // A file that plays as it is goes out as the static file; HLS only for conversions.
    prefers_hls: false,
    conversion: { container: 'mp4', video: videoTargets, audio: audioTargets },
  };
  return {
    profile,
    ignored,
    externalSubtitleFormats: subtitles.external,
    hls: (preferred?.Protocol ?? '').toLowerCase() === 'hls',
  };
}

function nameOf(posted: JellyfinDeviceProfile): string {
  const name = (posted.Name ?? '').trim().slice(0, 48);
  return name === '' ? 'the app' : name;
}

function subtitleSupport(posted: JellyfinDeviceProfile): {
  support: DeviceProfile['subtitles'];
  external: string[];
} {
  const embedded: string[] = [];
  const external: string[] = [];
  for (const p of posted.SubtitleProfiles ?? []) {
    const format = (p.Format ?? '').trim().toLowerCase();
    const codec = SUBTITLE_FORMATS[format] ?? format;
    const method = (p.Method ?? '').toLowerCase();
    if (method === 'embed' && !embedded.includes(codec)) embedded.push(codec);
    // External and Hls both mean "a text track beside the picture": reelshelf serves it as WebVTT.
    if ((method === 'external' || method === 'hls') && !external.includes(codec)) external.push(codec);
  }
  const styled = ['ass', 'ssa'].some((c) => embedded.includes(c) || external.includes(c));
  return {
    support: {
      embedded,
      sidecar: external.length > 0 ? external : [],
      styled_text: styled ? 'render' : 'convert',
      artifact_text_format: null,
    },
    external,
  };
}
