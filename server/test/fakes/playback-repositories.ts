/**
 * In-memory implementations of the ports the playback services take in place of their
 * repositories and job runner, for unit tests without SQLite. Each keeps the behaviour the real
 * one has that the services rely on (ordering, upsert, one job per dedupe key), and nothing more.
 */
import type { JobContext, JobKind } from '../../src/jobs/job-runner.ts';
import type { ArtifactRow } from '../../src/repositories/artifact.repository.ts';
import type { JobRow } from '../../src/repositories/job.repository.ts';
import type { KeyframeIndexRow } from '../../src/repositories/keyframe-index.repository.ts';
import type { LibraryFileRow } from '../../src/repositories/library.repository.ts';
import type { MediaFileRow } from '../../src/repositories/media-file.repository.ts';
import type { SubtitleSidecarRow } from '../../src/repositories/subtitle-sidecar.repository.ts';
import type {
  ArtifactJobs,
  ArtifactRecords,
  MediaFileLookup,
} from '../../src/services/playback/artifact.service.ts';
import type { KeyframeIndexRecords } from '../../src/services/playback/keyframe-index.service.ts';

/** The artifacts table (ArtifactRepository). */
export class InMemoryArtifactRecords implements ArtifactRecords {
  readonly rows = new Map<string, ArtifactRow>();
  private nextId = 1;

  async getByKey(key: string) {
    const row = this.rows.get(key);
    return row === undefined ? undefined : { ...row };
  }

  async getByJob(jobId: number) {
    const row = [...this.rows.values()].find((r) => r.job_id === jobId);
    return row === undefined ? undefined : { ...row };
  }

  async upsertBuilding(row: Parameters<ArtifactRecords['upsertBuilding']>[0]) {
    const { now, ...rest } = row;
    const old = this.rows.get(row.artifact_key);
    this.rows.set(row.artifact_key, {
      id: old?.id ?? this.nextId++,
      ...rest,
      status: 'building',
      size_bytes: 0,
      error: null,
      created_at: old?.created_at ?? now,
      completed_at: null,
      last_used_at: now,
    });
  }

  async setJob(key: string, jobId: number) {
    const row = this.rows.get(key);
    if (row !== undefined) row.job_id = jobId;
  }

  async finish(
    key: string,
    status: 'ready' | 'failed' | 'cancelled',
    fields: { size_bytes?: number; error?: string | null; now: string },
  ) {
    const row = this.rows.get(key);
    if (row === undefined) return;
    row.status = status;
    if (fields.size_bytes !== undefined) row.size_bytes = fields.size_bytes;
    row.error = fields.error ?? null;
    row.completed_at = fields.now;
  }

  async touch(key: string, now: string) {
    const row = this.rows.get(key);
    if (row !== undefined) row.last_used_at = now;
  }

  /** Ready rows, least recently streamed first (then by id), as the SQL orders them. */
  async readyByAge() {
    return [...this.rows.values()]
      .filter((r) => r.status === 'ready')
      .sort((a, b) =>
        a.last_used_at < b.last_used_at ? -1 : a.last_used_at > b.last_used_at ? 1 : a.id - b.id,
      )
      .map((r) => ({ ...r }));
  }

  async allKeys() {
    return [...this.rows.keys()];
  }

  async delete(key: string) {
    this.rows.delete(key);
  }
}

/** Media files with their root and analysis, as LibraryRepository.file and MediaFileRepository read them. */
export class InMemoryMediaFiles implements MediaFileLookup {
  readonly files = new Map<number, LibraryFileRow>();

  add(
    row: Partial<LibraryFileRow> & Pick<LibraryFileRow, 'id' | 'root_path' | 'relative_path'>,
  ): LibraryFileRow {
    const full: LibraryFileRow = {
      movie_id: null,
      edition_id: null,
      size_bytes: 1_000_000,
      fingerprint: `fp-${row.id}`,
      edition_label: null,
      status: 'present',
      analysis_status: 'analyzed',
      capabilities_json: null,
      analysis_error: null,
      analyzed_size_bytes: null,
      analyzed_fingerprint: null,
      position_seconds: null,
      watched: null,
      sidecars_json: '[]',
      ...row,
    };
    this.files.set(row.id, full);
    return full;
  }

  async file(id: number) {
    return this.files.get(id);
  }

  /** MediaFileRepository.getWithRoot: the media_files columns the services read, and the root. */
  async getWithRoot(id: number): Promise<(MediaFileRow & { root_path: string }) | undefined> {
    const f = this.files.get(id);
    if (f === undefined) return undefined;
    return {
      ...(this.mediaRow(f) as MediaFileRow),
      root_path: f.root_path,
    };
  }

  async getById(id: number): Promise<MediaFileRow | undefined> {
    const f = this.files.get(id);
    return f === undefined ? undefined : (this.mediaRow(f) as MediaFileRow);
  }

  private mediaRow(f: LibraryFileRow): Partial<MediaFileRow> {
    return {
      id: f.id,
      relative_path: f.relative_path,
      size_bytes: f.size_bytes,
      fingerprint: f.fingerprint,
      status: f.status,
      analysis_status: f.analysis_status,
      capabilities_json: f.capabilities_json,
    };
  }
}

/** The keyframe_indexes table. */
export class InMemoryKeyframeIndexes implements KeyframeIndexRecords {
  readonly rows = new Map<number, KeyframeIndexRow>();
  async get(mediaFileId: number) {
    return this.rows.get(mediaFileId);
  }
  async put(row: KeyframeIndexRow) {
    this.rows.set(row.media_file_id, { ...row });
  }
}

/** The subtitle_sidecars table, read side. */
export class InMemorySidecars {
  readonly rows: SubtitleSidecarRow[] = [];
  async ofFile(mediaFileId: number) {
    return this.rows.filter((r) => r.media_file_id === mediaFileId);
  }
}

/**
 * The job runner, in memory: a job starts right after `enqueue` returns (no per-kind queue), a
 * dedupe key joins the active job, cancel aborts with a JobCancelledError-named reason.
 */
export class InMemoryJobs implements ArtifactJobs {
  private readonly kinds = new Map<string, JobKind<never>>();
  private readonly rows = new Map<number, JobRow>();
  private readonly active = new Map<
    number,
    { controller: AbortController; done: Promise<void>; key: string | null }
  >();
  private nextId = 1;

  register<P>(name: string, kind: JobKind<P>): void {
    this.kinds.set(name, kind as JobKind<never>);
  }

  async enqueue<P>(name: string, payload: P, dedupeKey: string | null = null) {
    const kind = this.kinds.get(name) as JobKind<P> | undefined;
    if (kind === undefined) throw new Error(`unknown job kind ${name}`);
    for (const [id, a] of this.active)
      if (dedupeKey !== null && a.key === dedupeKey) return { id, created: false };
    const id = this.nextId++;
    const now = new Date().toISOString();
    const row: JobRow = {
      id,
      kind: name,
      dedupe_key: dedupeKey,
      status: 'running',
      payload_json: JSON.stringify(payload),
      progress_done: 0,
      progress_total: 0,
      result_json: null,
      error: null,
      created_at: now,
      started_at: now,
      finished_at: null,
      owner_node: null,
      lease_until: null,
      epoch: 1,
      cancel_requested: 0,
      attempts: 1,
    };
    this.rows.set(id, row);
    const controller = new AbortController();
    const ctx: JobContext<P> = {
      jobId: id,
      epoch: 1,
      payload,
      signal: controller.signal,
      progress: (done, total) => {
        row.progress_done = Math.min(Math.max(0, done), total);
        row.progress_total = total;
      },
      report: async () => undefined,
    };
    const done = (async () => {
      await Promise.resolve(); // started after enqueue returns, as the real runner's queue does
      try {
        await kind.run(ctx);
        row.status = 'succeeded';
      } catch (err) {
        row.status = controller.signal.aborted ? 'cancelled' : 'failed';
        row.error = err instanceof Error ? err.message : String(err);
      } finally {
        row.finished_at = new Date().toISOString();
        this.active.delete(id);
      }
    })();
    this.active.set(id, { controller, done, key: dedupeKey });
    return { id, created: true };
  }

  isActive(id: number): boolean {
    return this.active.has(id);
  }

  async get(id: number) {
    const row = this.rows.get(id);
    return row === undefined ? undefined : { ...row };
  }

  async cancel(id: number): Promise<boolean> {
    const a = this.active.get(id);
    if (a === undefined) return false;
    const reason = new Error('cancelled');
    reason.name = 'JobCancelledError';
    a.controller.abort(reason);
    return true;
  }

  async wait(id: number) {
    await this.active.get(id)?.done;
    return this.get(id);
  }

  /** Resolves when every job has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  /**
   * The job's row says running again, though no node here runs it: what another node's build looks
   * like between its handler's end and its runner's write of the end (its clean-up, a slow commit).
   */
  rowStillRunning(id: number): void {
    const row = this.rows.get(id);
    if (row === undefined) throw new Error(`no job ${id}`);
    row.status = 'running';
    row.finished_at = null;
  }
}
