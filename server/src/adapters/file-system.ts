import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { PathTarget } from '../domain/library-path.ts';

export interface FileStat {
  sizeBytes: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** Byte range of a read, both ends inclusive (as in HTTP). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An open file read at positions into buffers the caller owns and reuses (the fast serving path). */
export interface FileReader {
  /** Reads up to `length` bytes at `position` into the start of `buffer`; 0 at the end of the file. */
  read(buffer: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * A file whose real path was checked by the adapter that made it (DataStore: inside its area of the
 * data dir; MediaPathService over FileSystemAdapter: inside its library root). The HTTP layer reads
 * bytes only through one of these, never from a path of its own.
 */
export interface CheckedFile {
  /** Absolute real path (for tools that take a path: ffmpeg), and for naming it in logs. */
  path: string;
  sizeBytes: number;
  mtimeMs: number;
  /** A stream of the file, whole or a byte range (Node's default 64 KiB chunks). */
  read(range?: ByteRange): Readable;
  /** Opens the file for positional reads (each open is closed by its caller). */
  open(): Promise<FileReader>;
}

/** Opens `path` for positional reads. */
export async function openReader(path: string): Promise<FileReader> {
  const handle = await open(path, 'r');
  return {
    read: async (buffer, length, position) => (await handle.read(buffer, 0, length, position)).bytesRead,
    close: () => handle.close(),
  };
}

/** The CheckedFile of a real path its caller has just checked and stat'ed. */
export function checkedFileAt(realPath: string, sizeBytes: number, mtimeMs: number): CheckedFile {
  return {
    path: realPath,
    sizeBytes,
    mtimeMs,
    read: (range) =>
      createReadStream(realPath, range === undefined ? {} : { start: range.start, end: range.end }),
    open: () => openReader(realPath),
  };
}

/**
 * The regular files directly in a folder that ships with the server (the pages' CSS and scripts),
 * read whole, synchronously, once at start, sorted by name. No request ever names a path here.
 */
export function readBundledFilesSync(dir: string): { name: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort()
    .map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}

/**
 * One file of an installed npm package (`hls.js/dist/hls.min.js`), found as Node resolves the
 * specifier from the server's package and read whole, synchronously, once at start.
 */
export function readPackageFileSync(specifier: string): Buffer {
  return readFileSync(createRequire(import.meta.url).resolve(specifier));
}

/** What a path leads to, with the size and mtime of a file found there. */
export type PathFacts = PathTarget & { sizeBytes?: number; mtimeMs?: number };

/**
 * What a path leads to once its symlinks are resolved (the facts domain/library-path.ts decides
 * on): its real path and kind, or why there is none (missing, a dangling link, a loop). The realpath
 * and the stat go to the thread pool together; lstat only when they fail, to tell a dangling link
 * from nothing. Other failures (permission denied) are thrown.
 */
export async function pathFacts(path: string): Promise<PathFacts> {
  try {
    const [real, s] = await Promise.all([realpath(path), stat(path)]);
    const kind = s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other';
    return { state: 'present', realPath: real, kind, sizeBytes: s.size, mtimeMs: Math.floor(s.mtimeMs) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { state: 'loop' };
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    const link = await lstat(path).catch(() => null);
    return link?.isSymbolicLink() === true ? { state: 'dangling' } : { state: 'missing' };
  }
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

  /** See {@link pathFacts}; a path that cannot be reached (permission denied) counts as missing. */
  facts(path: string): Promise<PathFacts> {
    return pathFacts(path).catch((): PathFacts => ({ state: 'missing' }));
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
}
