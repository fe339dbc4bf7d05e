/**
 * What players are told about a file's subtitle tracks: a label a person reads, which one shows by
 * default, and the capability record the playback decision weighs. Pure.
 */
import { iso6392 } from 'iso-639-2';
import type { SubtitleCapabilities } from '../media/capabilities.ts';
import { defaultSubtitle } from '../playback/assess-subtitles.ts';
import type { SubtitleTrack } from './subtitle-track.ts';

const NAMES = new Map<string, string>();
for (const entry of iso6392) {
  // "Spanish; Castilian" → "Spanish": the first name is the one people use.
  const name = entry.name.split(';')[0]?.trim() ?? entry.name;
  NAMES.set(entry.iso6392B, name);
  if (entry.iso6392T !== undefined) NAMES.set(entry.iso6392T, name);
  if (entry.iso6391 !== undefined) NAMES.set(entry.iso6391, name);
}

/** 'English' for eng/en; null for an unknown or missing code. */
export function languageName(code: string | null): string | null {
  if (code === null) return null;
  return NAMES.get(code.toLowerCase()) ?? null;
}

/**
 * 'English', 'French (forced)', 'English SDH', 'German · Director's commentary'; the track's own
 * title when it adds something, 'Track 3' when nothing is known.
 */
export function subtitleLabel(
  track: Pick<SubtitleTrack, 'index' | 'language' | 'title' | 'forced' | 'sdh'>,
): string {
  const language = languageName(track.language);
  const title = track.title?.trim() ?? '';
  let label = language ?? (title !== '' ? title : `Track ${track.index + 1}`);
  if (track.sdh) label += ' SDH';
  if (track.forced) label += ' (forced)';
  if (language !== null && title !== '' && title.toLowerCase() !== language.toLowerCase()) {
    const redundant = /^(forced|sdh|hi|cc|default)$/i.test(title);
    if (!redundant) label += ` · ${title}`;
  }
  return label;
}

/** A track as the playback decision reads subtitles (`track` = the list's index). */
export function asCapability(track: SubtitleTrack): SubtitleCapabilities {
  return {
    index: track.index,
    track: track.index,
    codec: track.format,
    kind: track.kind,
    language: track.language,
    title: track.title,
    forced: track.forced,
    default: track.default,
    ...(track.source.kind === 'sidecar' ? { external: true } : {}),
  };
}

/** The index of the track shown by default (forced in the audio's language, else default-flagged), or null. */
export function defaultSubtitleIndex(
  tracks: readonly SubtitleTrack[],
  audioLanguage: string | null,
): number | null {
  return defaultSubtitle(tracks.map(asCapability), audioLanguage)?.track ?? null;
}
