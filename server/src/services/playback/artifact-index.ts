import type { ArtifactIndex, ArtifactSourceFile } from './edition-presenter.ts';
import type { StateMessage, SubscribeState } from '../../domain/cluster/state-message.ts';
import type { ListingChanges } from '../library/library-generation.ts';

/** A ready artifact as the artifacts table names it. */
export interface ReadyKey {
  media_file_id: number;
  device: string;
  source_fingerprint: string;
}

/** Where the ready artifacts of every node are read and followed. */
export interface ReadySource {
  /** Every ready row of the artifacts table. */
  ready(): Promise<ReadyKey[]>;
  /** The change feed's node-state messages (PostgreSQL: each artifact becoming ready or not, any node). */
  subscribe?: SubscribeState;
}

/** The source identity an artifact was built from: fingerprint, or size when none was taken. */
export function sourceKeyOf(file: Pick<ArtifactSourceFile, 'fingerprint' | 'size_bytes'>): string {
  return file.fingerprint ?? `size-${Number(file.size_bytes)}`;
}

/**
 * Which (file, device, source) combinations have a finished artifact, kept in memory so /library
 * can ask 10,000 times without a query; loaded at start and updated as builds finish or are evicted
 * — on any node: the artifacts trigger announces every row becoming ready or leaving ready (PostgreSQL,
 * docs/cluster.md), heard before a later request reads the listing (ChangeFeed.catchUp).
 */
export class ReadyArtifactIndex implements ArtifactIndex {
  private readonly ready = new Set<string>();
  private source: ReadySource | null = null;
  private unsubscribe: () => void = () => undefined;

  /** @param listing told when a file's readiness changes (it changes the file's playback prediction in /library) */
  constructor(private readonly listing?: ListingChanges) {}

  private static key(mediaFileId: number, device: string, sourceKey: string): string {
    return `${mediaFileId}|${device}|${sourceKey}`;
  }

  /** Loads the ready rows and follows every node's changes from now on. */
  async share(source: ReadySource): Promise<void> {
    this.source = source;
    this.unsubscribe = source.subscribe?.((message) => this.heard(message)) ?? (() => undefined);
    await this.reload();
  }

  close(): void {
    this.unsubscribe();
  }

  private heard(message: StateMessage): void {
    if (message.topic === '*') {
      // Announcements may have been missed while the feed was away: read the table again.
      void this.reload().catch(() => undefined);
      return;
    }
    if (message.topic !== 'artifact' || !('data' in message)) return;
    const { f, d, s, r } = message.data;
    if (typeof f !== 'number' || typeof d !== 'string' || typeof s !== 'string') return;
    if (r === true) this.add(f, d, s);
    else this.remove(f, d, s);
  }

  /** The set becomes the table's ready rows; the files whose readiness moved change in the listing. */
  private async reload(): Promise<void> {
    if (this.source === null) return;
    const next = new Map<string, number>();
    for (const row of await this.source.ready()) {
      next.set(
        ReadyArtifactIndex.key(row.media_file_id, row.device, row.source_fingerprint),
        row.media_file_id,
      );
    }
    const files = new Set<number>();
    for (const key of this.ready) {
      if (!next.has(key)) {
        this.ready.delete(key);
        files.add(Number(key.slice(0, key.indexOf('|'))));
      }
    }
    for (const [key, file] of next) {
      if (this.ready.has(key)) continue;
      this.ready.add(key);
      files.add(file);
    }
    if (files.size > 0) this.listing?.changed({ files: [...files] });
  }

  add(mediaFileId: number, device: string, sourceKey: string): void {
    const key = ReadyArtifactIndex.key(mediaFileId, device, sourceKey);
    if (this.ready.has(key)) return;
    this.ready.add(key);
    this.listing?.changed({ files: [mediaFileId] });
  }

  remove(mediaFileId: number, device: string, sourceKey: string): void {
    if (this.ready.delete(ReadyArtifactIndex.key(mediaFileId, device, sourceKey))) {
      this.listing?.changed({ files: [mediaFileId] });
    }
  }

  isReady(file: ArtifactSourceFile, device: string): boolean {
    return this.ready.has(ReadyArtifactIndex.key(file.id, device, sourceKeyOf(file)));
  }
}
