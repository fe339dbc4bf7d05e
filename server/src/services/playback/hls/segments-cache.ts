import type { CacheEntry } from '../../../domain/playback/cache-eviction.ts';
import { presentationUse } from '../../../domain/playback/cache-use.ts';
import { ownedElsewhere } from '../../../domain/hls/run-ownership.ts';
import type { CacheKind } from '../playback-cache.ts';
import { type HlsOwnership, rowView } from './hls-ownership.ts';
import { inUse } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';
import type { HlsSegmentStore } from './segment-store.ts';

export interface SegmentsCacheDeps {
  presentations: Pick<PresentationRegistry, 'get'>;
  segments: Pick<HlsSegmentStore, 'folders' | 'measure' | 'remove'>;
  ownership: Pick<HlsOwnership, 'repo' | 'joined' | 'node' | 'ownerProcessGone' | 'forget'>;
  /** REELSHELF_HLS_IDLE_SECONDS in ms: a presentation any node's player asked for this recently is in use. */
  idleMs: number;
  now: () => number;
}

/**
 * The presentations as the playback cache sees them: one folder each, in use and last used as
 * `presentationUse` decides from this node's memory and the shared run row (players of other
 * nodes write its `last_request_at`; docs/cluster.md "The playback cache across nodes").
 */
export function segmentsCacheKind(deps: SegmentsCacheDeps): CacheKind {
  /** In use and last use now, from this node's memory and the row as read now. */
  const use = async (key: string, folderMtimeMs: number) => {
    const p = deps.presentations.get(key);
    const row = await deps.ownership.repo.get(key);
    let elsewhere = false;
    if (row !== undefined && deps.ownership.joined()) {
      const self = {
        nodeId: deps.ownership.node().id,
        ownerProcessGone: deps.ownership.ownerProcessGone(row),
      };
      elsewhere = ownedElsewhere(rowView(row), deps.now(), self);
    }
    return presentationUse({
      local: p === undefined ? null : { lastRequestMs: p.lastRequest, inUse: inUse(p) },
      row:
        row === undefined
          ? null
          : { lastRequestAt: row.last_request_at, pinned: row.pinned === 1, ownedElsewhere: elsewhere },
      folderMtimeMs,
      now: deps.now(),
      idleMs: deps.idleMs,
    });
  };
  return {
    entries: async () => {
      const out: CacheEntry[] = [];
      for (const key of await deps.segments.folders()) {
        const measured = await deps.segments.measure(key);
        out.push({
          kind: 'segments',
          key,
          bytes: measured.bytes,
          ...(await use(key, measured.newestMtimeMs)),
        });
      }
      return out;
    },
    evict: async (key) => {
      // Asked again now: a player (of any node) may have come back since the entries were listed.
      if ((await use(key, 0)).inUse) return;
      // The announcements first: no node serves a file once it is being removed.
      await deps.ownership.forget(key);
      await deps.segments.remove(key, deps.presentations.get(key));
    },
  };
}
