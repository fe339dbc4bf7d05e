/**
 * Pure validation of a device profile read from JSON (a user profile in the data dir). Unknown keys
 * are errors so that a typo (`max_chanels`) does not silently widen what a device is said to play.
 */
import type {
  AudioCodecRule,
  AudioTarget,
  DeviceProfile,
  DolbyVisionSupport,
  HdrOutput,
  SubtitleSupport,
  VideoCodecRule,
  VideoTarget,
} from './device-profile-types.ts';

export type DeviceProfileValidation = { ok: true; profile: DeviceProfile } | { ok: false; errors: string[] };

type JsonObject = Record<string, unknown>;

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects errors with JSON paths while reading typed values out of unknown input. */
class Reader {
  readonly errors: string[] = [];

  object(value: unknown, path: string, allowed: readonly string[]): JsonObject {
    if (!isRecord(value)) {
      this.errors.push(`${path}: must be an object`);
      return {};
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.errors.push(`${path}.${key}: unknown key`);
    }
    return value;
  }

  string(obj: JsonObject, key: string, path: string): string {
    const value = obj[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
    this.errors.push(`${path}.${key}: must be a non-empty string`);
    return '';
  }

  boolean(obj: JsonObject, key: string, path: string): boolean {
    const value = obj[key];
    if (typeof value === 'boolean') return value;
    this.errors.push(`${path}.${key}: must be a boolean`);
    return false;
  }

  positive(obj: JsonObject, key: string, path: string): number {
    const value = obj[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
    this.errors.push(`${path}.${key}: must be a positive number`);
    return 0;
  }

  strings(obj: JsonObject, key: string, path: string): string[] {
    const value = obj[key];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) {
      return value.filter((item): item is string => typeof item === 'string');
    }
    this.errors.push(`${path}.${key}: must be an array of non-empty strings`);
    return [];
  }

  array(obj: JsonObject, key: string, path: string): unknown[] {
    const value = obj[key];
    if (Array.isArray(value)) return value;
    this.errors.push(`${path}.${key}: must be an array`);
    return [];
  }
}

const VIDEO_RULE_KEYS = [
  'codec',
  'containers',
  'profiles',
  'max_level',
  'max_bit_depth',
  'max_width',
  'max_height',
  'max_frame_rate',
  'max_bitrate_bps',
  'allow_interlaced',
  'allow_anamorphic',
  'required_tags',
] as const;

const VIDEO_RULE_NUMBERS = [
  'max_level',
  'max_bit_depth',
  'max_width',
  'max_height',
  'max_frame_rate',
  'max_bitrate_bps',
] as const;

function readRequiredTags(reader: Reader, value: unknown, path: string): Record<string, string[]> {
  const tags: Record<string, string[]> = {};
  if (!isRecord(value)) {
    reader.errors.push(`${path}: must be an object of container → tag list`);
    return tags;
  }
  for (const container of Object.keys(value)) tags[container] = reader.strings(value, container, path);
  return tags;
}

function readVideoRule(reader: Reader, value: unknown, path: string): VideoCodecRule {
  const obj = reader.object(value, path, VIDEO_RULE_KEYS);
  const rule: VideoCodecRule = { codec: reader.string(obj, 'codec', path) };
  if (obj.containers !== undefined) rule.containers = reader.strings(obj, 'containers', path);
  if (obj.profiles !== undefined) rule.profiles = reader.strings(obj, 'profiles', path);
  for (const key of VIDEO_RULE_NUMBERS) {
    if (obj[key] !== undefined) rule[key] = reader.positive(obj, key, path);
  }
  if (obj.allow_interlaced !== undefined)
    rule.allow_interlaced = reader.boolean(obj, 'allow_interlaced', path);
  if (obj.allow_anamorphic !== undefined)
    rule.allow_anamorphic = reader.boolean(obj, 'allow_anamorphic', path);
  if (obj.required_tags !== undefined) {
    rule.required_tags = readRequiredTags(reader, obj.required_tags, `${path}.required_tags`);
  }
  return rule;
}

const AUDIO_RULE_KEYS = [
  'codec',
  'containers',
  'max_channels',
  'excluded_profiles',
  'max_sample_rate',
  'passthrough_only',
] as const;

function readAudioRule(reader: Reader, value: unknown, path: string): AudioCodecRule {
  const obj = reader.object(value, path, AUDIO_RULE_KEYS);
  const rule: AudioCodecRule = { codec: reader.string(obj, 'codec', path) };
  if (obj.containers !== undefined) rule.containers = reader.strings(obj, 'containers', path);
  if (obj.max_channels !== undefined) rule.max_channels = reader.positive(obj, 'max_channels', path);
  if (obj.excluded_profiles !== undefined) {
    rule.excluded_profiles = reader.strings(obj, 'excluded_profiles', path);
  }
  if (obj.max_sample_rate !== undefined) rule.max_sample_rate = reader.positive(obj, 'max_sample_rate', path);
  if (obj.passthrough_only !== undefined)
    rule.passthrough_only = reader.boolean(obj, 'passthrough_only', path);
  return rule;
}

const HDR_OUTPUTS: readonly HdrOutput[] = ['hdr10', 'hdr10plus', 'hlg'];

function readHdr(reader: Reader, obj: JsonObject, path: string): HdrOutput[] {
  return reader.strings(obj, 'hdr', path).flatMap((value) => {
    const known = HDR_OUTPUTS.find((hdr) => hdr === value);
    if (known === undefined) reader.errors.push(`${path}.hdr: unknown HDR format "${value}"`);
    return known === undefined ? [] : [known];
  });
}

function readDolbyVision(reader: Reader, value: unknown, path: string): DolbyVisionSupport | null {
  if (value === null) return null;
  const obj = reader.object(value, path, ['profiles', 'containers', 'enhancement_layer']);
  return {
    profiles: reader.strings(obj, 'profiles', path),
    containers: reader.strings(obj, 'containers', path),
    enhancement_layer: reader.boolean(obj, 'enhancement_layer', path),
  };
}

function readVideo(reader: Reader, value: unknown): DeviceProfile['video'] {
  const obj = reader.object(value, 'video', ['codecs', 'hdr', 'dolby_vision']);
  return {
    codecs: reader
      .array(obj, 'codecs', 'video')
      .map((rule, i) => readVideoRule(reader, rule, `video.codecs[${i}]`)),
    hdr: readHdr(reader, obj, 'video'),
    dolby_vision: readDolbyVision(reader, obj.dolby_vision ?? null, 'video.dolby_vision'),
  };
}

function readAudio(reader: Reader, value: unknown): DeviceProfile['audio'] {
  const obj = reader.object(value, 'audio', ['codecs', 'passthrough', 'track_switching']);
  return {
    codecs: reader
      .array(obj, 'codecs', 'audio')
      .map((rule, i) => readAudioRule(reader, rule, `audio.codecs[${i}]`)),
    passthrough: reader.strings(obj, 'passthrough', 'audio'),
    track_switching: reader.boolean(obj, 'track_switching', 'audio'),
  };
}

const STYLED_TEXT_MODES: readonly SubtitleSupport['styled_text'][] = ['render', 'convert', 'burn_in'];

function readSubtitles(reader: Reader, value: unknown): SubtitleSupport {
  const path = 'subtitles';
  const obj = reader.object(value, path, ['embedded', 'sidecar', 'styled_text', 'artifact_text_format']);
  const styled = STYLED_TEXT_MODES.find((mode) => mode === obj.styled_text);
  if (styled === undefined)
    reader.errors.push(`${path}.styled_text: must be one of ${STYLED_TEXT_MODES.join(', ')}`);
  const artifactFormat = obj.artifact_text_format;
  if (artifactFormat !== null && typeof artifactFormat !== 'string') {
    reader.errors.push(`${path}.artifact_text_format: must be a string or null`);
  }
  return {
    embedded: reader.strings(obj, 'embedded', path),
    sidecar: reader.strings(obj, 'sidecar', path),
    styled_text: styled ?? 'burn_in',
    artifact_text_format: typeof artifactFormat === 'string' ? artifactFormat : null,
  };
}

function readVideoTarget(reader: Reader, value: unknown, path: string): VideoTarget {
  const obj = reader.object(value, path, ['codec', 'tag', 'hdr_sources_only', 'max_width', 'max_height']);
  const target: VideoTarget = { codec: reader.string(obj, 'codec', path) };
  if (obj.tag !== undefined) target.tag = reader.string(obj, 'tag', path);
  if (obj.hdr_sources_only !== undefined)
    target.hdr_sources_only = reader.boolean(obj, 'hdr_sources_only', path);
  if (obj.max_width !== undefined) target.max_width = reader.positive(obj, 'max_width', path);
  if (obj.max_height !== undefined) target.max_height = reader.positive(obj, 'max_height', path);
  return target;
}

function readAudioTarget(reader: Reader, value: unknown, path: string): AudioTarget {
  const obj = reader.object(value, path, ['codec', 'min_source_channels', 'max_channels']);
  return {
    codec: reader.string(obj, 'codec', path),
    min_source_channels: reader.positive(obj, 'min_source_channels', path),
    max_channels: reader.positive(obj, 'max_channels', path),
  };
}

function readConversion(reader: Reader, value: unknown): DeviceProfile['conversion'] {
  const path = 'conversion';
  const obj = reader.object(value, path, ['container', 'video', 'audio']);
  const video = reader
    .array(obj, 'video', path)
    .map((t, i) => readVideoTarget(reader, t, `${path}.video[${i}]`));
  const audio = reader
    .array(obj, 'audio', path)
    .map((t, i) => readAudioTarget(reader, t, `${path}.audio[${i}]`));
  if (video.length === 0) reader.errors.push(`${path}.video: needs at least one target`);
  if (audio.length === 0) reader.errors.push(`${path}.audio: needs at least one target`);
  return { container: reader.string(obj, 'container', path), video, audio };
}

function readMaxStreams(reader: Reader, obj: JsonObject): number | null {
  if (obj.max_streams === null || obj.max_streams === undefined) return null;
  return reader.positive(obj, 'max_streams', 'profile');
}

const PROFILE_KEYS = [
  'id',
  'name',
  'description',
  'containers',
  'video',
  'audio',
  'subtitles',
  'max_streams',
  'prefers_hls',
  'conversion',
] as const;

/** Conversion targets must be something the device itself plays, or an artifact would be useless. */
function checkTargetsPlayable(reader: Reader, profile: DeviceProfile): void {
  for (const target of profile.conversion.audio) {
    const plays = profile.audio.codecs.some((rule) => rule.codec === '*' || rule.codec === target.codec);
    if (!plays) reader.errors.push(`conversion.audio: target ${target.codec} is not in audio.codecs`);
  }
  for (const target of profile.conversion.video) {
    const plays = profile.video.codecs.some((rule) => rule.codec === '*' || rule.codec === target.codec);
    if (!plays) reader.errors.push(`conversion.video: target ${target.codec} is not in video.codecs`);
  }
}

/**
 * Checks an unknown value (parsed JSON) against the DeviceProfile shape.
 * @returns the typed profile, or every problem found with its JSON path
 * @example validateDeviceProfile(JSON.parse(text)) // { ok: false, errors: ['audio.codecs[0].max_chanels: unknown key'] }
 */
export function validateDeviceProfile(value: unknown): DeviceProfileValidation {
  const reader = new Reader();
  const obj = reader.object(value, 'profile', PROFILE_KEYS);
  const id = reader.string(obj, 'id', 'profile');
  if (id !== '' && !/^[a-z0-9][a-z0-9_-]*$/.test(id)) {
    reader.errors.push('profile.id: must be lower-case letters, digits, "-" or "_"');
  }
  const profile: DeviceProfile = {
    id,
    name: reader.string(obj, 'name', 'profile'),
    description: typeof obj.description === 'string' ? obj.description : '',
    containers: reader.strings(obj, 'containers', 'profile'),
    video: readVideo(reader, obj.video),
    audio: readAudio(reader, obj.audio),
    subtitles: readSubtitles(reader, obj.subtitles),
    max_streams: readMaxStreams(reader, obj),
    // Optional: a user profile written before HLS existed keeps its progressive stream for direct files.
    prefers_hls: obj.prefers_hls === undefined ? false : reader.boolean(obj, 'prefers_hls', 'profile'),
    conversion: readConversion(reader, obj.conversion),
  };
  checkTargetsPlayable(reader, profile);
  return reader.errors.length === 0 ? { ok: true, profile } : { ok: false, errors: reader.errors };
}
