import { randomBytes } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * The folders of the data dir the server writes into, one per kind of file. New kinds (HLS
 * segments, WebVTT subtitles) get an area here and inherit its path checks and accounting.
 */
export const STORAGE_AREAS = {
  /** Downloaded posters and backdrops and their resized copies. */
  artwork: 'artwork',
  /** Playback artifacts (remuxed/converted MP4s), bounded by REELSHELF_ARTIFACT_CACHE_MB. */
  artifacts: 'artifacts',
  /** HLS segments and playlists (next issue). */
  segments: 'segments',
  /** WebVTT subtitle files (next issue). */
  subtitles: 'subtitles',
  /** Device profiles a user adds as JSON files (read only: the server never writes here). */
  devices: 'devices',
} as const;

export type StorageArea = keyof typeof STORAGE_AREAS;

/** A path that would leave its area (`..`, an absolute path, a NUL byte, a symlink out). */
export class StoragePathError extends Error {
  override name = 'StoragePathError';
}

/** Byte range of a read, both ends inclusive (as in HTTP). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A file of an area, checked to lie inside it; `read` opens it. */
export interface StoredFile {
  /** Absolute real path (for tools that take a path: sharp, ffmpeg). */
  path: string;
  sizeBytes: number;
  mtimeMs: number;
  read(range?: ByteRange): Readable;
}

export interface AreaUsage {
  files: number;
  bytes: number;
}

/** Temporary files of `writeAtomic` carry this marker; `list` and `usage` skip them. */
const TEMP_MARK = '.tmp-';

/**
 * Everything the server writes under the data dir goes through here: one place that resolves and
 * checks paths (nothing outside an area is opened, written or removed), writes atomically
 * (write to a temporary file in the same folder, then rename, so a reader never sees half a file)
 * and accounts for sizes (the artifact LRU bound).
 *
 * Paths are given relative to an area, `/`-separated. Paths stored in the database are absolute;
 * {@link DataStore.locate} maps one back to its area after checking it.
 */
export class DataStore {
  readonly dataDir: string;

  constructor(dataDir: string) {
    this.dataDir = resolve(dataDir);
  }

  /** The absolute folder of an area (it may not exist yet). */
  dir(area: StorageArea): string {
    return join(this.dataDir, STORAGE_AREAS[area]);
  }

  /**
   * The absolute path of `relativePath` inside `area`.
   * @throws StoragePathError when the path is empty, absolute, holds a NUL byte or climbs out.
   */
  resolve(area: StorageArea, relativePath: string): string {
    if (relativePath === '' || relativePath.includes('\0') || isAbsolute(relativePath)) {
      throw new StoragePathError(`not a path inside the ${area} area: ${JSON.stringify(relativePath)}`);
    }
    const base = this.dir(area);
    const full = resolve(base, relativePath);
    if (!full.startsWith(base + sep)) {
      throw new StoragePathError(`path leaves the ${area} area: ${JSON.stringify(relativePath)}`);
    }
    return full;
  }

  /** The area-relative path of an absolute path that lies inside `area`, else null. */
  locate(area: StorageArea, absolutePath: string): string | null {
    const base = this.dir(area);
    const full = resolve(absolutePath);
    if (!full.startsWith(base + sep)) return null;
    return relative(base, full).split(sep).join('/');
  }

  /** Creates the area's folder (and the data dir) when missing. */
  async ensure(area: StorageArea): Promise<string> {
    const dir = this.dir(area);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /**
   * Writes a whole file: to a temporary file beside the target, then renamed over it. A crash
   * leaves the old file or the new one, never a half-written one.
   */
  async writeAtomic(
    area: StorageArea,
    relativePath: string,
    bytes: Uint8Array | string,
  ): Promise<StoredFile> {
    const target = this.resolve(area, relativePath);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    const written = await this.stat(area, relativePath);
    if (written === null) throw new Error(`${area}/${relativePath} vanished after it was written`);
    return written;
  }

  /**
   * Renames a file a tool wrote into the area (ffmpeg writes `<key>.part.mp4`) to its final name:
   * the atomic step of a write the server does not make itself.
   */
  async commit(area: StorageArea, fromRelative: string, toRelative: string): Promise<StoredFile> {
    const from = this.resolve(area, fromRelative);
    const to = this.resolve(area, toRelative);
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    const committed = await this.stat(area, toRelative);
    if (committed === null) throw new Error(`${area}/${toRelative} vanished after it was renamed`);
    return committed;
  }

  /**
   * The file at `relativePath`, or null when there is none (or it is not a regular file).
   * @throws StoragePathError when the path, or a symlink on it, leads out of the area.
   */
  async stat(area: StorageArea, relativePath: string): Promise<StoredFile | null> {
    const full = this.resolve(area, relativePath);
    let real: string;
    try {
      real = await realpath(full);
    } catch {
      return null;
    }
    const realBase = await realpath(this.dir(area)).catch(() => this.dir(area));
    if (!real.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativePath} resolves outside the ${area} area`);
    }
    const s = await stat(real).catch(() => null);
    if (s === null || !s.isFile()) return null;
    return {
      path: real,
      sizeBytes: s.size,
      mtimeMs: s.mtimeMs,
      read: (range) =>
        createReadStream(real, range === undefined ? {} : { start: range.start, end: range.end }),
    };
  }

  /** Removes a file; a file that is already gone is not an error. */
  async remove(area: StorageArea, relativePath: string): Promise<void> {
    await rm(this.resolve(area, relativePath), { force: true });
  }

  /** Names of the files directly in a folder of the area, sorted; [] when it does not exist. */
  async list(area: StorageArea, relativeDir = ''): Promise<string[]> {
    const dir = relativeDir === '' ? this.dir(area) : this.resolve(area, relativeDir);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile() && !e.name.includes(TEMP_MARK))
      .map((e) => e.name)
      .sort();
  }

  /** Files and bytes an area holds on disk, every subfolder included (temporary files too: they take space). */
  async usage(area: StorageArea): Promise<AreaUsage> {
    const total: AreaUsage = { files: 0, bytes: 0 };
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (e.isFile()) {
          const s = await stat(full).catch(() => null);
          if (s === null) continue;
          total.files++;
          total.bytes += s.size;
        }
      }
    };
    await walk(this.dir(area));
    return total;
  }

  /**
   * Reads every `*<suffix>` file directly in an area as UTF-8, synchronously: for the few small
   * files read once at start (device profiles), before anything is served. A file larger than
   * `maxBytes` or unreadable comes back with its error instead of its text.
   */
  readTextFilesSync(
    area: StorageArea,
    suffix: string,
    maxBytes: number,
  ): ({ name: string; text: string } | { name: string; error: string })[] {
    const dir = this.dir(area);
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(suffix) && !n.includes(TEMP_MARK));
    } catch {
      return [];
    }
    const realBase = realpathSync(dir);
    return names.sort().map((name) => {
      try {
        const real = realpathSync(this.resolve(area, name));
        if (!real.startsWith(realBase + sep)) return { name, error: 'resolves outside the data dir' };
        if (statSync(real).size > maxBytes) return { name, error: `larger than ${maxBytes} bytes` };
        return { name, text: readFileSync(real, 'utf8') };
      } catch (err) {
        return { name, error: err instanceof Error ? err.message : String(err) };
      }
    });
  }
}
