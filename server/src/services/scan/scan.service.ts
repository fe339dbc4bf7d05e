import type { ScanCounts, ScanReport } from '@reelshelf/contract';
import { cpus } from 'node:os';
import PQueue from 'p-queue';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { WalkedFile, walkDirectory } from '../../adapters/directory-walker.ts';
import type { FileSystemAdapter } from '../../adapters/file-system.ts';
import { type ParsedMovieName, parseMoviePath, parseMoviePaths } from '../../domain/scan/parse-name.ts';
import { extraKind, isIgnoreMarker, isSkippedEntryName, isVideoFile } from '../../domain/scan/video-files.ts';
import { type SidecarVideo, isSubtitleFile } from '../../domain/subtitles/sidecar-name.ts';
import { notFound } from '../../errors.ts';
import {
  JobCancelledError,
  type JobContext,
  JobLeaseLostError,
  type JobRunner,
} from '../../jobs/job-runner.ts';
import type { JobRepository, JobRow } from '../../repositories/job.repository.ts';
import type { LibraryRootRepository } from '../../repositories/library-root.repository.ts';
import type { KnownFileRow, NewStagingRow } from '../../repositories/scan.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { NewMovieMetadata } from '../metadata/new-movie-metadata.ts';
import { type ScanCommitRepositories, type ScanStaging, commitScan } from './scan-commit.ts';
import { EMPTY_COUNTS, type ScanPayload, type ScanResult, toReport } from './scan-report.ts';
import { foundSidecars } from './scan-sidecars.ts';
import { FileStager, type MediaProbe, type TextReader } from './scan-stager.ts';

export type { TextReader } from './scan-stager.ts';
export type { ScanCommitRepositories, ScanStaging } from './scan-commit.ts';

/** What a scan needs of the job runner: its own kind registered, and its jobs read, awaited, cancelled. */
export type ScanJobs = Pick<JobRunner, 'register' | 'enqueue' | 'get' | 'wait' | 'cancel'>;

export interface ScanDeps {
  /** The library roots a scan walks. */
  roots: Pick<LibraryRootRepository, 'get'>;
  /** The known files of a root and the scan's staging rows. */
  staging: ScanStaging;
  /**
   * The commit's repositories, on one transaction, with the scan's job row: the commit lands only
   * while this run still holds the job (docs/cluster.md "Fencing").
   */
  commits: UnitOfWork<ScanCommitRepositories & { jobs: Pick<JobRepository, 'assertHeld'> }>;
  jobs: ScanJobs;
  fs: Pick<FileSystemAdapter, 'stat'>;
  /** Walks a root (adapters/directory-walker.ts). */
  walk: typeof walkDirectory;
  /** The library path rule: the walk applies it, and each file is checked again before it is read. */
  paths: Pick<MediaPathService, 'rule' | 'resolveInsideRoot'>;
  analysis: MediaProbe;
  clock: Clock;
  fingerprint(path: string): Promise<string>;
  text: TextReader;
  /** Movies the scan created are enriched, then get artwork, in the background. */
  newMovies?: Pick<NewMovieMetadata, 'queue'>;
  /**
   * Test seam (production passes none): awaited after each write of staged rows, with how many files
   * are in the staging table so far and the scan's abort signal. A test holds the scan here to kill or
   * cancel it at a known state, whatever the speed of the machine; it must resolve once `signal` aborts.
   */
  afterStagingWrite?(stagedFiles: number, signal: AbortSignal): Promise<void>;
  /** Called once a scan has committed (what it analysed gets seek thumbnails queued). */
  afterScan?(): void;
}

const MAX_ERRORS = 200;

/** A scan that cannot go on; the live tables are left as they were. */
class ScanFailure extends Error {
  override name = 'ScanFailure';
}

function isUnchanged(known: KnownFileRow, size: number, mtime: number): boolean {
  return (
    known.status === 'present' &&
    known.size_bytes === size &&
    known.mtime_ms === mtime &&
    known.analysis_status !== 'not_analyzed'
  );
}

/**
 * Library scans: walk → fingerprint → analyse → stage (scan-stager.ts), then one transaction commits
 * new, changed, moved and missing files and matches or creates movies (scan-commit.ts). A file whose
 * (path, size, mtime) did not change is neither hashed nor probed again.
 */
export class ScanService {
  private readonly stager: FileStager;

  constructor(private readonly deps: ScanDeps) {
    this.stager = new FileStager(deps);
    deps.jobs.register<ScanPayload>('scan', {
      concurrency: 1,
      run: (ctx) => this.run(ctx),
      recover: (job) => this.recover(job),
    });
  }

  /** Starts a scan of a root, or joins the one already running for it. */
  async start(rootId: number): Promise<{ scan_id: number; created: boolean }> {
    const root = await this.deps.roots.get(rootId);
    if (root === undefined) throw notFound('library root', rootId);
    const { id, created } = await this.deps.jobs.enqueue<ScanPayload>('scan', { rootId }, `root:${rootId}`);
    return { scan_id: id, created };
  }

  async report(scanId: number): Promise<ScanReport> {
    const job = await this.deps.jobs.get(scanId);
    if (job === undefined || job.kind !== 'scan') throw notFound('scan', scanId);
    return toReport(job);
  }

  async wait(scanId: number): Promise<ScanReport> {
    await this.deps.jobs.wait(scanId);
    return this.report(scanId);
  }

  /** Asks a running scan to stop; 404 for an id that is not a scan (another kind of job is not ours). */
  async cancel(scanId: number): Promise<boolean> {
    const job = await this.deps.jobs.get(scanId);
    if (job === undefined || job.kind !== 'scan') throw notFound('scan', scanId);
    return this.deps.jobs.cancel(scanId);
  }

  private async recover(job: JobRow): Promise<void> {
    // Staged rows of a scan that never committed are dropped; the live tables were never touched.
    await this.deps.staging.deleteStaging(job.id);
  }

  private async run(ctx: JobContext<ScanPayload>): Promise<ScanResult> {
    try {
      return await this.scanRoot(ctx);
    } catch (err) {
      // A cancelled or failed scan leaves nothing behind: its staged rows go, the live tables were never
      // touched. Not when another node took the job over: the staged rows under its id are the successor's.
      if (!(ctx.signal.reason instanceof JobLeaseLostError || err instanceof JobLeaseLostError)) {
        await this.deps.staging.deleteStaging(ctx.jobId);
      }
      throw err;
    }
  }

  private async scanRoot(ctx: JobContext<ScanPayload>): Promise<ScanResult> {
    const { clock } = this.deps;
    const root = await this.deps.roots.get(ctx.payload.rootId);
    if (root === undefined) throw new ScanFailure(`library root ${ctx.payload.rootId} no longer exists`);
    const rootStat = await this.deps.fs.stat(root.path);
    if (rootStat === null || !rootStat.isDirectory) {
      throw new ScanFailure(
        `library root unreachable: ${root.path} is not a readable folder (is the disk mounted?)`,
      );
    }
    const counts: ScanCounts = { ...EMPTY_COUNTS };
    const errors: { path: string; error: string }[] = [];
    const addError = (path: string, error: string) => {
      counts.errors++;
      if (errors.length < MAX_ERRORS) errors.push({ path, error });
    };

    // Videos (extras too: they own the subtitles named after them) and subtitle files; the scan's own
    // files are the videos that are not extras.
    const walk = await this.deps.walk(root.path, {
      keepFile: (_rel, name) => isVideoFile(name) || isSubtitleFile(name),
      skipEntry: isSkippedEntryName,
      isIgnoreMarker,
      links: this.deps.paths.rule,
      signal: ctx.signal,
    });
    for (const p of walk.problems) addError(p.path, p.error);
    this.throwIfCancelled(ctx);
    const files: WalkedFile[] = [];
    const videos: SidecarVideo[] = [];
    const subtitles: WalkedFile[] = [];
    for (const file of walk.files) {
      if (!isVideoFile(file.relativePath)) {
        subtitles.push(file);
        continue;
      }
      const extra = extraKind(file.relativePath) !== null;
      videos.push({ relativePath: file.relativePath, extra });
      if (!extra) files.push(file);
    }
    // Read from names and the walk's stats only: a subtitle file is opened when it is served, not here.
    const sidecars = foundSidecars(videos, subtitles);

    const scanRepo = this.deps.staging;
    const known = await scanRepo.knownFiles(root.id);
    const knownByPath = new Map(known.map((k) => [k.relative_path, k]));
    if (files.length === 0 && walk.problems.some((p) => p.path === '.')) {
      throw new ScanFailure(`library root unreachable: ${root.path} could not be read`);
    }
    if (files.length === 0 && known.some((k) => k.status === 'present')) {
      throw new ScanFailure(
        `library root ${root.path} holds no video files but ${known.length} were known: is the disk mounted? Nothing was marked missing.`,
      );
    }
    const foundPaths = new Set(files.map((f) => f.relativePath));
    const vanished = known.filter((k) => !foundPaths.has(k.relative_path));
    const vanishedByFingerprint = new Map<string, KnownFileRow>();
    for (const v of vanished) if (v.fingerprint !== null) vanishedByFingerprint.set(v.fingerprint, v);
    const claimed = new Set<number>();

    counts.found = files.length;
    const total = files.length;
    let done = 0;
    ctx.progress(0, total);
    const staged: NewStagingRow[] = [];
    const queue = new PQueue({ concurrency: Math.max(1, cpus().length) });
    let stagedFiles = 0;
    const writeStaged = async () => {
      const rows = staged.splice(0, staged.length);
      await scanRepo.insertStaging(rows);
      stagedFiles += rows.length;
      await this.deps.afterStagingWrite?.(stagedFiles, ctx.signal);
    };

    // Names are read per folder (whether a folder's files are versions of one film depends on all of
    // them), once, and only when a new file needs its name: an unchanged rescan reads none.
    let namesByPath: Map<string, ParsedMovieName> | null = null;
    const staging = {
      scanId: ctx.jobId,
      rootId: root.id,
      rootPath: root.path,
      vanishedByFingerprint,
      claimed,
      now: isoNow(clock),
      signal: ctx.signal,
      nameOf: (relativePath: string): ParsedMovieName =>
        (namesByPath ??= parseMoviePaths(files.map((f) => f.relativePath))).get(relativePath) ??
        parseMoviePath(relativePath),
    };

    for (const file of files) {
      const existing = knownByPath.get(file.relativePath);
      if (existing !== undefined && isUnchanged(existing, file.sizeBytes, file.mtimeMs)) {
        counts.unchanged++;
        done++;
        continue;
      }
      queue.add(async () => {
        if (ctx.signal.aborted) return;
        try {
          staged.push(await this.stager.stage(staging, file, existing));
          if (staged.length >= 25) await writeStaged();
        } catch (err) {
          addError(file.relativePath, err instanceof Error ? err.message : String(err));
        } finally {
          done++;
          ctx.progress(done, total);
        }
      });
    }
    ctx.progress(done, total);
    await queue.onIdle();
    this.throwIfCancelled(ctx);
    await writeStaged();
    this.throwIfCancelled(ctx);
    await ctx.report({ root_id: root.id, counts, errors });

    const now = isoNow(clock);
    const missingBefore = new Set(known.filter((k) => k.status === 'missing').map((k) => k.id));
    const outcome = { scanId: ctx.jobId, rootId: root.id, vanished, claimed, sidecars, missingBefore };
    const fence = { id: ctx.jobId, epoch: ctx.epoch };
    const created = await this.deps.commits.transaction(async (repos) => {
      await repos.jobs.assertHeld(fence);
      return commitScan(repos, outcome, counts, now);
    });
    ctx.progress(total, total);
    this.deps.afterScan?.();
    if (created.length > 0) {
      // A scanned movie may have a poster beside its files: artwork is fetched even with no enrichment.
      void this.deps.newMovies?.queue(created, { artworkWithoutEnrichment: true }).catch(() => undefined);
    }
    return { root_id: root.id, counts, errors };
  }

  private throwIfCancelled(ctx: JobContext<ScanPayload>): void {
    if (ctx.signal.aborted) throw new JobCancelledError('scan cancelled');
  }
}
