import {
  closeSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Lock files this process holds: a second ProcessLock on the same data dir in one process loses. */
const heldHere = new Set<string>();

/** A lock file's owner as read from one open file: its inode and the pid written in it. */
interface Holder {
  ino: number;
  /** null when the file holds no pid: nothing yet, or something that is not a pid. */
  pid: number | null;
  /** Nothing written yet: a `wx` create whose pid is not written, or a crash right after it. */
  empty: boolean;
  ageMs: number;
}

/** An empty lock file younger than this is a create in progress, older a crash between create and write. */
const UNWRITTEN_GRACE_MS = 5_000;

/** The holder of `path`, or null when there is no such file (released meanwhile). */
function readHolder(path: string): Holder | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    const buffer = Buffer.alloc(32);
    const text = buffer
      .subarray(0, readSync(fd, buffer, 0, buffer.length, 0))
      .toString('utf8')
      .trim();
    const pid = Number(text);
    return {
      ino: stat.ino,
      pid: Number.isInteger(pid) && pid > 0 ? pid : null,
      empty: text === '',
      ageMs: Date.now() - stat.mtimeMs,
    };
  } finally {
    closeSync(fd);
  }
}

/** Whether the holder no longer owns the lock: its process is gone (or never wrote itself in). */
function isStale(holder: Holder, path: string): boolean {
  if (holder.empty) return holder.ageMs > UNWRITTEN_GRACE_MS;
  if (holder.pid === null) return true;
  // Our own pid in a file we do not hold: a previous life of this pid (a container restarted).
  if (holder.pid === process.pid) return !heldHere.has(path);
  return !alive(holder.pid);
}

/** Creates `path` holding our pid, only if no file is there (`wx`: one creator wins, atomically). */
function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Replaces `path` with a file holding our pid, in one rename (a reader sees the old file or ours). */
function replace(path: string): void {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  if (!create(temporary)) throw new Error(`${temporary} exists`);
  try {
    renameSync(temporary, path);
  } catch (err) {
    unlinkSync(temporary);
    throw err;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Takes `path` for this process: created when absent; taken over when its holder is dead. A takeover
 * is claimed first by creating `<path>.claim-<inode>` the same way (so of all the processes that saw
 * the same stale file, one replaces it), and the claimer checks the file is still that inode before
 * replacing it, so a lock another process has just taken is never replaced. A claimer that died
 * leaves a stale claim, which is taken over by the same rule one level down.
 */
function take(path: string, depth: number): boolean {
  // Each turn ends in a win, a live holder, or a change made by another process: a few suffice.
  for (let turn = 0; turn < 8; turn++) {
    if (create(path)) return true;
    const holder = readHolder(path);
    if (holder === null) continue; // released between our create and our read
    if (!isStale(holder, path)) return false;
    if (depth >= 4) return false;
    const claim = `${path}.claim-${holder.ino}`;
    if (!take(claim, depth + 1)) return false; // a live process is taking this stale file over
    try {
      const now = statSync(path, { throwIfNoEntry: false });
      if (now?.ino === holder.ino) {
        replace(path);
        return true;
      }
      // Replaced or removed since we read it: look again.
    } finally {
      removeQuietly(claim);
    }
  }
  return false;
}

/**
 * Marks the process that owns the data dir's background jobs. A second process on the same data dir
 * (the CLI while the server runs, or a second server started at the same moment) must not "recover"
 * jobs the first one is still running. Taking the lock is atomic (`open(…, 'wx')`, and a takeover of
 * a dead holder's file by a claimed rename), so of processes starting together exactly one wins.
 */
export class ProcessLock {
  private readonly file: string;
  private owned = false;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'reelshelf.pid');
  }

  /** True when this process now owns the data dir (no other live owner). */
  acquire(): boolean {
    if (this.owned) return true;
    if (heldHere.has(this.file) || !take(this.file, 0)) return false;
    heldHere.add(this.file);
    this.owned = true;
    return true;
  }

  /** Gives the data dir up: the file is removed if it is still ours. */
  release(): void {
    if (!this.owned) return;
    this.owned = false;
    heldHere.delete(this.file);
    if (readHolder(this.file)?.pid === process.pid) removeQuietly(this.file);
  }
}
