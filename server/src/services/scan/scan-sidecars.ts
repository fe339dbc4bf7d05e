/**
 * @module services/scan/scan-sidecars
 * The subtitle files a scan found beside its videos, and how the commit makes the recorded ones match.
 */
import type { WalkedFile } from '../../adapters/directory-walker.ts';
import { type SidecarVideo, matchSidecars } from '../../domain/subtitles/sidecar-name.ts';
import type { ScanRepository } from '../../repositories/scan.repository.ts';
import type {
  NewSubtitleSidecar,
  SidecarFields,
  SubtitleSidecarRepository,
} from '../../repositories/subtitle-sidecar.repository.ts';

/** A subtitle file the walk found beside a video, as it is to be recorded. */
export interface FoundSidecar {
  videoPath: string;
  relativePath: string;
  fields: SidecarFields;
}

/** The sidecar writes of a scan's commit. */
export type SidecarStore = Pick<SubtitleSidecarRepository, 'ofRoot' | 'insert' | 'update' | 'delete'>;

/**
 * The subtitle files to record, each with its video, read from the names and the walk's stats. A
 * VobSub track is its `.idx`; its size and mtime cover its `.sub` too, so a change of either is seen.
 */
export function foundSidecars(videos: SidecarVideo[], subtitles: WalkedFile[]): FoundSidecar[] {
  if (subtitles.length === 0) return [];
  const byPath = new Map(subtitles.map((f) => [f.relativePath, f]));
  const byLowerPath = new Map(subtitles.map((f) => [f.relativePath.toLowerCase(), f]));
  const out: FoundSidecar[] = [];
  for (const match of matchSidecars(
    videos,
    subtitles.map((f) => f.relativePath),
  )) {
    const file = byPath.get(match.sidecarPath);
    if (file === undefined) continue;
    let size = file.sizeBytes;
    let mtime = file.mtimeMs;
    if (match.name.format === 'vobsub') {
      const data = byLowerPath.get(`${match.sidecarPath.slice(0, -'.idx'.length)}.sub`.toLowerCase());
      if (data !== undefined) {
        size += data.sizeBytes;
        mtime = Math.max(mtime, data.mtimeMs);
      }
    }
    const { name } = match;
    out.push({
      videoPath: match.videoPath,
      relativePath: match.sidecarPath,
      fields: {
        size_bytes: size,
        mtime_ms: mtime,
        format: name.format,
        kind: name.kind,
        language: name.language,
        title: name.title,
        forced: name.forced ? 1 : 0,
        default: name.default ? 1 : 0,
        sdh: name.sdh ? 1 : 0,
      },
    });
  }
  return out;
}

/**
 * Makes the recorded sidecars of a root's media files those the scan found: new ones inserted, changed
 * ones (size, mtime or what the name says) updated, gone ones deleted. A sidecar of a video that is not
 * in the library (a file that failed to stage) waits for the next scan. The videos are not touched.
 */
export async function syncSidecars(
  repos: { sidecars: SidecarStore; scans: Pick<ScanRepository, 'knownFiles'> },
  rootId: number,
  found: FoundSidecar[],
  now: string,
): Promise<void> {
  const repo = repos.sidecars;
  const recorded = await repo.ofRoot(rootId);
  if (found.length === 0 && recorded.length === 0) return;
  const fileIds = new Map((await repos.scans.knownFiles(rootId)).map((f) => [f.relative_path, f.id]));
  const key = (mediaFileId: number, relativePath: string) => `${mediaFileId}\n${relativePath}`;
  const byKey = new Map(recorded.map((r) => [key(r.media_file_id, r.relative_path), r]));
  const keep = new Set<number>();
  const inserts: NewSubtitleSidecar[] = [];
  for (const sidecar of found) {
    const mediaFileId = fileIds.get(sidecar.videoPath);
    if (mediaFileId === undefined) continue;
    const row = byKey.get(key(mediaFileId, sidecar.relativePath));
    if (row === undefined) {
      inserts.push({
        media_file_id: mediaFileId,
        relative_path: sidecar.relativePath,
        ...sidecar.fields,
        created_at: now,
        updated_at: now,
      });
      continue;
    }
    keep.add(row.id);
    const fields = sidecar.fields;
    const same = (Object.keys(fields) as (keyof SidecarFields)[]).every((k) => row[k] === fields[k]);
    if (!same) await repo.update(row.id, fields, now);
  }
  await repo.delete(recorded.filter((r) => !keep.has(r.id)).map((r) => r.id));
  await repo.insert(inserts);
}
