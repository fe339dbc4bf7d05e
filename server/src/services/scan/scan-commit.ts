/**
 * @module services/scan/scan-commit
 * The last step of a scan, in one transaction: the staged rows become live, vanished files are marked
 * missing, new files are matched to movies (or get new ones) and the sidecars are brought in line.
 */
import type { ScanCounts } from '@reelshelf/contract';
import { type MatchCandidate, groupEditions, matchMovie } from '../../domain/scan/match.ts';
import { type ParsedMovieName, parseMoviePath } from '../../domain/scan/parse-name.ts';
import { normalizeTitle, sortTitle } from '../../domain/titles.ts';
import type { LibraryRootRepository } from '../../repositories/library-root.repository.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type {
  KnownFileRow,
  ScanRepository,
  ScannedAnalysis,
  StagingRow,
} from '../../repositories/scan.repository.ts';
import { type FoundSidecar, type SidecarStore, syncSidecars } from './scan-sidecars.ts';

/** What a scan reads and writes outside its commit: the known files and its own staging rows. */
export type ScanStaging = Pick<ScanRepository, 'knownFiles' | 'insertStaging' | 'deleteStaging'>;

/** The repositories a scan's commit writes through, all bound to one transaction. */
export interface ScanCommitRepositories {
  scans: Pick<
    ScanRepository,
    | 'knownFiles'
    | 'stagingOf'
    | 'deleteStaging'
    | 'movieCandidates'
    | 'updateScannedFile'
    | 'insertScannedFile'
    | 'insertMovie'
    | 'fulfilWishes'
  >;
  mediaFiles: Pick<MediaFileRepository, 'markMissing'>;
  roots: Pick<LibraryRootRepository, 'touchScanned'>;
  sidecars: SidecarStore;
}

/** What the commit is told of the walk: the files that vanished, those found again elsewhere, the sidecars. */
export interface ScanOutcome {
  scanId: number;
  rootId: number;
  vanished: KnownFileRow[];
  claimed: Set<number>;
  sidecars: FoundSidecar[];
  /** Known files that were missing when the scan began: seen again, their films are owned again. */
  missingBefore: ReadonlySet<number>;
}

/** Writes the staged rows of one scan; returns the ids of the movies it created. Counts are updated in place. */
export async function commitScan(
  repos: ScanCommitRepositories,
  outcome: ScanOutcome,
  counts: ScanCounts,
  now: string,
): Promise<number[]> {
  const { scanId, rootId, vanished, claimed, sidecars, missingBefore } = outcome;
  const staging = await repos.scans.stagingOf(scanId);
  const analysisFields = (s: StagingRow): ScannedAnalysis =>
    s.analysis_status === 'keep'
      ? {}
      : {
          analysis_status: s.analysis_status,
          capabilities_json: s.capabilities_json,
          analysis_error: s.analysis_error,
          analyzed_size_bytes: s.analysis_status === 'not_analyzed' ? null : s.size_bytes,
          analyzed_fingerprint: s.analysis_status === 'not_analyzed' ? null : s.fingerprint,
          analyzed_at: s.analysis_status === 'not_analyzed' ? null : now,
        };
  const newRows: StagingRow[] = [];
  const backFiles: number[] = [];
  for (const s of staging) {
    if (s.action === 'new') {
      newRows.push(s);
      continue;
    }
    if (s.media_file_id === null) continue;
    if (missingBefore.has(s.media_file_id)) backFiles.push(s.media_file_id);
    await repos.scans.updateScannedFile(s.media_file_id, {
      relative_path: s.relative_path,
      size_bytes: s.size_bytes,
      mtime_ms: s.mtime_ms,
      fingerprint: s.fingerprint,
      updated_at: now,
      ...analysisFields(s),
    });
    if (s.action === 'moved') counts.moved++;
    else counts.changed++;
  }
  for (const v of vanished) {
    if (claimed.has(v.id) || v.status === 'missing') continue;
    await repos.mediaFiles.markMissing(v.id, now);
    counts.missing++;
  }
  const placed = await placeNewFiles(repos.scans, rootId, newRows, now, analysisFields);
  counts.new += newRows.length;
  // A film whose file this scan found is owned now: its wish goes in this transaction (MATCHES on the
  // movie as it stands: a TMDb id from the name or NFO, else title + year; enrichment's identification
  // may fulfil more later). A file back from missing makes its film owned again, so it counts too.
  await repos.scans.fulfilWishes(placed.movies, backFiles);
  await syncSidecars(repos, rootId, sidecars, now);
  await repos.scans.deleteStaging(scanId);
  await repos.roots.touchScanned(rootId, now);
  return placed.created;
}

/**
 * Matches new files to existing movies (ids, NFO, title + year) and creates movies for the rest;
 * returns the movies it created and every movie a new file went to.
 */
async function placeNewFiles(
  scans: ScanCommitRepositories['scans'],
  rootId: number,
  rows: StagingRow[],
  now: string,
  analysisFields: (s: StagingRow) => ScannedAnalysis,
): Promise<{ created: number[]; movies: number[] }> {
  if (rows.length === 0) return { created: [], movies: [] };
  const candidates: MatchCandidate[] = (await scans.movieCandidates()).map((m) => ({
    id: m.id,
    tmdbId: m.tmdb_id,
    imdbId: m.imdb_id,
    normalizedTitle: m.normalized_title,
    year: m.year,
  }));
  const unmatched: { parsed: ParsedMovieName; row: StagingRow }[] = [];
  const movieFor = new Map<number, number>();
  for (const row of rows) {
    const parsed = toParsed(row);
    const match = matchMovie(parsed, null, candidates);
    if (match === null) unmatched.push({ parsed, row });
    else movieFor.set(row.id, match.movieId);
  }
  const created: number[] = [];
  for (const group of groupEditions(unmatched)) {
    const title = group.title.trim() === '' ? 'Untitled' : group.title;
    const id = await scans.insertMovie({
      title,
      sort_title: sortTitle(title),
      normalized_title: normalizeTitle(title),
      year: group.year,
      tmdb_id: group.tmdbId,
      imdb_id: group.imdbId,
      created_at: now,
      updated_at: now,
    });
    created.push(id);
    for (const edition of group.editions) for (const f of edition.files) movieFor.set(f.row.id, id);
  }
  for (const row of rows) {
    await scans.insertScannedFile({
      library_root_id: rootId,
      relative_path: row.relative_path,
      size_bytes: row.size_bytes,
      mtime_ms: row.mtime_ms,
      fingerprint: row.fingerprint,
      movie_id: movieFor.get(row.id) ?? null,
      edition_label: row.edition_label,
      created_at: now,
      updated_at: now,
      ...analysisFields(row),
    });
  }
  return { created, movies: [...new Set(movieFor.values())] };
}

/** The parsed name of a staged file, with what its NFO said taking precedence (already merged at staging). */
function toParsed(row: StagingRow): ParsedMovieName {
  const fromPath = parseMoviePath(row.relative_path);
  return {
    ...fromPath,
    title: row.parsed_title ?? fromPath.title,
    year: row.parsed_year,
    tmdbId: row.tmdb_id,
    imdbId: row.imdb_id,
    editionLabel: row.edition_label,
  };
}
