import type { CacheEntry } from '../../../domain/playback/cache-eviction.ts';
import { ownedElsewhere } from '../../../domain/hls/run-ownership.ts';
import type { CacheKind } from '../playback-cache.ts';
import { type HlsOwnership, rowView } from './hls-ownership.ts';
import { inUse } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';
import type { HlsSegmentStore } from './segment-store.ts';

export interface SegmentsCacheDeps {
  presentations: PresentationRegistry;
  segments: HlsSegmentStore;
  ownership: HlsOwnership;
  now: () => number;
}

/**
 * The presentations as the playback cache sees them: one folder each, last used when a player
 * last asked (a folder of an earlier process: when it was last written), in use while converted,
 * waited for or leased by a prewarm.
 */
export function segmentsCacheKind(deps: SegmentsCacheDeps): CacheKind {
  return {
    entries: async () => {
      const out: CacheEntry[] = [];
      for (const key of await deps.segments.folders()) {
        const p = deps.presentations.get(key);
        const measured = await deps.segments.measure(key);
        out.push({
          kind: 'segments',
          key,
          bytes: measured.bytes,
          lastUsedMs: p?.lastRequest ?? measured.newestMtimeMs,
          inUse: p !== undefined && inUse(p),
        });
      }
      return out;
    },
    evict: async (key) => {
      const p = deps.presentations.get(key);
      if (p !== undefined && inUse(p)) return; // a player came back meanwhile
      // Another node converts it right now: its files stay.
      const row = await deps.ownership.repo.get(key);
      if (row !== undefined && deps.ownership.joined()) {
        const self = {
          nodeId: deps.ownership.node().id,
          ownerProcessGone: deps.ownership.ownerProcessGone(row),
        };
        if (ownedElsewhere(rowView(row), deps.now(), self)) return;
      }
      // The announcements first: no node serves a file once it is being removed.
      await deps.ownership.forget(key);
      await deps.segments.remove(key, p);
    },
  };
}
