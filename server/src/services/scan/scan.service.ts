import type { ScanCounts, ScanReport } from '@reelshelf/contract';
import { cpus } from 'node:os';
import PQueue from 'p-queue';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { type WalkedFile, walkDirectory } from '../../adapters/directory-walker.ts';
import type { FileSystemAdapter } from '../../adapters/file-system.ts';
import type { Db } from '../../db/database.ts';
import { type MatchCandidate, groupEditions, matchMovie } from '../../domain/scan/match.ts';
import {
  type NfoInfo,
  type ParsedMovieName,
  nfoPathsFor,
  parseMoviePath,
  parseMoviePaths,
  parseNfo,
} from '../../domain/scan/parse-name.ts';
import { extraKind, isIgnoreMarker, isSkippedEntryName, isVideoFile } from '../../domain/scan/video-files.ts';
import { type SidecarVideo, isSubtitleFile, matchSidecars } from '../../domain/subtitles/sidecar-name.ts';
import { normalizeTitle, sortTitle } from '../../domain/titles.ts';
import { notFound } from '../../errors.ts';
import { JobCancelledError, type JobContext, type JobRunner } from '../../jobs/job-runner.ts';
import type { JobRow } from '../../repositories/job.repository.ts';
import { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import { LibraryRootRepository } from '../../repositories/library-root.repository.ts';
import {
  type KnownFileRow,
  type NewStagingRow,
  ScanRepository,
  type StagingRow,
} from '../../repositories/scan.repository.ts';
import {
  type NewSubtitleSidecar,
  type SidecarFields,
  SubtitleSidecarRepository,
} from '../../repositories/subtitle-sidecar.repository.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { AnalysisService } from './analysis.service.ts';

interface ScanPayload {
  rootId: number;
}

interface ScanResult {
  root_id: number;
  counts: ScanCounts;
  errors: { path: string; error: string }[];
}

/** Reads small text files beside the media (NFO); null when absent or unreadable. */
export interface TextReader {
  read(path: string, maxBytes: number): Promise<string | null>;
}

export interface ScanDeps {
  db: Db;
  jobs: JobRunner;
  fs: FileSystemAdapter;
  /** The library path rule: the walk applies it, and each file is checked again before it is read. */
  paths: MediaPathService;
  analysis: AnalysisService;
  clock: Clock;
  fingerprint(path: string): Promise<string>;
  text: TextReader;
  /** Called after a commit with the ids of movies the scan created (enrichment hooks in here). */
  onMoviesCreated?(movieIds: number[]): void;
  /**
   * Test seam (production passes none): awaited after each write of staged rows, with how many files
   * are in the staging table so far and the scan's abort signal. A test holds the scan here to kill or
   * cancel it at a known state, whatever the speed of the machine; it must resolve once `signal` aborts.
   */
  afterStagingWrite?(stagedFiles: number, signal: AbortSignal): Promise<void>;
}

const EMPTY_COUNTS: ScanCounts = {
  found: 0,
  new: 0,
  changed: 0,
  moved: 0,
  unchanged: 0,
  missing: 0,
  errors: 0,
};
const MAX_ERRORS = 200;

/** A subtitle file the walk found beside a video, as it is to be recorded. */
interface FoundSidecar {
  videoPath: string;
  relativePath: string;
  fields: SidecarFields;
}

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
 * Library scans: walk → fingerprint → analyse → stage, then one transaction commits new, changed,
 * moved and missing files and matches or creates movies. A file whose (path, size, mtime) did not
 * change is neither hashed nor probed again.
 */
export class ScanService {
  constructor(private readonly deps: ScanDeps) {
    deps.jobs.register<ScanPayload>('scan', {
      concurrency: 1,
      run: (ctx) => this.run(ctx),
      recover: (job) => this.recover(job),
    });
  }

  /** Starts a scan of a root, or joins the one already running for it. */
  async start(rootId: number): Promise<{ scan_id: number; created: boolean }> {
    const root = await new LibraryRootRepository(this.deps.db).get(rootId);
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
    await new ScanRepository(this.deps.db).deleteStaging(job.id);
  }

  private async run(ctx: JobContext<ScanPayload>): Promise<ScanResult> {
    try {
      return await this.scanRoot(ctx);
    } catch (err) {
      // A cancelled or failed scan leaves nothing behind: its staged rows go, the live tables were never touched.
      await new ScanRepository(this.deps.db).deleteStaging(ctx.jobId);
      throw err;
    }
  }

  private async scanRoot(ctx: JobContext<ScanPayload>): Promise<ScanResult> {
    const { db, clock } = this.deps;
    const root = await new LibraryRootRepository(db).get(ctx.payload.rootId);
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
    const walk = await walkDirectory(root.path, {
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

    const scanRepo = new ScanRepository(db);
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
    const now = isoNow(clock);
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
    const nameOf = (relativePath: string): ParsedMovieName =>
      (namesByPath ??= parseMoviePaths(files.map((f) => f.relativePath))).get(relativePath) ??
      parseMoviePath(relativePath);

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
          const row = await this.stageFile(
            ctx.jobId,
            root.id,
            root.path,
            file,
            existing,
            vanishedByFingerprint,
            claimed,
            now,
            ctx.signal,
            nameOf,
          );
          staged.push(row);
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

    const created = await this.commit(ctx.jobId, root.id, vanished, claimed, counts, sidecars);
    ctx.progress(total, total);
    if (created.length > 0) this.deps.onMoviesCreated?.(created);
    return { root_id: root.id, counts, errors };
  }

  private throwIfCancelled(ctx: JobContext<ScanPayload>): void {
    if (ctx.signal.aborted) throw new JobCancelledError('scan cancelled');
  }

  /** Fingerprints, parses and (when needed) probes one new or changed file into a staging row. */
  private async stageFile(
    scanId: number,
    rootId: number,
    rootPath: string,
    file: { relativePath: string; absolutePath: string; sizeBytes: number; mtimeMs: number },
    existing: KnownFileRow | undefined,
    vanishedByFingerprint: Map<string, KnownFileRow>,
    claimed: Set<number>,
    now: string,
    signal: AbortSignal,
    nameOf: (relativePath: string) => ParsedMovieName,
  ): Promise<NewStagingRow> {
    // Hashed and probed at the real path the rule approves now (as a stream will be), not the walk's.
    const realPath = await this.deps.paths.resolveInsideRoot(rootPath, file.relativePath);
    const fingerprint = await this.deps.fingerprint(realPath);
    const base = {
      scan_id: scanId,
      library_root_id: rootId,
      relative_path: file.relativePath,
      size_bytes: file.sizeBytes,
      mtime_ms: file.mtimeMs,
      fingerprint,
      created_at: now,
    };
    const noParse = {
      parsed_title: null,
      parsed_year: null,
      tmdb_id: null,
      imdb_id: null,
      edition_label: null,
      match_movie_id: null,
    };
    if (existing !== undefined) {
      // Same path, new size/mtime (or back from missing): same identity, re-analysed only if the content changed.
      const sameContent = existing.fingerprint === fingerprint && existing.analysis_status !== 'not_analyzed';
      const analysis = sameContent ? null : await this.analyse(realPath, file.sizeBytes, signal);
      return {
        ...base,
        ...noParse,
        action: 'changed',
        media_file_id: existing.id,
        analysis_status: analysis?.status ?? 'keep',
        capabilities_json: analysis?.capabilities ?? null,
        analysis_error: analysis?.error ?? null,
      };
    }
    const moved = vanishedByFingerprint.get(fingerprint);
    if (moved !== undefined && !claimed.has(moved.id)) {
      claimed.add(moved.id);
      const keep = moved.analysis_status !== 'not_analyzed';
      const analysis = keep ? null : await this.analyse(realPath, file.sizeBytes, signal);
      return {
        ...base,
        ...noParse,
        action: 'moved',
        media_file_id: moved.id,
        analysis_status: analysis?.status ?? 'keep',
        capabilities_json: analysis?.capabilities ?? null,
        analysis_error: analysis?.error ?? null,
      };
    }
    const parsed = nameOf(file.relativePath);
    const nfo = await this.readNfo(rootPath, file.relativePath);
    const analysis = await this.analyse(realPath, file.sizeBytes, signal);
    return {
      ...base,
      action: 'new',
      media_file_id: null,
      match_movie_id: null,
      parsed_title: nfo?.title ?? (parsed.title === '' ? null : parsed.title),
      parsed_year: nfo?.year ?? parsed.year,
      tmdb_id: nfo?.tmdbId ?? parsed.tmdbId,
      imdb_id: nfo?.imdbId ?? parsed.imdbId,
      edition_label: parsed.editionLabel,
      analysis_status: analysis?.status ?? 'not_analyzed',
      capabilities_json: analysis?.capabilities ?? null,
      analysis_error: analysis?.error ?? null,
    };
  }

  private async analyse(
    path: string,
    size: number,
    signal: AbortSignal,
  ): Promise<{ status: string; capabilities: string | null; error: string | null } | null> {
    if (!this.deps.analysis.available) return null;
    const result = await this.deps.analysis.probe(path, size, signal);
    return {
      status: result.status,
      capabilities: result.capabilities === null ? null : JSON.stringify(result.capabilities),
      error: result.error,
    };
  }

  private async readNfo(rootPath: string, relativePath: string): Promise<NfoInfo | null> {
    for (const candidate of nfoPathsFor(relativePath)) {
      // Read only where the library path rule allows (never the data dir), like the film itself.
      const real = await this.deps.paths.resolveInsideRoot(rootPath, candidate).catch(() => null);
      if (real === null) continue;
      const text = await this.deps.text.read(real, 1024 * 1024);
      if (text === null) continue;
      const parsed = parseNfo(text);
      if (parsed !== null) return parsed;
    }
    return null;
  }

  /**
   * One transaction: the staged rows become live, vanished files are marked missing, and the subtitle
   * files found beside the videos replace the recorded ones.
   */
  private async commit(
    scanId: number,
    rootId: number,
    vanished: KnownFileRow[],
    claimed: Set<number>,
    counts: ScanCounts,
    sidecars: FoundSidecar[],
  ): Promise<number[]> {
    const now = isoNow(this.deps.clock);
    return this.deps.db.transaction().execute(async (trx) => {
      const scanRepo = new ScanRepository(trx);
      const media = new MediaFileRepository(trx);
      const staging = await scanRepo.stagingOf(scanId);
      const analysisFields = (s: StagingRow) =>
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
      for (const s of staging) {
        if (s.action === 'new') {
          newRows.push(s);
          continue;
        }
        if (s.media_file_id === null) continue;
        await trx
          .updateTable('media_files')
          .set({
            relative_path: s.relative_path,
            size_bytes: s.size_bytes,
            mtime_ms: s.mtime_ms,
            fingerprint: s.fingerprint,
            status: 'present',
            missing_since: null,
            updated_at: now,
            ...analysisFields(s),
          })
          .where('id', '=', s.media_file_id)
          .execute();
        if (s.action === 'moved') counts.moved++;
        else counts.changed++;
      }
      for (const v of vanished) {
        if (claimed.has(v.id) || v.status === 'missing') continue;
        await media.markMissing(v.id, now);
        counts.missing++;
      }
      const createdMovies = await this.placeNewFiles(trx, rootId, newRows, now, analysisFields);
      counts.new += newRows.length;
      await syncSidecars(trx, rootId, sidecars, now);
      await scanRepo.deleteStaging(scanId);
      await new LibraryRootRepository(trx).touchScanned(rootId, now);
      return createdMovies;
    });
  }

  /** Matches new files to existing movies (ids, NFO, title + year) and creates movies for the rest. */
  private async placeNewFiles(
    trx: Db,
    rootId: number,
    rows: StagingRow[],
    now: string,
    analysisFields: (s: StagingRow) => Record<string, unknown>,
  ): Promise<number[]> {
    if (rows.length === 0) return [];
    const candidates: MatchCandidate[] = (await new ScanRepository(trx).movieCandidates()).map((m) => ({
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
      const res = await trx
        .insertInto('movies')
        .values({
          title,
          sort_title: sortTitle(title),
          normalized_title: normalizeTitle(title),
          original_title: null,
          year: group.year,
          overview: null,
          runtime_minutes: null,
          tmdb_id: group.tmdbId,
          imdb_id: group.imdbId,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      created.push(res.id);
      for (const edition of group.editions) for (const f of edition.files) movieFor.set(f.row.id, res.id);
    }
    for (const row of rows) {
      await trx
        .insertInto('media_files')
        .values({
          library_root_id: rootId,
          relative_path: row.relative_path,
          size_bytes: row.size_bytes,
          mtime_ms: row.mtime_ms,
          fingerprint: row.fingerprint,
          movie_id: movieFor.get(row.id) ?? null,
          edition_label: row.edition_label,
          status: 'present',
          created_at: now,
          updated_at: now,
          ...analysisFields(row),
        })
        .execute();
    }
    return created;
  }
}

/**
 * The subtitle files to record, each with its video, read from the names and the walk's stats. A
 * VobSub track is its `.idx`; its size and mtime cover its `.sub` too, so a change of either is seen.
 */
function foundSidecars(videos: SidecarVideo[], subtitles: WalkedFile[]): FoundSidecar[] {
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
async function syncSidecars(trx: Db, rootId: number, found: FoundSidecar[], now: string): Promise<void> {
  const repo = new SubtitleSidecarRepository(trx);
  const recorded = await repo.ofRoot(rootId);
  if (found.length === 0 && recorded.length === 0) return;
  const fileIds = new Map(
    (await new ScanRepository(trx).knownFiles(rootId)).map((f) => [f.relative_path, f.id]),
  );
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

function parseResult(json: string | null): Partial<ScanResult> {
  if (json === null) return {};
  try {
    return JSON.parse(json) as Partial<ScanResult>;
  } catch {
    return {};
  }
}

function toReport(job: JobRow): ScanReport {
  const result = parseResult(job.result_json);
  const payload = parseResult(job.payload_json) as Partial<ScanPayload>;
  const status =
    job.status === 'succeeded'
      ? 'committed'
      : job.status === 'failed' || job.status === 'cancelled'
        ? job.status
        : 'running';
  const report: ScanReport = {
    id: job.id,
    root_id: result.root_id ?? payload.rootId ?? 0,
    status,
    progress: { done: job.progress_done, total: job.progress_total },
    counts: { ...EMPTY_COUNTS, ...result.counts },
    errors: result.errors ?? [],
  };
  if (job.error !== null) report.message = job.error;
  return report;
}
