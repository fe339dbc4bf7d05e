import type { FfmpegRunOptions } from '../../../adapters/ffmpeg.ts';
import { buildHlsRunArgs } from '../../../domain/hls/hls-command.ts';
import type { PublishedRun } from '../../../domain/hls/run-ownership.ts';
import { AppError } from '../../../errors.ts';
import type { ConversionSlot, ConversionSlots } from '../conversion-slots.ts';
import type { HlsOwnership } from './hls-ownership.ts';
import { isRunning, type Presentation, type Run, notify } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';
import { SegmentCollector } from './segment-collector.ts';
import type { HlsSegmentStore } from './segment-store.ts';

/** The part of FfmpegAdapter a run uses (one output pipe per rendition). */
export interface HlsFfmpeg {
  run(args: string[], options?: FfmpegRunOptions): Promise<void>;
}

export interface HlsRunsDeps {
  ffmpeg: HlsFfmpeg;
  /** The machine's one conversion limit, shared with prewarms and progressive builds. */
  slots: ConversionSlots;
  presentations: PresentationRegistry;
  segments: HlsSegmentStore;
  /** The runs' claims in the database: every run holds its presentation's claim (docs/cluster.md). */
  ownership: HlsOwnership;
  /** Encoder threads per run. */
  threads: number;
  /** A run nobody asked anything of for this long is stopped (REELSHELF_HLS_IDLE_SECONDS). */
  idleMs: number;
  /** A run below real time for this long is said to players. */
  slowWarningMs: number;
  /** Asked after every run: segments count towards the playback cache's bound. */
  onRunEnded: () => void;
  now: () => number;
  log?: { warn(obj: unknown, msg: string): void };
}

/**
 * The ffmpeg runs of HLS presentations on this node: at most one per presentation cluster-wide (each
 * runs under this node's claim of the presentation's row, and its segments are announced fenced by
 * the claim's epoch), each holding a conversion slot, started at a segment, restarted elsewhere on a
 * seek (the slot and the claim handed to the new run), and stopped when no player asked anything of
 * it for the idle time (a prewarm's run excepted); its end gives the claim back.
 */
export class HlsRuns {
  private nextId = 1;
  /** How many conversion runs this process started (tests: a prewarmed film starts none). */
  readonly counts = { runsStarted: 0 };
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly deps: HlsRunsDeps) {
    this.timer = setInterval(() => this.stopIdle(), Math.max(250, Math.min(5_000, deps.idleMs / 4)));
    this.timer.unref();
  }

  /** Running conversion runs (for health and tests). */
  running(): number {
    let n = 0;
    for (const p of this.deps.presentations.all()) if (p.job !== null && !p.job.ended) n++;
    return n;
  }

  /**
   * Starts a run of `p` at segment `startIndex` with `slot`, or, for a player (no slot given), with a
   * slot taken now.
   * @throws AppError 503 conversions_busy + Retry-After when a player finds every slot held
   */
  start(p: Presentation, startIndex: number, pinned: boolean, slot: ConversionSlot | null = null): Run {
    if (this.closed) {
      slot?.release();
      throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
    }
    const first = p.segments[startIndex];
    const claim = p.claim;
    if (first === undefined || claim === null) {
      slot?.release();
      throw new Error(
        first === undefined ? `segment ${startIndex} is outside the plan` : 'run started unclaimed',
      );
    }
    const held = slot ?? this.deps.slots.takeNow();
    const encodes = p.plan.video !== null && p.plan.video !== 'copy';
    const run = buildHlsRunArgs({
      source: p.source,
      capabilities: p.caps,
      plan: p.plan,
      startSeconds: first.start,
      keyframeTimes: encodes ? p.segments.slice(startIndex).map((seg) => seg.start) : [],
      threads: this.deps.threads,
    });
    const abort = new AbortController();
    this.counts.runsStarted++;
    const job: Run = {
      id: this.nextId++,
      start: startIndex,
      next: new Map(run.outputs.map((r) => [r, startIndex])),
      abort,
      ended: false,
      error: null,
      pinned,
      epoch: claim.epoch,
      claimLost: false,
      waiters: 0,
      speed: null,
      slowSince: null,
      slot: held,
      replaced: null,
      finished: Promise.resolve(),
    };
    p.job = job;
    const collectors = run.outputs.map(
      (rendition) =>
        new SegmentCollector(p.segments, job, (name, bytes) => this.stored(p, job, rendition, name, bytes)),
    );
    job.finished = this.deps.ffmpeg
      .run(run.args, {
        signal: abort.signal,
        outputs: run.outputs.length,
        onOutput: (i, chunk) => collectors[i]?.push(chunk),
        onStdout: (text) => this.readProgress(job, text),
      })
      .then(async () => {
        for (const c of collectors) c.end();
        await Promise.all(collectors.map((c) => c.flushed()));
      })
      .catch(async (err: unknown) => {
        await Promise.all(collectors.map((c) => c.flushed().catch(() => undefined)));
        if (!abort.signal.aborted) {
          job.error = err instanceof Error ? err.message : String(err);
          this.deps.log?.warn({ err, key: p.key, start: startIndex }, 'HLS conversion failed');
        }
      })
      .finally(() => {
        job.ended = true;
        if (job.replaced === null) {
          job.slot?.release();
          job.slot = null;
          // The claim goes back with the run (fenced: nothing when another node took it over).
          if (!job.claimLost && p.claim?.epoch === job.epoch) {
            p.claim = null;
            this.deps.ownership.release(p, job.epoch, job.error);
          }
        }
        notify(p);
        this.deps.onRunEnded();
      });
    return job;
  }

  /**
   * Claims the presentation's run for this node and starts it at `index` with `slot` or, for a player
   * (no slot given), a slot taken now. A claim another request of this node is making is waited for.
   * @returns false when another node holds the run (the slot is given back)
   * @throws AppError 503 conversions_busy + Retry-After when a player finds every slot held
   */
  async claimAndStart(
    p: Presentation,
    index: number,
    pinned: boolean,
    slot: ConversionSlot | null = null,
    takeFrom: string | null = null,
  ): Promise<boolean> {
    if (p.claiming !== null) {
      slot?.release();
      await p.claiming;
      return isRunning(p);
    }
    if (isRunning(p)) {
      slot?.release();
      return true;
    }
    let settle = () => {};
    p.claiming = new Promise<void>((resolve) => (settle = resolve));
    let held: ConversionSlot | null = slot;
    try {
      if (this.closed) throw new AppError('service_unavailable', { message: 'The server is shutting down.' });
      held ??= this.deps.slots.takeNow();
      if (!(await this.deps.ownership.claim(p, index, takeFrom))) return false;
      const claim = p.claim;
      try {
        this.start(p, index, pinned, held);
      } catch (err) {
        // Not started (shut down meanwhile): the claim goes back at once.
        if (claim !== null && p.claim === claim) {
          p.claim = null;
          this.deps.ownership.release(p, claim.epoch, null);
        }
        throw err;
      } finally {
        held = null; // start took it (and gave it back when it threw)
      }
      return true;
    } finally {
      held?.release();
      p.claiming = null;
      settle();
    }
  }

  /**
   * Stops the running run (if any) and starts one at `index`, on the stopped run's slot: a seek never
   * loses its slot to another film. When another request is already restarting it, waits for that
   * instead (the caller then looks again).
   */
  async restart(p: Presentation, index: number): Promise<void> {
    const old = p.job;
    if (old?.replaced) return old.replaced;
    if (old === null || old.ended) {
      await this.claimAndStart(p, index, false);
      return;
    }
    let settle = () => {};
    old.replaced = new Promise<void>((resolve) => (settle = resolve));
    try {
      old.abort.abort(new Error('restarted at another segment'));
      await old.finished;
      const slot = old.slot;
      old.slot = null;
      if (p.job !== old && p.job !== null && !p.job.ended)
        slot?.release(); // started meanwhile
      else if (p.claim === null || p.claim.epoch !== old.epoch) {
        // The claim went with the old run (taken over meanwhile): claim afresh, or leave it be.
        await this.claimAndStart(p, index, false, slot);
      } else {
        this.start(p, index, false, slot);
        this.deps.ownership.started(p, old.epoch, index);
      }
    } finally {
      settle();
    }
  }

  /**
   * This node's claim of `p` is gone (another node took the run over: this one was presumed dead):
   * its run stops at once and gives nothing back.
   */
  claimLost(p: Presentation): void {
    p.claim = null;
    const job = p.job;
    if (job === null || job.ended) return;
    job.claimLost = true;
    job.abort.abort(new Error('the run was taken over by another node'));
  }

  /** One finished segment (or init section) of a run: stored, announced (fenced), its waiters woken. */
  private async stored(p: Presentation, job: Run, rendition: string, name: string, bytes: Buffer) {
    if (job.claimLost) return;
    let announced: boolean;
    try {
      announced = await this.deps.segments.put(
        p,
        job.epoch,
        rendition,
        name,
        bytes,
        (fileName, index, size) =>
          this.deps.ownership.announce(p, job.epoch, rendition, index, size, fileName),
      );
    } catch (err) {
      // Not written or not announced (a full disk, the database unreachable, the session of an owner
      // frozen inside its announcement ended): the run stops with the reason instead of making
      // segments nobody is told of (and the collector's chain never rejects unheard).
      if (!job.ended && !job.abort.signal.aborted) {
        job.error ??= `a segment could not be stored: ${err instanceof Error ? err.message : String(err)}`;
        job.abort.abort(err);
      }
      return;
    }
    if (!announced) {
      // Refused: another node holds the run under a newer epoch. This one must stop writing.
      if (p.claim?.epoch === job.epoch) this.claimLost(p);
      else {
        job.claimLost = true;
        job.abort.abort(new Error('the run was taken over by another node'));
      }
      return;
    }
    if (name !== 'init.mp4') {
      const index = Number(name.slice(0, -'.m4s'.length));
      job.next.set(rendition, Math.max(job.next.get(rendition) ?? 0, index + 1));
    }
    notify(p);
  }

  private readProgress(job: Run, text: string): void {
    for (const match of text.matchAll(/^speed=\s*([\d.]+)x/gm)) {
      const speed = Number(match[1]);
      if (!Number.isFinite(speed)) continue;
      job.speed = speed;
      if (speed < 1) job.slowSince ??= this.deps.now();
      else job.slowSince = null;
    }
  }

  /** Runs nobody has asked anything of for the grace period stop (a player that went away). */
  stopIdle(): void {
    const now = this.deps.now();
    for (const p of this.deps.presentations.all()) {
      const job = p.job;
      if (job === null || job.ended || job.pinned || p.waiting > 0) continue;
      if (now - p.lastRequest > this.deps.idleMs)
        job.abort.abort(new Error('idle: no player asked for segments'));
    }
  }

  /**
   * The speed (1 = real time) of the conversion running for this file and device, if one runs: on
   * this node, else on the node that converts it (its heartbeat publishes it: an api node's players).
   */
  speed(fileId: number, device: string): number | null {
    for (const p of this.deps.presentations.all()) {
      if (p.fileId !== fileId || p.device !== device) continue;
      const job = p.job;
      if (job !== null && !job.ended && job.speed !== null) return job.speed;
    }
    return this.deps.ownership.publishedRun(fileId, device)?.speed ?? null;
  }

  /** This node's conversions for players with their speed, for its heartbeat (`hls_runs` of its load). */
  published(): PublishedRun[] {
    const now = this.deps.now();
    const out: PublishedRun[] = [];
    for (const p of this.deps.presentations.all()) {
      const job = p.job;
      if (job === null || job.ended || job.speed === null) continue;
      out.push({
        file_id: p.fileId,
        device: p.device,
        speed: job.speed,
        slow_ms: job.slowSince === null ? null : now - job.slowSince,
      });
    }
    return out;
  }

  /**
   * Stops the runs players of this file and device are watching (an admin stopped the play); a
   * prewarm's run goes on. A player asking again later starts a new run, as after an idle stop.
   */
  async stopPlayers(fileId: number, device: string): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const p of this.deps.presentations.all()) {
      const job = p.job;
      if (p.fileId !== fileId || p.device !== device || job === null || job.ended || job.pinned) continue;
      job.abort.abort(new Error('stopped by an admin'));
      runs.push(job.finished);
    }
    await Promise.all(runs);
  }

  /**
   * Warnings for a player of this file and device (a conversion that cannot keep up): this node's
   * run, else the one another node runs for it (as its heartbeat published it).
   */
  warnings(fileId: number, device: string): string[] {
    const out: string[] = [];
    let local = false;
    for (const p of this.deps.presentations.all()) {
      if (p.fileId !== fileId || p.device !== device) continue;
      const job = p.job;
      if (job === null || job.ended) continue;
      local = true;
      if (job.slowSince !== null && this.deps.now() - job.slowSince >= this.deps.slowWarningMs) {
        out.push(slowWarning(job.speed, 'on this server'));
      }
    }
    if (local) return out;
    const remote = this.deps.ownership.publishedRun(fileId, device);
    if (remote !== null && remote.slow_ms !== null && remote.slow_ms >= this.deps.slowWarningMs) {
      out.push(slowWarning(remote.speed, 'on the server converting it'));
    }
    return out;
  }

  /** Stops every run (shutdown) and gives their claims back. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const runs: Promise<void>[] = [];
    for (const p of this.deps.presentations.all()) {
      if (p.claiming !== null) runs.push(p.claiming);
      if (p.job !== null && !p.job.ended) {
        p.job.abort.abort(new Error('shutdown'));
        runs.push(p.job.finished);
      }
    }
    await Promise.all(runs);
    // A run being claimed while we stopped: started after the abort above.
    for (const p of this.deps.presentations.all()) {
      if (p.job !== null && !p.job.ended) {
        p.job.abort.abort(new Error('shutdown'));
        await p.job.finished;
      }
    }
    await this.deps.ownership.settled();
  }
}

/** What a player is told of a conversion that runs below real time (`where` it runs). */
function slowWarning(speed: number | null, where: string): string {
  return `The conversion runs at ${speed?.toFixed(2) ?? '?'}x real time ${where}: playback will pause to wait for it. Prepare the film ahead (prewarm) or choose a device that plays the file directly.`;
}
