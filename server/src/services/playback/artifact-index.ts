import type { ArtifactIndex, ArtifactSourceFile } from './edition-presenter.ts';
import type { ListingChanges } from '../library/library-generation.ts';

/** The source identity an artifact was built from: fingerprint, or size when none was taken. */
export function sourceKeyOf(file: Pick<ArtifactSourceFile, 'fingerprint' | 'size_bytes'>): string {
  return file.fingerprint ?? `size-${Number(file.size_bytes)}`;
}

/**
 * Which (file, device, source) combinations have a finished artifact, kept in memory so /library
 * can ask 10,000 times without a query; loaded at start and updated as builds finish or are evicted.
 */
export class ReadyArtifactIndex implements ArtifactIndex {
  private readonly ready = new Set<string>();

  /** @param listing told when a file's readiness changes (it changes the file's playback prediction in /library) */
  constructor(private readonly listing?: ListingChanges) {}

  private static key(mediaFileId: number, device: string, sourceKey: string): string {
    return `${mediaFileId}|${device}|${sourceKey}`;
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
