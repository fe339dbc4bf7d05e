import { join } from 'node:path';
import type { JobView, LibraryRootView } from '@reelshelf/contract';
import type { FileStat } from '../../adapters/file-system.ts';
import type {
  FolderWatch,
  FolderWatchListener,
  FolderWatchOptions,
  FolderWatchResult,
} from '../../adapters/folder-watcher.ts';
import { isIgnoreMarker, isSkippedEntryName, isVideoFile } from '../../domain/scan/video-files.ts';
import { isSubtitleFile } from '../../domain/subtitles/sidecar-name.ts';
import { LibraryRootService } from '../library/library-root.service.ts';
import type { ScanService } from './scan.service.ts';

/** Where the watch service says what it does (pino's shape; the server passes its logger at start). */
export interface WatchLog {
  info(obj: unknown, msg: string): void;
  warn(obj: unknown, msg: string): void;
}

export interface RootWatchDeps {
  roots: { list(): Promise<{ id: number; path: string }[]> };
  scans: Pick<ScanService, 'start' | 'wait'>;
  /** The job runner's view of a job (`queued`: it has not begun reading the tree). */
  jobs: { describe(id: number): Promise<Pick<JobView, 'status'>> };
  fs: { stat(path: string): Promise<FileStat | null> };
  folders: {
    /** Which folder is at the path now (device and inode); null when none can be read. */
    identity(path: string): Promise<string | null>;
    watch(
      path: string,
      listener: FolderWatchListener,
      options: FolderWatchOptions,
    ): Promise<FolderWatchResult>;
  };
  /** REELSHELF_WATCH: watch the roots for changes. */
  watch: boolean;
  /** REELSHELF_RESCAN_INTERVAL: rescan every root this often; null = never. */
  rescanIntervalMs: number | null;
  /** How long a changed path must stay as it is (no event, same size and mtime) before it is scanned (2 s). */
  quietMs?: number;
  /** How often each root is checked for having gone or come back, and re-armed (60 s, or the rescan interval when shorter). */
  checkMs?: number;
}

/** A changed path waiting to settle. */
interface PendingPath {
  /** No event since `dueAt - quietMs`: the path is looked at once this time has passed. */
  dueAt: number;
  /** Size and mtime at the last look, to see it stay the same for a quiet period. */
  seen?: string;
}

interface WatchedRoot {
  id: number;
  path: string;
  /** The folder armed (device:inode); null = none readable there; undefined = never looked. */
  identity: string | null | undefined;
  watch: FolderWatch | null;
  refreshing: boolean;
  pending: Map<string, PendingPath>;
  /** A change has settled and waits for the other pending paths to settle before its scan. */
  settled: boolean;
  timer: NodeJS.Timeout | null;
  checking: boolean;
  /** The scans this service asked for run, one after another. */
  scanning: boolean;
  current: number | null;
  /** A change settled while `current` ran: one more scan follows it. */
  again: boolean;
  againToken: number;
  removed: boolean;
}

const DEFAULT_QUIET_MS = 2000;
const DEFAULT_CHECK_MS = 60_000;

/** Whether the scan reads this path's file (videos, subtitles, `.ignore` markers). */
function scanReads(relativePath: string): boolean {
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  return isVideoFile(name) || isSubtitleFile(name) || isIgnoreMarker(name);
}

/** Whether the scan walks past this path (a hidden or system entry on the way). */
function scanSkips(relativePath: string): boolean {
  const parts = relativePath.split('/');
  const name = parts.pop() ?? '';
  return parts.some(isSkippedEntryName) || (isSkippedEntryName(name) && !isIgnoreMarker(name));
}

/**
 * Keeps the library current without anybody pressing scan: a watcher per root turns change events into
 * scans of that root (the incremental scan: unchanged files take its fast path). A changed path is
 * scanned once it has settled (no event, and the same size and mtime, for a quiet period), so a file
 * being copied is picked up once, complete; many changes make one scan; a change during a scan makes
 * one more after it. Every root is also rescanned every `rescanIntervalMs` (network shares send no
 * events), and checked every `checkMs` for having gone (unmounted: its scan refuses and marks nothing
 * missing) or come back (watched again, and scanned).
 */
export class RootWatchService {
  private readonly watched = new Map<number, WatchedRoot>();
  private readonly quietMs: number;
  private readonly checkMs: number;
  private log: WatchLog = { info: () => undefined, warn: () => undefined };
  private started = false;
  private closed = false;
  private ticking = false;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Aborted by close: a watcher still being armed stops at once and releases what it holds. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: RootWatchDeps) {
    this.quietMs = deps.quietMs ?? DEFAULT_QUIET_MS;
    this.checkMs = Math.min(deps.checkMs ?? DEFAULT_CHECK_MS, deps.rescanIntervalMs ?? Infinity);
  }

  /**
   * Starts watching: a watcher is armed on every root in the background (each root is scanned once
   * then: what changed while nobody watched), and the periodic checks and rescans begin. The returned
   * promise settles once every root is armed; nobody needs to wait for it.
   */
  start(log?: WatchLog): Promise<void> {
    if (this.started || this.closed) return Promise.resolve();
    this.started = true;
    if (log !== undefined) this.log = log;
    const interval = this.deps.rescanIntervalMs;
    if (interval !== null) this.every(interval, () => this.rescanAll());
    if (!this.deps.watch) return Promise.resolve();
    this.every(this.checkMs, () => this.checkRoots());
    return (async () => {
      for (const root of await this.deps.roots.list()) {
        if (this.closed) return;
        const w = this.watched.get(root.id) ?? this.add(root);
        await this.refresh(w, true);
      }
    })().catch((err: unknown) => {
      if (!this.closed) this.log.warn({ err }, 'library watch: the roots could not be listed');
    });
  }

  /**
   * A root was added: it is watched from now on (its first scan is asked for as before). The watcher
   * is armed in the background; the promise settles once it is.
   */
  async rootAdded(root: { id: number; path: string }): Promise<void> {
    if (!this.started || this.closed || this.watched.has(root.id)) return;
    const w = this.add(root);
    if (this.deps.watch) await this.refresh(w, false);
  }

  /** A root was removed: its watcher stops, and nothing more is scanned for it. */
  rootRemoved(rootId: number): void {
    const w = this.watched.get(rootId);
    if (w === undefined) return;
    this.watched.delete(rootId);
    this.drop(w);
  }

  /**
   * What the service does for a root: whether a watcher is armed (false when watching is off, the
   * folder is gone, or it is on a network share), how many changed paths wait to settle, and whether
   * a scan it asked for is under way.
   */
  watchState(rootId: number): { watching: boolean; pending: number; scanning: boolean } {
    const w = this.watched.get(rootId);
    return { watching: w?.watch != null, pending: w?.pending.size ?? 0, scanning: w?.scanning ?? false };
  }

  /** Stops every watcher and timer at once (scans under way end with the job runner). */
  close(): void {
    this.closed = true;
    this.stopping.abort();
    for (const t of this.timers) clearInterval(t);
    for (const w of this.watched.values()) this.drop(w);
  }

  private every(ms: number, run: () => Promise<void>): void {
    const timer = setInterval(() => {
      if (this.ticking || this.closed) return;
      this.ticking = true;
      run()
        .catch((err: unknown) => {
          if (!this.closed) this.log.warn({ err }, 'library watch: periodic check failed');
        })
        .finally(() => {
          this.ticking = false;
        });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private add(root: { id: number; path: string }): WatchedRoot {
    const w: WatchedRoot = {
      id: root.id,
      path: root.path,
      identity: undefined,
      watch: null,
      refreshing: false,
      pending: new Map(),
      settled: false,
      timer: null,
      checking: false,
      scanning: false,
      current: null,
      again: false,
      againToken: 0,
      removed: false,
    };
    this.watched.set(root.id, w);
    return w;
  }

  private drop(w: WatchedRoot): void {
    w.removed = true;
    if (w.timer !== null) clearTimeout(w.timer);
    w.timer = null;
    w.watch?.close();
    w.watch = null;
  }

  /** Roots added or removed by another process (the CLI) are picked up; the others keep their state. */
  private async reconcile(): Promise<void> {
    const roots = await this.deps.roots.list();
    if (this.closed) return;
    const ids = new Set(roots.map((r) => r.id));
    for (const id of [...this.watched.keys()]) if (!ids.has(id)) this.rootRemoved(id);
    for (const root of roots) {
      if (this.watched.has(root.id)) continue;
      const w = this.add(root);
      if (this.deps.watch) await this.refresh(w, false);
    }
  }

  private async checkRoots(): Promise<void> {
    await this.reconcile();
    for (const w of [...this.watched.values()]) await this.refresh(w, true);
  }

  private async rescanAll(): Promise<void> {
    await this.reconcile();
    // A root with changes still settling is scanned when they have settled.
    for (const w of [...this.watched.values()]) if (w.pending.size === 0) this.requestScan(w);
  }

  /**
   * Arms the root's watcher when the folder there is not the one armed (first time, gone, back,
   * remounted); after a change of folder, `catchUp` scans the root (its events were not seen).
   */
  private async refresh(w: WatchedRoot, catchUp: boolean): Promise<void> {
    if (w.refreshing) return;
    w.refreshing = true;
    try {
      const identity = await this.deps.folders.identity(w.path);
      if (this.closed || w.removed || identity === w.identity) return;
      const before = w.identity;
      w.watch?.close();
      w.watch = null;
      w.identity = identity;
      if (identity === null) {
        this.log.warn(
          { root: w.id, path: w.path },
          'library root unreachable (is the disk mounted?): not watched until it is back',
        );
        return;
      }
      const result = await this.deps.folders.watch(
        w.path,
        {
          change: (relativePath) => this.changed(w, relativePath),
          error: (err) => this.log.warn({ err, root: w.id, path: w.path }, 'library watch error'),
        },
        // Folders the scan does not walk are not watched either.
        { skipFolder: isSkippedEntryName, signal: this.stopping.signal },
      );
      if (this.closed || w.removed) {
        if ('watch' in result) result.watch.close();
        return;
      }
      if ('watch' in result) w.watch = result.watch;
      else
        this.log.info(
          { root: w.id, reason: result.unwatched },
          'library root not watched: rescanned periodically',
        );
      if (before !== undefined)
        this.log.info({ root: w.id, path: w.path }, 'library root back: watched again');
      if (catchUp) this.requestScan(w);
    } catch (err) {
      if (!this.closed) this.log.warn({ err, root: w.id, path: w.path }, 'library root cannot be watched');
    } finally {
      w.refreshing = false;
    }
  }

  /** An event: the path waits to settle (a quiet period after its last event). */
  private changed(w: WatchedRoot, relativePath: string): void {
    if (this.closed || w.removed) return;
    if (relativePath === '') {
      // The folder itself was removed, moved or replaced.
      void this.refresh(w, true);
      return;
    }
    if (scanSkips(relativePath)) return;
    const dueAt = Date.now() + this.quietMs;
    const pending = w.pending.get(relativePath);
    if (pending === undefined) w.pending.set(relativePath, { dueAt });
    else pending.dueAt = dueAt;
    if (w.timer === null && !w.checking) this.schedule(w, this.quietMs);
  }

  private schedule(w: WatchedRoot, ms: number): void {
    w.timer = setTimeout(() => {
      w.timer = null;
      this.settle(w).catch((err: unknown) => {
        if (!this.closed) this.log.warn({ err, root: w.id }, 'library watch: checking changes failed');
      });
    }, ms);
    w.timer.unref();
  }

  /**
   * Looks at the pending paths whose quiet period has passed: gone, or the same size and mtime as at
   * the last look (or last written a quiet period ago) → settled. Files the scan does not read are
   * dropped. Once nothing is pending, a settled change asks for one scan.
   */
  private async settle(w: WatchedRoot): Promise<void> {
    if (this.closed || w.removed) return;
    w.checking = true;
    try {
      const now = Date.now();
      for (const [relativePath, pending] of [...w.pending]) {
        const reads = scanReads(relativePath);
        if (reads && pending.dueAt > now) continue;
        const stat = await this.deps.fs.stat(join(w.path, relativePath));
        if (this.closed || w.removed) return;
        if (stat !== null && stat.isFile && !reads) {
          w.pending.delete(relativePath);
          continue;
        }
        // (Read after the stat: an event meanwhile moved it.)
        if (pending.dueAt > now || w.pending.get(relativePath) !== pending) continue;
        const seen = stat === null ? 'gone' : `${stat.sizeBytes}:${stat.mtimeMs}:${stat.isDirectory}`;
        const stable =
          stat === null ||
          pending.seen === seen ||
          (pending.seen === undefined && now - stat.mtimeMs >= this.quietMs);
        if (stable) {
          w.pending.delete(relativePath);
          w.settled = true;
        } else {
          pending.seen = seen;
          pending.dueAt = now + this.quietMs;
        }
      }
    } finally {
      w.checking = false;
    }
    if (w.pending.size > 0) {
      let next = Infinity;
      for (const p of w.pending.values()) next = Math.min(next, p.dueAt);
      this.schedule(w, Math.max(10, next - Date.now()));
      return;
    }
    if (w.settled) {
      w.settled = false;
      this.requestScan(w);
    }
  }

  /**
   * Asks for a scan of the root. While one this service asked for is under way, one more follows it,
   * unless that one has not begun reading the tree yet (it will see the change).
   */
  private requestScan(w: WatchedRoot): void {
    if (this.closed || w.removed) return;
    if (!w.scanning) {
      w.scanning = true;
      void this.scanLoop(w);
      return;
    }
    w.again = true;
    const token = ++w.againToken;
    const current = w.current;
    if (current === null) return;
    // (describe reads the job's state when called: queued now means it walks the tree after this change.)
    this.deps.jobs.describe(current).then(
      (job) => {
        if (job.status === 'queued' && w.againToken === token) w.again = false;
      },
      () => undefined,
    );
  }

  /** Scans the root until no change is left over; `scanning` ends in the same step as the last check. */
  private async scanLoop(w: WatchedRoot): Promise<void> {
    try {
      for (;;) {
        w.again = false;
        w.againToken++;
        const { scan_id, created } = await this.deps.scans.start(w.id);
        w.current = scan_id;
        if (!created && (await this.deps.jobs.describe(scan_id)).status !== 'queued') {
          // Joined a scan somebody else asked for that is already reading the tree: it may have passed the change.
          w.again = true;
          w.againToken++;
        }
        const report = await this.deps.scans.wait(scan_id);
        w.current = null;
        if (report.status === 'failed') {
          this.log.warn({ root: w.id, scan: scan_id, message: report.message }, 'library watch: scan failed');
        }
        if (!w.again || this.closed || w.removed) {
          w.scanning = false;
          return;
        }
      }
    } catch (err) {
      w.scanning = false;
      w.current = null;
      if (!this.closed && !w.removed) this.log.warn({ err, root: w.id }, 'library watch: scan failed');
    }
  }
}

/** The roots service, telling the watch service about every root added or removed. */
export class WatchedLibraryRoots extends LibraryRootService {
  constructor(
    private readonly rootWatch: Pick<RootWatchService, 'rootAdded' | 'rootRemoved'>,
    ...args: ConstructorParameters<typeof LibraryRootService>
  ) {
    super(...args);
  }

  override async create(input: Parameters<LibraryRootService['create']>[0]): Promise<LibraryRootView> {
    const root = await super.create(input);
    // (Arming walks the folders: the answer does not wait for it.)
    void this.rootWatch.rootAdded(root);
    return root;
  }

  override async delete(id: number): Promise<void> {
    await super.delete(id);
    this.rootWatch.rootRemoved(id);
  }
}
