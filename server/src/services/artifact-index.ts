import type { ArtifactIndex, ArtifactSourceFile } from './edition-presenter.ts';

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

  private static key(mediaFileId: number, device: string, sourceKey: string): string {
    return `${mediaFileId}|${device}|${sourceKey}`;
  }

  add(mediaFileId: number, device: string, sourceKey: string): void {
    this.ready.add(ReadyArtifactIndex.key(mediaFileId, device, sourceKey));
  }

  remove(mediaFileId: number, device: string, sourceKey: string): void {
    this.ready.delete(ReadyArtifactIndex.key(mediaFileId, device, sourceKey));
  }

  isReady(file: ArtifactSourceFile, device: string): boolean {
    return this.ready.has(ReadyArtifactIndex.key(file.id, device, sourceKeyOf(file)));
  }
}
