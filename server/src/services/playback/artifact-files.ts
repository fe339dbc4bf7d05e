// The files of the artifacts area: their names (each run of a build writes its own part, named by its
// epoch: docs/cluster.md "Fencing") and how the playback cache sees and evicts them.
import { createHash } from 'node:crypto';
import type { DataStore } from '../../adapters/data-store.ts';
import type { CacheEntry } from '../../domain/playback/cache-eviction.ts';
import { artifactUse } from '../../domain/playback/cache-use.ts';
import type { PlaybackPlan } from '../../domain/playback/decision-types.ts';
import type { ArtifactRepository, ArtifactRow } from '../../repositories/artifact.repository.ts';
import type { JobRow } from '../../repositories/job.repository.ts';
import type { ReadyArtifactIndex } from './artifact-index.ts';
import type { CacheKind } from './playback-cache.ts';

/** Stable id of an artifact: the source content, the device and exactly what the conversion does. */
export function artifactKey(sourceKey: string, device: string, plan: PlaybackPlan): string {
  return createHash('sha256')
    .update(JSON.stringify([sourceKey, device, plan]))
    .digest('hex')
    .slice(0, 32);
}

/** What the cache kind of the artifacts needs of ArtifactService. */
export interface ArtifactCacheParts {
  records: Pick<ArtifactRepository, 'readyByAge' | 'getByKey' | 'delete'>;
  store: Pick<DataStore, 'stat'>;
  index: Pick<ReadyArtifactIndex, 'remove'>;
  /** Artifacts just made, kept through the clean their build asked for. */
  justMade: ReadonlySet<string>;
  /** Whether a stream of the artifact is open on this node now (ArtifactReaders). */
  openHere: (key: string) => boolean;
  nowMs: () => number;
  nameOf: (row: ArtifactRow) => string | null;
  removeFile: (row: ArtifactRow) => Promise<void>;
}

/**
 * The ready artifacts as the playback cache sees them: each file as measured on disk (not the
 * size the row remembers), last used when last streamed (by any node), in use as `artifactUse`
 * decides (streamed here, just made, or its row's `last_used_at` refreshed by a stream of any node).
 */
export function artifactCacheKind(parts: ArtifactCacheParts): CacheKind {
  const use = (row: ArtifactRow) =>
    artifactUse({
      lastUsedMs: Date.parse(row.last_used_at),
      openHere: parts.openHere(row.artifact_key),
      justMade: parts.justMade.has(row.artifact_key),
      now: parts.nowMs(),
    });
  return {
    entries: async (): Promise<CacheEntry[]> => {
      const out: CacheEntry[] = [];
      for (const row of await parts.records.readyByAge()) {
        const name = parts.nameOf(row);
        const file = name === null ? null : await parts.store.stat('artifacts', name).catch(() => null);
        out.push({ kind: 'artifact', key: row.artifact_key, bytes: file?.sizeBytes ?? 0, ...use(row) });
      }
      return out;
    },
    evict: async (key: string): Promise<void> => {
      // The row as it is now: a stream of any node may have started since the entries were listed.
      const row = await parts.records.getByKey(key);
      if (row === undefined || row.status !== 'ready' || use(row).inUse) return;
      await parts.removeFile(row);
      await parts.records.delete(key);
      parts.index.remove(row.media_file_id, row.device, row.source_fingerprint);
    },
  };
}

/** Where the run of epoch `epoch` of a build writes (docs/cluster.md "Fencing"). */
export function partName(key: string, epoch: number): string {
  return `${key}.${epoch}.part.mp4`;
}

/** Where a prewarm's remux writes before the file is whole (its run's epoch, as the part). */
export function remuxName(key: string, epoch: number): string {
  return `${key}.${epoch}.remux.mp4`;
}

/** The epoch of a build job's run: the current claim's, or the next claim's while it is queued. */
export function runEpochOf(job: JobRow): number {
  return job.status === 'queued' ? job.epoch + 1 : job.epoch;
}

/** The artifact key a file of the area belongs to (its name up to the first dot). */
export function keyOfName(name: string): string {
  return name.split('.')[0] ?? name;
}

/**
 * The epoch of a build's part or remux file of artifact `key`, or null for any other file; the
 * names before parts carried the epoch (`<key>.part.mp4`) count as epoch 0.
 */
export function buildEpochOf(name: string, key: string): number | null {
  const match = /^([0-9a-f]+)\.(?:(\d+)\.)?(?:part|remux)\.mp4$/.exec(name);
  return match === null || match[1] !== key ? null : Number(match[2] ?? 0);
}

export function finalName(key: string): string {
  return `${key}.mp4`;
}
