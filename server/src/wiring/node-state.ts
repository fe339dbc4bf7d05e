// A piece of the composition root (services/index.ts, at its size bound): the state a request needs
// that every node must see alike (docs/cluster.md "Shared node state") — playback-token stops, the
// plays of every node, failed sign-ins and the one node watching the library roots.
import { folderIdentity, watchFolderTree } from '../adapters/folder-watcher.ts';
import type { Clock } from '../adapters/clock.ts';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import { sqlEngineOf } from '../db/sql-engine.ts';
import { rootWatchMode, WATCH_LEASE } from '../domain/scan/watch-leadership.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import { ActivePlayRepository } from '../repositories/active-play.repository.ts';
import { AuthFailureRepository } from '../repositories/auth-failure.repository.ts';
import { NodeLeaseRepository } from '../repositories/node-lease.repository.ts';
import { PlaybackStopRepository } from '../repositories/playback-stop.repository.ts';
import type { ListingChanges } from '../services/library/library-generation.ts';
import type { SignInGuard } from '../services/people/sign-in-guard.ts';
import type { NowPlayingService, SharedPlays } from '../services/playback/now-playing.service.ts';
import type { PlaybackTokenService } from '../services/playback/playback-token.service.ts';
import { RootWatchLeader } from '../services/scan/root-watch-leader.ts';
import { type RootWatchDeps, RootWatchService } from '../services/scan/root-watch.service.ts';

/** Started after the job runner (it names this node), closed before the database. */
export interface NodeState {
  start(): Promise<void>;
  close(): Promise<void>;
}

type Subscribe = ChangeFeed['subscribeState'] | undefined;

function subscribeOf(feed: ChangeFeed | undefined): Subscribe {
  return feed === undefined ? undefined : (listener) => feed.subscribeState(listener);
}

/** The plays of every node: the active_plays table, this node, the live nodes, the feed. */
export function sharedPlays(db: Db, jobs: JobRunner, feed: ChangeFeed | undefined): SharedPlays {
  const subscribe = subscribeOf(feed);
  return {
    rows: new ActivePlayRepository(db),
    nodeId: () => jobs.nodeId,
    liveNodes: async () => (await jobs.liveNodes()).map((n) => n.id),
    ...(subscribe === undefined ? {} : { subscribe }),
  };
}

/** What the composition root hands the wiring pieces. */
type Base = { db: Db; config: Config; clock: Clock };

/** The roots' watching (a fresh watch service per term), on one node at a time (never an `api` node). */
export function buildRootWatch(
  base: Base,
  jobs: JobRunner,
  watch: Omit<RootWatchDeps, 'jobs' | 'folders' | 'watch' | 'rescanIntervalMs'>,
): RootWatchLeader {
  const leases = new NodeLeaseRepository(base.db);
  const node = () => jobs.nodeId ?? 'unstarted';
  const nowMs = () => base.clock.now().getTime();
  return new RootWatchLeader({
    mode: rootWatchMode(base.config.nodeRole, sqlEngineOf(base.db)),
    make: () =>
      new RootWatchService({
        ...watch,
        jobs,
        folders: { identity: folderIdentity, watch: watchFolderTree },
        watch: base.config.watch,
        rescanIntervalMs: base.config.rescanIntervalMs,
      }),
    renewMs: WATCH_LEASE.renewMs,
    lease: {
      take: () => leases.take('root-watch', node(), nowMs(), nowMs() + WATCH_LEASE.leaseMs),
      release: () => leases.release('root-watch', node()),
    },
  });
}

/** Loads and follows the shared stops and failure counts; takes this node's plays out at close. */
export function buildNodeState(
  base: Base,
  parts: {
    feed: ChangeFeed | undefined;
    tokens: PlaybackTokenService;
    guard: SignInGuard;
    listing: ListingChanges;
    plays: NowPlayingService;
  },
): NodeState {
  const deps = { ...parts, db: base.db, nowMs: () => base.clock.now().getTime() };
  const subscribe = subscribeOf(deps.feed);
  return {
    async start() {
      await deps.tokens.share({
        store: new PlaybackStopRepository(deps.db),
        ...(subscribe === undefined ? {} : { subscribe }),
        // Stopped on another node: this node's listing of that person re-signs the file's URLs.
        onStop: (userId, fileId) => deps.listing.changed({ files: [fileId], user: userId }),
      });
      await deps.guard.share({
        store: new AuthFailureRepository(deps.db),
        ...(subscribe === undefined ? {} : { subscribe }),
        nowMs: deps.nowMs,
      });
    },
    async close() {
      deps.tokens.close();
      deps.guard.close();
      await deps.plays.close();
    },
  };
}
