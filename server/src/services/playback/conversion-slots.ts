import { AppError } from '../../errors.ts';

/** One conversion slot, held while a conversion runs; `release` is idempotent. */
export interface ConversionSlot {
  release(): void;
}

/**
 * The one limit of conversions on this machine (REELSHELF_MAX_CONVERSIONS): HLS runs, prewarms and
 * progressive artifact builds all hold a slot while their ffmpeg runs.
 *
 * A player cannot wait (its request would time out behind a whole film's conversion), so it takes a
 * slot now or is told `conversions_busy` + Retry-After ({@link takeNow}); a prewarm or an artifact
 * build waits its turn, first come first served ({@link take}).
 *
 * Not p-queue (the project's queue for jobs): p-queue frees a slot a few microtasks after its task
 * settles, so a player restarting at a seek right after a run ended would find the slot still taken
 * and get a spurious 503 on a one-slot machine. Here a release is counted at once, and handed
 * straight to the first waiter, so nothing can take a slot between the two.
 */
export class ConversionSlots {
  private held = 0;
  private readonly waiters: { grant: (slot: ConversionSlot) => void }[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`max conversions must be ≥ 1, got ${max}`);
  }

  /** Slots held now (running conversions). */
  get inUse(): number {
    return this.held;
  }

  /** Conversions waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Calls `listener` after every change of {@link inUse} or {@link queued} (the trickplay job stops
   * its ffmpeg while a viewer's conversion runs); returns the unsubscribe.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    // A listener's failure must never keep a slot from being released or handed on.
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        /* the listener's own concern */
      }
    }
  }

  /** A slot now, or null when every slot is held (waiters never exist while a slot is free). */
  tryTake(): ConversionSlot | null {
    if (this.held >= this.max) return null;
    this.held++;
    this.changed();
    return this.slot();
  }

  /**
   * A player's slot: now, or 503 `conversions_busy` with Retry-After.
   * @throws AppError conversions_busy when every slot is held
   */
  takeNow(): ConversionSlot {
    const slot = this.tryTake();
    if (slot !== null) return slot;
    throw new AppError('conversions_busy', {
      status: 503,
      message: `This server already runs ${this.max} conversion(s), its limit.`,
      hint: 'Retry shortly, or prepare the film ahead (prewarm) so it plays without converting.',
      headers: { 'retry-after': '10' },
    });
  }

  /** A slot when one is free, in the order asked; rejects (and leaves the queue) when `signal` aborts. */
  take(signal?: AbortSignal): Promise<ConversionSlot> {
    if (signal?.aborted === true) return Promise.reject(reasonOf(signal));
    const now = this.tryTake();
    if (now !== null) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (slot: ConversionSlot) => {
          signal?.removeEventListener('abort', aborted);
          resolve(slot);
        },
      };
      const aborted = () => {
        const at = this.waiters.indexOf(waiter);
        if (at !== -1) this.waiters.splice(at, 1);
        reject(reasonOf(signal));
        this.changed();
      };
      signal?.addEventListener('abort', aborted, { once: true });
      this.waiters.push(waiter);
      this.changed();
    });
  }

  private slot(): ConversionSlot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        // Handed over, not freed: the count stays and nobody can slip in between.
        if (next !== undefined) next.grant(this.slot());
        else this.held--;
        this.changed();
      },
    };
  }
}

function reasonOf(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error('aborted');
}
