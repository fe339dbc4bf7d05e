import { cpus } from 'node:os';
import PQueue from 'p-queue';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { type FfprobeAdapter, ProbeError } from '../../adapters/ffprobe.ts';
import type { CheckedFile } from '../../adapters/file-system.ts';
import { type Capabilities, ProbeParseError, parseFfprobe } from '../../domain/media/capabilities.ts';
import { AppError } from '../../errors.ts';
import type { MediaFileRepository } from '../../repositories/media-file.repository.ts';
import type { MediaPathService } from '../library/media-path.service.ts';

export type AnalysisOutcome = 'analyzed' | 'failed' | 'missing' | 'skipped';

export interface ProbeResult {
  status: 'analyzed' | 'failed';
  capabilities: Capabilities | null;
  error: string | null;
}

export interface AnalyzeManyOptions {
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Runs ffprobe on media files and stores what it found: capabilities, or the failure and why. */
export class AnalysisService {
  constructor(
    private readonly files: MediaFileRepository,
    private readonly ffprobe: FfprobeAdapter,
    private readonly paths: MediaPathService,
    private readonly clock: Clock,
    private readonly ffprobeAvailable: boolean,
  ) {}

  get available(): boolean {
    return this.ffprobeAvailable;
  }

  /** How many times ffprobe was run by this process (tests assert the fast path skips it). */
  get probeCount(): number {
    return this.ffprobe.calls.count;
  }

  /**
   * Probes one file at an absolute path. A failure is a result with its message, never an empty
   * record (an unreadable file must not look like a file with no streams).
   */
  async probe(absolutePath: string, sizeBytes: number, signal?: AbortSignal): Promise<ProbeResult> {
    try {
      const out = await this.ffprobe.probe(absolutePath, signal);
      const capabilities = parseFfprobe(out.json, sizeBytes, { fileName: absolutePath });
      if (out.errors.length > 0) {
        capabilities.stream_errors = [...(capabilities.stream_errors ?? []), ...out.errors].slice(0, 20);
      }
      return { status: 'analyzed', capabilities, error: null };
    } catch (err) {
      if (err instanceof ProbeError || err instanceof ProbeParseError) {
        return { status: 'failed', capabilities: null, error: err.message };
      }
      throw err;
    }
  }

  /** Analyses one registered media file and stores the outcome. */
  async analyzeFile(id: number, signal?: AbortSignal): Promise<AnalysisOutcome> {
    if (!this.ffprobeAvailable) return 'skipped';
    const repo = this.files;
    const file = await repo.getWithRoot(id);
    if (file === undefined) return 'skipped';
    // The library path rule, as for a stream: a file that is not there is missing; one the rule
    // refuses (a link into the data dir, out of the root when not followed) is not probed, and its
    // analysis says why, as the stream's 403 does.
    const now = isoNow(this.clock);
    let checked: CheckedFile | null = null;
    let refusal: string | null = null;
    try {
      checked = await this.paths.openInsideRoot(file.root_path, file.relative_path);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'forbidden')) {
        await repo.markMissing(id, now);
        return 'missing';
      }
      refusal = err.message;
    }
    const result: ProbeResult =
      checked === null
        ? { status: 'failed', capabilities: null, error: refusal }
        : await this.probe(checked.path, checked.sizeBytes, signal);
    await repo.saveAnalysis(id, {
      analysis_status: result.status,
      capabilities_json: result.capabilities === null ? null : JSON.stringify(result.capabilities),
      analysis_error: result.error,
      analyzed_size_bytes: checked?.sizeBytes ?? file.size_bytes,
      analyzed_fingerprint: file.fingerprint,
      analyzed_at: now,
      updated_at: now,
    });
    return result.status;
  }

  /** Analyses files in parallel, as many at once as there are cores (ffprobe is the bound). */
  async analyzeMany(
    ids: number[],
    options: AnalyzeManyOptions = {},
  ): Promise<Record<AnalysisOutcome, number>> {
    const counts: Record<AnalysisOutcome, number> = { analyzed: 0, failed: 0, missing: 0, skipped: 0 };
    const queue = new PQueue({ concurrency: options.concurrency ?? Math.max(1, cpus().length) });
    let done = 0;
    for (const id of ids) {
      queue.add(async () => {
        if (options.signal?.aborted === true) return;
        counts[await this.analyzeFile(id, options.signal)]++;
        done++;
        options.onProgress?.(done, ids.length);
      });
    }
    await queue.onIdle();
    return counts;
  }

  /** Analyses every present file that was never analysed or changed since. */
  async analyzePending(options: AnalyzeManyOptions = {}): Promise<Record<AnalysisOutcome, number>> {
    const ids = await this.files.idsNeedingAnalysis();
    return this.analyzeMany(ids, options);
  }
}
