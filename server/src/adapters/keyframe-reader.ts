import {
  type ContainerIndex,
  type ContainerIndexReading,
  type ContainerIndexSource,
  readContainerIndex,
} from '../domain/media/keyframe-index.ts';
import type { FfprobeAdapter } from './ffprobe.ts';
import type { CheckedFile, FileReader } from './file-system.ts';

export type KeyframeSource = ContainerIndexSource | 'ffprobe_packets';

/** Keyframe presentation times of a file's first video stream (seconds, ascending) and where they came from. */
export interface KeyframeIndex {
  times: number[];
  source: KeyframeSource;
}

/** What reading the container's own index gave: the index, no video at all, or nothing to read. */
export type ContainerIndexOutcome = KeyframeIndex | 'no_video' | 'no_index';

/**
 * Reads keyframe indexes of media files: the container's own index (a few positional reads, a few KB
 * to a few MB), or — for containers without one — every packet through ffprobe (the whole file).
 */
export class KeyframeReader {
  /** What this reader did (tests assert that a stored index is not read again). */
  readonly counts = { containerReads: 0, bytesRead: 0, packetScans: 0 };

  constructor(private readonly ffprobe: FfprobeAdapter) {}

  /** The container's own index (MKV Cues, MP4 stss); never the whole file. */
  async readContainerIndex(file: CheckedFile): Promise<ContainerIndexOutcome> {
    this.counts.containerReads++;
    const reader = await file.open();
    try {
      const outcome = await drive(readContainerIndex(file.sizeBytes), reader, (n) => {
        this.counts.bytesRead += n;
      });
      if (outcome.kind === 'keyframes') return { times: outcome.times, source: outcome.source };
      return outcome.kind;
    } finally {
      await reader.close();
    }
  }

  /** The keyframes ffprobe sees demuxing every packet (slow: the whole file); null when there are none. */
  async scanPackets(file: CheckedFile, signal?: AbortSignal): Promise<KeyframeIndex | null> {
    this.counts.packetScans++;
    const times = await this.ffprobe.keyframes(file.path, signal);
    return times.length === 0 ? null : { times, source: 'ffprobe_packets' };
  }

  /**
   * The keyframe index: the container's, else a packet scan; null when the file has no video.
   * @throws ProbeError when the packet scan fails
   */
  async read(file: CheckedFile, signal?: AbortSignal): Promise<KeyframeIndex | null> {
    const outcome = await this.readContainerIndex(file);
    if (outcome === 'no_video') return null;
    if (outcome !== 'no_index') return outcome;
    return this.scanPackets(file, signal);
  }
}

/** Answers the reading's byte requests with positional reads until it returns. */
async function drive(
  reading: ContainerIndexReading,
  reader: FileReader,
  onRead: (bytes: number) => void,
): Promise<ContainerIndex> {
  let step = reading.next();
  while (step.done !== true) {
    const { start, length } = step.value;
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const n = await reader.read(buffer.subarray(filled), length - filled, start + filled);
      if (n === 0) break;
      filled += n;
    }
    onRead(filled);
    step = reading.next(buffer.subarray(0, filled));
  }
  return step.value;
}
