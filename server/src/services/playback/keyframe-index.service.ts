import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { KeyframeReader } from '../../adapters/keyframe-reader.ts';
import { decodeKeyframeTimes, encodeKeyframeTimes } from '../../domain/media/keyframe-times.ts';
import type { KeyframeIndexRepository } from '../../repositories/keyframe-index.repository.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import { sourceKeyOf } from './artifact-index.ts';
import type { KeyframeSource } from './hls/presentation-registry.ts';
import type { MediaPathService } from '../library/media-path.service.ts';

/** The keyframe_indexes table (`KeyframeIndexRepository`; tests pass an in-memory one). */
export type KeyframeIndexRecords = Pick<KeyframeIndexRepository, 'get' | 'put'>;

/**
 * The keyframes of a file's video, kept with its analysis: read the first time a copied-video HLS
 * presentation needs them (the container's own index, a few reads; else a packet scan of the whole
 * file) and stored, so every later play and every restart reuses them. A file whose content changed
 * (another fingerprint or size) is read again.
 */
export class KeyframeIndexService implements KeyframeSource {
  private readonly reading = new Map<string, Promise<{ times: number[] } | null>>();

  constructor(
    private readonly files: Pick<MediaFileRepository, 'getWithRoot'>,
    private readonly records: KeyframeIndexRecords,
    private readonly reader: Pick<KeyframeReader, 'read'>,
    private readonly paths: Pick<MediaPathService, 'openInsideRoot'>,
    private readonly clock: Clock,
  ) {}

  async keyframesOf(fileId: number): Promise<{ times: number[] } | null> {
    const file = await this.files.getWithRoot(fileId);
    if (file === undefined) return null;
    const sourceKey = sourceKeyOf(file);
    const stored = await this.records.get(fileId);
    if (stored !== undefined && stored.source_key === sourceKey) {
      try {
        return { times: decodeKeyframeTimes(stored.times_json) };
      } catch {
        // A damaged row: read the file again below.
      }
    }
    // Two players asking at once share one read.
    const key = `${fileId}:${sourceKey}`;
    let pending = this.reading.get(key);
    if (pending === undefined) {
      pending = this.read(fileId, file.root_path, file.relative_path, sourceKey).finally(() =>
        this.reading.delete(key),
      );
      this.reading.set(key, pending);
    }
    return pending;
  }

  private async read(
    fileId: number,
    rootPath: string,
    relativePath: string,
    sourceKey: string,
  ): Promise<{ times: number[] } | null> {
    const checked = await this.paths.openInsideRoot(rootPath, relativePath);
    const index = await this.reader.read(checked);
    if (index === null) return null;
    await this.records.put({
      media_file_id: fileId,
      source_key: sourceKey,
      source: index.source,
      times_json: encodeKeyframeTimes(index.times),
      created_at: isoNow(this.clock),
    });
    return { times: index.times };
  }
}
