import { ARTIFACT_READ_REFRESH_MS } from '../../domain/playback/cache-use.ts';

export interface ArtifactReadersDeps {
  /** Writes the artifact's `last_used_at` (ArtifactRepository.touch through ArtifactService). */
  touch(key: string): Promise<void>;
  /** How often the open artifacts' rows are refreshed (default ARTIFACT_READ_REFRESH_MS). */
  refreshMs?: number;
  log?: { warn(obj: unknown, msg: string): void } | undefined;
}

/**
 * The progressive artifacts this node streams now. A stream of a whole film may be one response
 * lasting hours, so its start alone does not say it is still read: while any stream of an artifact
 * is open here, its row's `last_used_at` is written every few seconds, and once more when the last
 * one closes (its last use). Other nodes' cleaners read that row (`artifactUse`); this node's own
 * cleaner also asks {@link isOpen}, which needs no write to land.
 */
export class ArtifactReaders {
  private readonly open = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly deps: ArtifactReadersDeps) {}

  /** A stream of `key` opened; call the returned function once when it closes (ended or broken). */
  opened(key: string): () => void {
    this.open.set(key, (this.open.get(key) ?? 0) + 1);
    if (this.timer === null) {
      this.timer = setInterval(() => void this.refresh(), this.deps.refreshMs ?? ARTIFACT_READ_REFRESH_MS);
      this.timer.unref();
    }
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) {
        this.open.set(key, left);
        return;
      }
      this.open.delete(key);
      this.write(key);
      if (this.open.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  isOpen(key: string): boolean {
    return this.open.has(key);
  }

  /** Writes the row of every artifact open here (the timer's tick; tests call it directly). */
  async refresh(): Promise<void> {
    await Promise.all([...this.open.keys()].map((key) => this.write(key)));
  }

  private write(key: string): Promise<void> {
    return this.deps.touch(key).catch((err: unknown) => {
      this.deps.log?.warn({ err, key }, 'artifact use not recorded');
    });
  }
}
