import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Marks the process that owns the data dir's background jobs. A second process on the same data dir
 * (the CLI while the server runs) must not "recover" jobs the first one is still running.
 */
export class ProcessLock {
  private readonly file: string;
  private owned = false;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'reelshelf.pid');
  }

  /** True when this process now owns the data dir (no other live owner). */
  acquire(): boolean {
    try {
      const pid = Number(readFileSync(this.file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return false;
    } catch {
      // no lock file yet
    }
    writeFileSync(this.file, `${process.pid}\n`, { mode: 0o600 });
    this.owned = true;
    return true;
  }

  release(): void {
    if (!this.owned) return;
    this.owned = false;
    rmSync(this.file, { force: true });
  }
}
