import { createReadStream } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';

export interface FileStat {
  sizeBytes: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** Filesystem reads the services need, behind one seam. */
export class FileSystemAdapter {
  /** stat() that answers null for a path that does not exist (or cannot be reached). */
  async stat(path: string): Promise<FileStat | null> {
    try {
      const s = await stat(path);
      return {
        sizeBytes: s.size,
        mtimeMs: Math.floor(s.mtimeMs),
        isFile: s.isFile(),
        isDirectory: s.isDirectory(),
      };
    } catch {
      return null;
    }
  }

  /** The real path (symlinks resolved), or null when it does not exist. */
  async realpath(path: string): Promise<string | null> {
    try {
      return await realpath(path);
    } catch {
      return null;
    }
  }

  /** Reads a small text file (UTF-8), at most `maxBytes`; null when absent, unreadable or larger. */
  async read(path: string, maxBytes: number): Promise<string | null> {
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(path, 'r');
      const s = await handle.stat();
      if (!s.isFile() || s.size > maxBytes) return null;
      const buffer = Buffer.alloc(s.size);
      await handle.read(buffer, 0, s.size, 0);
      return buffer.toString('utf8');
    } catch {
      return null;
    } finally {
      await handle?.close();
    }
  }

  /** Names of the entries of a folder, or null when it cannot be read. */
  async list(dir: string): Promise<string[] | null> {
    try {
      return await readdir(dir);
    } catch {
      return null;
    }
  }

  /**
   * Opens a file for reading, optionally a byte range (both ends inclusive). Callers pass a path
   * already checked (MediaPathService for media, DataStore for the data dir).
   */
  openRead(path: string, range?: { start: number; end: number }): Readable {
    return createReadStream(path, range === undefined ? {} : { start: range.start, end: range.end });
  }
}
