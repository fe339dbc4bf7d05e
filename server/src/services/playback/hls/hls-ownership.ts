import { DEFAULT_LEASE_TIMINGS, type NodeRole } from '../../../domain/jobs/cluster-jobs.ts';
import {
  convertsHls,
  INIT_INDEX,
  otherConverters,
  type OtherConverters,
  publishedRunOf,
  type PublishedRun,
  type RunRowView,
} from '../../../domain/hls/run-ownership.ts';
import type { HlsRunRepository, HlsRunRow } from '../../../repositories/hls-run.repository.ts';
import { notify, type Presentation } from './presentation.ts';

/** This process as a node of the cluster (the job runner's identity: docs/cluster.md "Nodes"). */
export interface HlsNode {
  id: string;
  role: NodeRole;
  host: string;
}

/** A live node as the last heartbeat read it (JobRunner.knownLiveNodes). */
export interface HlsPeer {
  id: string;
  role: string;
  host: string;
  pid: number;
  load_json: string;
}

/** What HLS needs of the cluster: its rows, this node, the other nodes, the wake-ups. */
export interface HlsClusterDeps {
  repo: HlsRunRepository;
  /** This node; null until it joined the cluster (the job runner started). */
  node(): HlsNode | null;
  peers(): readonly HlsPeer[];
  /**
   * Reads the nodes again (peers() is the last heartbeat's read, up to a second old): before a
   * player is told that no node converts, a worker that started since is found.
   */
  refreshPeers?(): Promise<unknown>;
  /** Other nodes' announcements, seeks and claims (PostgreSQL's NOTIFY; a hint: HLS polls too). */
  feed?: { subscribeHls(listener: (presentationKey: string) => void): () => void };
  pidAlive(pid: number): boolean;
  /** The claim's lease (default: the jobs' 5 s, renewed every second). */
  leaseMs?: number;
  heartbeatMs?: number;
  /** How often a node that converts looks for runs to claim (NOTIFY wakes it sooner). */
  pollMs?: number;
}

/** A node that does not convert writes a player's request on the run row at most this often. */
const TOUCH_EVERY_MS = 1_000;
/** The announcements of a presentation are read again at most this often (NOTIFY forces a read). */
const REFRESH_EVERY_MS = 250;

/** A run row as the pure rules see it. */
export function rowView(row: HlsRunRow): RunRowView {
  return {
    ownerNode: row.owner_node,
    leaseUntil: row.lease_until,
    startIndex: row.start_index,
    nextIndex: row.next_index,
    wantedIndex: row.wanted_index,
    pinned: row.pinned === 1,
    error: row.error,
  };
}

/**
 * A presentation's run as the cluster sees it (docs/cluster.md "HLS across nodes"): the claim this
 * node holds (claimed, renewed, given back, fenced by its epoch), what other nodes announced, what
 * this node asks of the owner (a seek, a run, a player still watching), and what the other nodes
 * offer. Reads and writes `hls_runs`/`hls_segments`; holds no ffmpeg.
 */
export class HlsOwnership {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  private readonly refreshing = new Map<string, { at: number; done: Promise<void> }>();
  private readonly touched = new Map<string, number>();
  /** Releases in flight: a request reads the row after them; close waits for them. */
  private readonly releasing = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: HlsClusterDeps,
    private readonly now: () => number,
    private readonly log: { warn(obj: unknown, msg: string): void } | null,
  ) {
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_TIMINGS.leaseMs;
    this.heartbeatMs = deps.heartbeatMs ?? DEFAULT_LEASE_TIMINGS.heartbeatMs;
    this.pollMs = deps.pollMs ?? DEFAULT_LEASE_TIMINGS.pollMs;
  }

  get repo(): HlsRunRepository {
    return this.deps.repo;
  }

  /** Whether this node joined the cluster (nothing is claimed before). */
  joined(): boolean {
    return this.deps.node() !== null;
  }

  node(): HlsNode {
    const node = this.deps.node();
    if (node === null) throw new Error('HLS runs need the node identity (the job runner has not started)');
    return node;
  }

  /** Whether this node runs ffmpeg for players (`all` and `worker`; an `api` node never does). */
  converts(): boolean {
    const node = this.deps.node();
    return node !== null && convertsHls(node.role);
  }

  /** Calls `listener` with the key of every presentation another node changed ('' = any). */
  subscribe(listener: (key: string) => void): () => void {
    return this.deps.feed?.subscribeHls(listener) ?? (() => undefined);
  }

  /** What the other live nodes offer for conversions. */
  /** Reads the other nodes again, when the cluster can (see HlsClusterDeps.refreshPeers). */
  async refreshPeers(): Promise<void> {
    await this.deps.refreshPeers?.();
  }

  others(): OtherConverters {
    const self = this.node().id;
    return otherConverters(
      this.deps.peers().map((n) => ({ id: n.id, role: n.role, loadJson: n.load_json })),
      self,
    );
  }

  /** The conversion of this file and device another live node runs, as its last heartbeat said. */
  publishedRun(fileId: number, device: string): PublishedRun | null {
    const self = this.deps.node();
    if (self === null) return null;
    const nodes = this.deps.peers().map((n) => ({ id: n.id, role: n.role, loadJson: n.load_json }));
    return publishedRunOf(nodes, self.id, fileId, device);
  }

  /** The owner of a row, when it is a live node's row (for the gone-process check). */
  ownerOf(row: HlsRunRow): HlsPeer | undefined {
    return row.owner_node === null ? undefined : this.deps.peers().find((n) => n.id === row.owner_node);
  }

  /** Whether the row's owner was a process of this host that no longer exists (a crash). */
  ownerProcessGone(row: HlsRunRow): boolean {
    const owner = this.ownerOf(row);
    return owner !== undefined && owner.host === this.node().host && !this.deps.pidAlive(owner.pid);
  }

  pidAlive(pid: number): boolean {
    return this.deps.pidAlive(pid);
  }

  /** The run row, once this node's own release of it (if any) has landed. */
  async row(p: Presentation): Promise<HlsRunRow | undefined> {
    await this.releasing.get(p.key);
    return this.deps.repo.get(p.key);
  }

  /**
   * Claims the run for this node from segment `start` (`takeFrom`: the node id of a gone process of
   * this host that held it). On success `p.claim` holds the epoch.
   */
  async claim(p: Presentation, start: number, takeFrom: string | null = null): Promise<boolean> {
    await this.releasing.get(p.key);
    const now = this.now();
    const row = await this.deps.repo.claim(
      p.identity,
      this.node().id,
      now,
      now + this.leaseMs,
      start,
      takeFrom,
    );
    if (row === undefined) return false;
    p.claim = { epoch: row.epoch, handledSeq: row.wanted_seq };
    return true;
  }

  /** The owner's ffmpeg restarted at `index` on its claim (other nodes' waits judge by it). */
  started(p: Presentation, epoch: number, index: number): void {
    this.deps.repo.started(p.key, epoch, index, this.now()).catch((err: unknown) => {
      this.log?.warn({ err, key: p.key }, 'HLS run start not recorded');
    });
  }

  /** Gives the run back (fenced by its epoch); requests and close wait for it. */
  release(p: Presentation, epoch: number, error: string | null): void {
    const done = this.deps.repo
      .release(p.key, epoch, error, this.now())
      .then(() => undefined)
      .catch((err: unknown) => this.log?.warn({ err, key: p.key }, 'HLS run not given back'))
      .finally(() => {
        if (this.releasing.get(p.key) === done) this.releasing.delete(p.key);
      });
    this.releasing.set(p.key, done);
  }

  /** Every release in flight has landed (shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing.values()]);
  }

  /** Announces a file a run of epoch `epoch` wrote whole; false when its claim was lost. */
  announce(
    p: Presentation,
    epoch: number,
    rendition: string,
    index: number,
    bytes: number,
    fileName: string,
  ) {
    return this.deps.repo.announce(p.key, epoch, { rendition, idx: index, bytes, fileName });
  }

  /**
   * Asks for segment `index` on the row: `ask` asks the nodes that convert for a run nobody holds;
   * without it, it is a seek the owner hears. A player's request counts for the idle clock too.
   */
  async want(p: Presentation, index: number, ask: boolean): Promise<HlsRunRow> {
    const now = this.now();
    this.touched.set(p.key, now);
    return this.deps.repo.want(p.identity, index, ask, now);
  }

  /**
   * A player asked something of the presentation: a node that does not own its run writes it on the
   * row (at most once a second), so the owner does not stop the run as idle, and no node's cache
   * cleaner removes its files, a finished presentation's too (`presentationUse`).
   */
  touch(p: Pick<Presentation, 'key' | 'claim'>): void {
    if (p.claim !== null) return;
    const now = this.now();
    if (now - (this.touched.get(p.key) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(p.key, now);
    this.deps.repo.touch(p.key, now).catch((err: unknown) => {
      this.log?.warn({ err, key: p.key }, 'HLS request not recorded');
    });
  }

  /** A prewarm keeps the run going to the end, wherever it runs (or no longer does). */
  async pin(p: Presentation, pinned: boolean): Promise<void> {
    await this.deps.repo.pin(p.key, pinned);
  }

  /**
   * Reads the presentation's announcements into `p.stored`/`p.inits` (at most every 250 ms unless
   * `force`d; concurrent callers share one read) and wakes its waiters when something is new.
   */
  refresh(p: Presentation, force = false): Promise<void> {
    const last = this.refreshing.get(p.key);
    if (last !== undefined) {
      // Being read: share it; a forced read (a NOTIFY) reads again after it, it may predate the news.
      if (last.at === -1) return force ? last.done.then(() => this.refresh(p, true)) : last.done;
      if (!force && this.now() - last.at < REFRESH_EVERY_MS) return last.done;
    }
    const entry = { at: -1, done: Promise.resolve() };
    entry.done = this.deps.repo
      .segments(p.key)
      .then((rows) => {
        let news = false;
        for (const row of rows) {
          if (row.idx === INIT_INDEX) {
            if (!p.inits.has(row.rendition)) {
              p.inits.set(row.rendition, row.file_name);
              news = true;
            }
            continue;
          }
          const map = p.stored.get(row.rendition);
          if (map !== undefined && !map.has(row.idx)) {
            map.set(row.idx, row.file_name);
            news = true;
          }
        }
        if (news) notify(p);
      })
      .finally(() => {
        entry.at = this.now();
      });
    this.refreshing.set(p.key, entry);
    return entry.done;
  }

  /** The cache removed the presentation's folder: its announcements go too. */
  async forget(key: string): Promise<void> {
    this.refreshing.delete(key);
    this.touched.delete(key);
    await this.deps.repo.forget(key, this.now());
  }
}
