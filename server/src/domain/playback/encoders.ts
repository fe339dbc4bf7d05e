/**
 * Which ffmpeg encoder makes each codec a conversion may produce. The argv builder
 * (domain/ffmpeg/artifact-command.ts) runs exactly these encoders, so a codec counts as encodable
 * only when ffmpeg lists this encoder: libaom-av1 is no stand-in for the libsvtav1 the AV1
 * command needs, and VP9 has no command at all.
 */
import { audioCodecName, videoCodecName } from './display-names.ts';

export const VIDEO_ENCODERS: Readonly<Record<string, string>> = {
  h264: 'libx264',
  hevc: 'libx265',
  av1: 'libsvtav1',
};

export const AUDIO_ENCODERS: Readonly<Record<string, string>> = {
  aac: 'aac',
  ac3: 'ac3',
  eac3: 'eac3',
  mp3: 'libmp3lame',
  opus: 'libopus',
  vorbis: 'libvorbis',
  flac: 'flac',
  alac: 'alac',
  dts: 'dca',
};

/** Codec ids (not encoder names) the ffmpeg in use can produce: the decision's `encoders` input. */
export interface EncodableCodecs {
  audio: string[];
  video: string[];
}

function encodable(table: Readonly<Record<string, string>>, present: ReadonlySet<string>): string[] {
  return Object.entries(table)
    .filter(([, encoder]) => present.has(encoder))
    .map(([codec]) => codec)
    .sort();
}

/**
 * @param encoderNames what `ffmpeg -encoders` listed (empty when there is no ffmpeg)
 * @example encodableCodecs(['aac', 'libx264', 'libaom-av1']) // { audio: ['aac'], video: ['h264'] }
 */
export function encodableCodecs(encoderNames: readonly string[]): EncodableCodecs {
  const present = new Set(encoderNames);
  return { audio: encodable(AUDIO_ENCODERS, present), video: encodable(VIDEO_ENCODERS, present) };
}

export interface MissingEncoder {
  kind: 'audio' | 'video';
  codec: string;
  encoder: string;
}

/** The conversions this ffmpeg cannot make, video first, for the health page and start-up lines. */
export function missingEncoders(encoderNames: readonly string[]): MissingEncoder[] {
  const present = new Set(encoderNames);
  const missing = (kind: 'audio' | 'video', table: Readonly<Record<string, string>>) =>
    Object.entries(table)
      .filter(([, encoder]) => !present.has(encoder))
      .map(([codec, encoder]) => ({ kind, codec, encoder }));
  return [...missing('video', VIDEO_ENCODERS), ...missing('audio', AUDIO_ENCODERS)];
}

/** 'AV1 encoding (libsvtav1)' */
export function encodingName(missing: MissingEncoder): string {
  const name = missing.kind === 'video' ? videoCodecName(missing.codec) : audioCodecName(missing.codec);
  return `${name} encoding (${missing.encoder})`;
}

/**
 * Why no target of a device's conversion list can be made, naming the encoders it would take:
 * "The ffmpeg in use has no encoder for H.264 (libx264), which this device needs."
 */
export function noEncoderHint(kind: 'audio' | 'video', codecs: readonly string[], device: string): string {
  const table = kind === 'video' ? VIDEO_ENCODERS : AUDIO_ENCODERS;
  const nameOf = kind === 'video' ? videoCodecName : audioCodecName;
  const wanted = [...new Set(codecs)].map((codec) => {
    const encoder = table[codec];
    return encoder === undefined ? nameOf(codec) : `${nameOf(codec)} (${encoder})`;
  });
  const list = wanted.length === 0 ? `any ${kind} format` : wanted.join(' or ');
  return (
    `The ffmpeg in use has no encoder for ${list}, which ${device} needs. ` +
    'Install a full ffmpeg (Debian: apt-get install ffmpeg) or point REELSHELF_FFMPEG at one.'
  );
}
