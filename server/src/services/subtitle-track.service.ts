import type { Db } from '../db/database.ts';
import type { SubtitleCapabilities } from '../domain/media/capabilities.ts';
import { languageCode } from '../domain/subtitles/sidecar-name.ts';
import type { SubtitleTrack, SubtitleTrackSource } from '../domain/subtitles/subtitle-track.ts';
import { notFound } from '../errors.ts';
import { MediaFileRepository } from '../repositories/media-file.repository.ts';
import {
  type SubtitleSidecarRow,
  SubtitleSidecarRepository,
} from '../repositories/subtitle-sidecar.repository.ts';
import { readCapabilities } from './edition-presenter.ts';

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

/** By file name (then path), the same order on every machine (no locale collation). */
function bySidecarName(a: SubtitleSidecarRow, b: SubtitleSidecarRow): number {
  const na = fileName(a.relative_path).toLowerCase();
  const nb = fileName(b.relative_path).toLowerCase();
  if (na !== nb) return na < nb ? -1 : 1;
  return a.relative_path < b.relative_path ? -1 : a.relative_path > b.relative_path ? 1 : 0;
}

/**
 * A media file's subtitle tracks in one numbered list: its embedded subtitle streams as the analysis
 * recorded them (stream order), then the sidecar files the scan found beside it (by file name).
 */
export class SubtitleTrackService implements SubtitleTrackSource {
  constructor(private readonly db: Db) {}

  async tracks(fileId: number): Promise<SubtitleTrack[]> {
    const file = await new MediaFileRepository(this.db).getById(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    const embedded = [...(readCapabilities(file.capabilities_json)?.subtitles ?? [])].sort(
      (a, b) => a.track - b.track,
    );
    const sidecars = (await new SubtitleSidecarRepository(this.db).ofFile(fileId)).sort(bySidecarName);
    const tracks: SubtitleTrack[] = [];
    for (const stream of embedded) tracks.push(embeddedTrack(tracks.length, stream));
    for (const row of sidecars) tracks.push(sidecarTrack(tracks.length, row));
    return tracks;
  }
}

function embeddedTrack(index: number, stream: SubtitleCapabilities): SubtitleTrack {
  return {
    index,
    source: { kind: 'embedded', stream: stream.track },
    format: stream.codec,
    kind: stream.kind,
    // MP4 stores ISO 639-2/T (`fra`, `deu`), Matroska mostly /B: one code per language, as sidecars.
    language: stream.language === null ? null : (languageCode(stream.language) ?? stream.language),
    title: stream.title,
    forced: stream.forced,
    default: stream.default,
    sdh: isSdhTitle(stream.title),
  };
}

function sidecarTrack(index: number, row: SubtitleSidecarRow): SubtitleTrack {
  return {
    index,
    source: {
      kind: 'sidecar',
      relativePath: row.relative_path,
      sizeBytes: row.size_bytes,
      mtimeMs: row.mtime_ms,
    },
    format: row.format,
    kind: row.kind === 'image' ? 'image' : 'text',
    language: row.language,
    title: row.title,
    forced: row.forced === 1,
    default: row.default === 1,
    sdh: row.sdh === 1,
  };
}
