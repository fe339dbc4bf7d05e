import { hostname } from 'node:os';

/** This machine's name, as nodes record it (a process of the same host can be checked by pid). */
export function localHostName(): string {
  return hostname();
}

/**
 * Whether a process of this machine exists (signal 0 checks without sending anything; EPERM means
 * it exists under another user).
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
