/**
 * Writes a request need not wait for (a session's `last_seen_at`, a key's last use): kept by key
 * (the newest per key wins), written one after another in the background, so a request is never
 * held behind a transaction for them. A failed write is reported to `onError` and dropped: it
 * records a use, nothing depends on its success. `settle` waits for them (before the database
 * closes).
 */
export class DeferredWrites<K, V> {
  private readonly pending = new Map<K, V>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly write: (key: K, value: V) => Promise<void>,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** The value waiting to be written for `key`, if any (a row read meanwhile is older than it). */
  pendingFor(key: K): V | undefined {
    return this.pending.get(key);
  }

  schedule(key: K, value: V): void {
    this.pending.set(key, value);
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain(): Promise<void> {
    // Let the request that scheduled the write answer first.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const next = this.pending.entries().next();
      if (next.done === true) return;
      const [key, value] = next.value;
      try {
        await this.write(key, value);
      } catch (err) {
        this.onError(err);
      }
      // A newer value scheduled while this one was written stays pending.
      if (this.pending.get(key) === value) this.pending.delete(key);
    }
  }

  async settle(): Promise<void> {
    while (this.running !== null) await this.running;
  }
}
