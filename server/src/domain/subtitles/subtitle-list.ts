/**
 * What players are told about a file's subtitle tracks: a label a person reads, which one shows by
 * default, and the capability record the playback decision weighs. Pure.
 */
import { iso6392 } from 'iso-639-2';
import type { SubtitleCapabilities } from '../media/capabilities.ts';
import { defaultSubtitle } from '../playback/assess-subtitles.ts';
import { languageCode } from './sidecar-name.ts';
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

/** A sidecar as the scan recorded it (a subtitle_sidecars row; flags as 0/1 or booleans). */
export interface SidecarFacts {
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  format: string;
  kind: string;
  language: string | null;
  title: string | null;
  forced: number | boolean;
  default: number | boolean;
  sdh: number | boolean;
}

/**
 * A stream title that says the track is for the deaf and hard of hearing: `SDH`, `English (SDH)`,
 * `[HI]`, `CC`, "Hearing Impaired", "Hard of Hearing". `HI` and `CC` count in capitals only (a title
 * saying "Hi" is not a flag).
 */
const SDH_TITLE = /\bsdh\b|hearing[\s_-]*impaired|hard[\s_-]+of[\s_-]+hearing|\bdeaf\b/i;
const SDH_TITLE_CAPITALS = /\b(?:HI|CC)\b/;

function isSdhTitle(title: string | null): boolean {
  return title !== null && (SDH_TITLE.test(title) || SDH_TITLE_CAPITALS.test(title));
}

function fileName(relativePath: string): string {
  return relativePath.split('/').at(-1) ?? relativePath;
}

/** By file name (case-insensitive), then path: the same order on every machine (no locale collation). */
function bySidecarName(a: SidecarFacts, b: SidecarFacts): number {
  const na = fileName(a.relative_path).toLowerCase();
  const nb = fileName(b.relative_path).toLowerCase();
  if (na !== nb) return na < nb ? -1 : 1;
  return a.relative_path < b.relative_path ? -1 : a.relative_path > b.relative_path ? 1 : 0;
}

/**
 * The one numbered list of a file's subtitle tracks: the embedded streams in stream order, then the
 * sidecars by file name. Every place that numbers tracks (URLs, the decision, HLS, the playback
 * endpoint) goes through here, so an index means the same track everywhere.
 */
export function subtitleTracksOf(
  embedded: readonly SubtitleCapabilities[],
  sidecars: readonly SidecarFacts[],
): SubtitleTrack[] {
  const tracks: SubtitleTrack[] = [...embedded]
    .filter((sub) => sub.external !== true)
    .sort((a, b) => a.track - b.track)
    .map((sub, position) => ({
      index: position,
      source: { kind: 'embedded', stream: sub.track },
      format: sub.codec,
      kind: sub.kind,
      // MP4 stores ISO 639-2/T (`fra`, `deu`), Matroska mostly /B: one code per language, as sidecars.
      language: sub.language === null ? null : (languageCode(sub.language) ?? sub.language),
      title: sub.title,
      forced: sub.forced,
      default: sub.default,
      sdh: isSdhTitle(sub.title),
    }));
  for (const row of [...sidecars].sort(bySidecarName)) {
    tracks.push({
      index: tracks.length,
      source: {
        kind: 'sidecar',
        relativePath: row.relative_path,
        sizeBytes: Number(row.size_bytes),
        mtimeMs: Number(row.mtime_ms),
      },
      format: row.format,
      kind: row.kind === 'image' ? 'image' : 'text',
      language: row.language,
      title: row.title,
      forced: Boolean(row.forced),
      default: Boolean(row.default),
      sdh: Boolean(row.sdh),
    });
  }
  return tracks;
}
