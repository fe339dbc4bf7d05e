import { type CacheEntry, chooseEvictions } from '../../domain/playback/cache-eviction.ts';

/** One kind of cached playback file (progressive artifacts, HLS presentations): what it holds, and removal. */
export interface CacheKind {
  /** Its entries on disk, measured, with their last use and whether they are in use now. */
  entries(): Promise<CacheEntry[]>;
  /** Removes one entry (its files, and what remembers it). */
  evict(key: string): Promise<void>;
}

export interface PlaybackCacheDeps {
  /** Bytes both areas (`artifacts` and `segments`) hold on disk now, whatever names them. */
  usage(): Promise<number>;
  /** REELSHELF_ARTIFACT_CACHE_MB in bytes. */
  boundBytes: number;
  log?: { warn(obj: unknown, msg: string): void };
}

/**
 * The one bound of the playback cache (REELSHELF_ARTIFACT_CACHE_MB) and its one cleaner: progressive
 * artifacts and HLS presentations are measured together on disk and removed least recently used
 * first, whatever their kind, never one in use (being converted, served, or just made).
 *
 * Cleans run one at a time; a clean asked for while one runs is done once more after it (several
 * asks meanwhile share that one), so every ask is answered by a clean that started after it.
 */
export class PlaybackCache {
  private readonly kinds = new Map<CacheEntry['kind'], CacheKind>();
  private tail: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;

  constructor(private readonly deps: PlaybackCacheDeps) {}

  /** The two kinds register themselves (each is built with this cache). */
  register(kind: CacheEntry['kind'], source: CacheKind): void {
    this.kinds.set(kind, source);
  }

  /** Brings the cache within its bound; never rejects (a failure is logged, the next clean retries). */
  clean(): Promise<void> {
    if (this.next !== null) return this.next;
    const run = this.tail.then(async () => {
      this.next = null;
      await this.once().catch((err: unknown) => this.deps.log?.warn({ err }, 'playback cache clean failed'));
    });
    this.next = run;
    this.tail = run;
    return run;
  }

  private async once(): Promise<void> {
    const total = await this.deps.usage();
    if (total <= this.deps.boundBytes) return;
    const entries: CacheEntry[] = [];
    for (const kind of this.kinds.values()) entries.push(...(await kind.entries()));
    for (const entry of chooseEvictions(entries, total, this.deps.boundBytes)) {
      await this.kinds.get(entry.kind)?.evict(entry.key);
    }
  }
}
