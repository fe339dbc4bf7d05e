import type { RootWithCollection } from '../../src/repositories/library-root.repository.ts';
import type { MediaFileRow } from '../../src/repositories/media-file.repository.ts';
import type {
  KnownFileRow,
  MovieCandidateRow,
  NewScannedFile,
  NewScannedMovie,
  NewStagingRow,
  ScannedFileUpdate,
  StagingRow,
} from '../../src/repositories/scan.repository.ts';
import type {
  NewSubtitleSidecar,
  SidecarFields,
  SubtitleSidecarRow,
} from '../../src/repositories/subtitle-sidecar.repository.ts';
import type { ScanCommitRepositories, ScanDeps } from '../../src/services/scan/scan.service.ts';
import { type Restorable, fakeUnitOfWork } from './unit-of-work.ts';

type MovieRecord = NewScannedMovie & { id: number };

/**
 * The tables a scan reads and writes, in memory: library roots, media files, movies, staging rows
 * and subtitle sidecars. One object plays every repository the scan is handed (ScanDeps' roots,
 * staging and the commit's repositories), so a unit test reads the outcome from its arrays.
 */
export class FakeScanTables implements Restorable {
  roots: RootWithCollection[] = [];
  mediaFiles: MediaFileRow[] = [];
  movies: MovieRecord[] = [];
  staging: StagingRow[] = [];
  sidecars: SubtitleSidecarRow[] = [];
  /** The commits' wish fulfilments, as asked (the wish rule itself is tested on both engines). */
  fulfilled: { movies: number[]; files: number[] }[] = [];
  private nextId = 1;

  save(): () => void {
    const copy = structuredClone({
      roots: this.roots,
      mediaFiles: this.mediaFiles,
      movies: this.movies,
      staging: this.staging,
      sidecars: this.sidecars,
      fulfilled: this.fulfilled,
    });
    return () => Object.assign(this, copy);
  }

  addRoot(path: string): number {
    const id = this.nextId++;
    this.roots.push({
      id,
      path,
      name: path,
      collection_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      last_scan_at: null,
      collection: null,
      file_count: 0,
    });
    return id;
  }

  /** The repositories of ScanDeps, all on these tables. */
  deps(): Pick<ScanDeps, 'roots' | 'staging' | 'commits'> {
    return { roots: this, staging: this, commits: fakeUnitOfWork(this, this.commitRepositories()) };
  }

  commitRepositories(): ScanCommitRepositories & { jobs: { assertHeld(): Promise<void> } } {
    // One process, no other node: the job is always held.
    const jobs = { assertHeld: async () => undefined };
    return { scans: this, mediaFiles: this, roots: this, sidecars: this.sidecarRepository(), jobs };
  }

  // LibraryRootRepository

  async get(id: number): Promise<RootWithCollection | undefined> {
    return this.roots.find((r) => r.id === id);
  }

  async touchScanned(id: number, now: string): Promise<void> {
    const root = this.roots.find((r) => r.id === id);
    if (root !== undefined) root.last_scan_at = now;
  }

  // ScanRepository

  async knownFiles(rootId: number): Promise<KnownFileRow[]> {
    return this.mediaFiles
      .filter((f) => f.library_root_id === rootId)
      .map((f) => ({
        id: f.id,
        relative_path: f.relative_path,
        size_bytes: f.size_bytes,
        mtime_ms: f.mtime_ms,
        fingerprint: f.fingerprint,
        status: f.status,
        analysis_status: f.analysis_status,
      }));
  }

  async insertStaging(rows: NewStagingRow[]): Promise<void> {
    for (const row of rows) {
      this.staging.push({
        id: this.nextId++,
        ...row,
        fingerprint: row.fingerprint ?? null,
        parsed_title: row.parsed_title ?? null,
        parsed_year: row.parsed_year ?? null,
        tmdb_id: row.tmdb_id ?? null,
        imdb_id: row.imdb_id ?? null,
        edition_label: row.edition_label ?? null,
        capabilities_json: row.capabilities_json ?? null,
        analysis_error: row.analysis_error ?? null,
        media_file_id: row.media_file_id ?? null,
        match_movie_id: row.match_movie_id ?? null,
      });
    }
  }

  async stagingOf(scanId: number): Promise<StagingRow[]> {
    return this.staging
      .filter((s) => s.scan_id === scanId)
      .sort((a, b) => (a.relative_path < b.relative_path ? -1 : a.relative_path > b.relative_path ? 1 : 0));
  }

  async deleteStaging(scanId: number): Promise<void> {
    this.staging = this.staging.filter((s) => s.scan_id !== scanId);
  }

  async movieCandidates(): Promise<MovieCandidateRow[]> {
    return this.movies.map((m) => ({
      id: m.id,
      tmdb_id: m.tmdb_id,
      imdb_id: m.imdb_id,
      normalized_title: m.normalized_title,
      year: m.year,
    }));
  }

  async updateScannedFile(id: number, values: ScannedFileUpdate): Promise<void> {
    const file = this.mediaFiles.find((f) => f.id === id);
    if (file !== undefined) Object.assign(file, values, { status: 'present', missing_since: null });
  }

  async insertScannedFile(row: NewScannedFile): Promise<void> {
    this.mediaFiles.push({
      id: this.nextId++,
      edition_id: null,
      analysis_status: 'not_analyzed',
      capabilities_json: null,
      analysis_error: null,
      analyzed_size_bytes: null,
      analyzed_fingerprint: null,
      analyzed_at: null,
      missing_since: null,
      ...row,
      status: 'present',
    });
  }

  async insertMovie(row: NewScannedMovie): Promise<number> {
    const id = this.nextId++;
    this.movies.push({ id, ...row });
    return id;
  }

  async fulfilWishes(movieIds: readonly number[], fileIds: readonly number[]): Promise<number> {
    this.fulfilled.push({ movies: [...movieIds].sort((a, b) => a - b), files: [...fileIds] });
    return 0;
  }

  // MediaFileRepository

  async markMissing(id: number, now: string): Promise<void> {
    const file = this.mediaFiles.find((f) => f.id === id && f.status !== 'missing');
    if (file !== undefined) Object.assign(file, { status: 'missing', missing_since: now, updated_at: now });
  }

  // SubtitleSidecarRepository

  private sidecarRepository(): ScanCommitRepositories['sidecars'] {
    return {
      ofRoot: async (rootId) => {
        const files = new Set(this.mediaFiles.filter((f) => f.library_root_id === rootId).map((f) => f.id));
        return this.sidecars.filter((s) => files.has(s.media_file_id));
      },
      insert: async (rows: NewSubtitleSidecar[]) => {
        for (const row of rows) {
          this.sidecars.push({
            forced: 0,
            default: 0,
            sdh: 0,
            language: null,
            title: null,
            ...row,
            id: this.nextId++,
          });
        }
      },
      update: async (id: number, fields: SidecarFields, now: string) => {
        const row = this.sidecars.find((s) => s.id === id);
        if (row !== undefined) Object.assign(row, fields, { updated_at: now });
      },
      delete: async (ids: number[]) => {
        const gone = new Set(ids);
        this.sidecars = this.sidecars.filter((s) => !gone.has(s.id));
      },
    };
  }
}
