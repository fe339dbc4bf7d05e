import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { type ByteRange, type CheckedFile, checkedFileAt, type FileReader } from './file-system.ts';

export type { ByteRange } from './file-system.ts';

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
  /** WebVTT conversions of subtitle tracks (services/playback/subtitle-vtt.service.ts), one folder per content. */
  subtitles: 'subtitles',
  /**
   * Seek thumbnails: `<fileId>/<generation>/` per made set (sheets, Roku sheets, BIF), built in
   * `<fileId>/<job>.part/` and renamed into place (services/trickplay/trickplay.service.ts).
   */
  trickplay: 'trickplay',
  /** Device profiles a user adds as JSON files (read only: the server never writes here). */
  devices: 'devices',
} as const;

export type StorageArea = keyof typeof STORAGE_AREAS;

/** A path that would leave its area (`..`, an absolute path, a NUL byte, a symlink out). */
export class StoragePathError extends Error {
  override name = 'StoragePathError';
}

/** A file of an area, checked (real path, symlinks resolved) to lie inside it. */
export type StoredFile = CheckedFile;

/**
 * A file a tool is still writing (ffmpeg's `<key>.part.mp4`), renamed to its final name when done:
 * read while it grows, through the same checks as every other file of the area.
 */
export interface GrowingFile {
  /** Bytes written so far; null when the part file is gone (renamed at the end, or removed). */
  size(): Promise<number | null>;
  /** Opens for positional reads: the part file, or the finished file when it was just renamed. */
  open(): Promise<FileReader>;
  /** A stream of bytes `range` of what is written (the part file, or the finished one). */
  read(range: ByteRange): Promise<Readable>;
}

export interface AreaUsage {
  files: number;
  bytes: number;
}

export interface FolderUsage extends AreaUsage {
  /** The newest modification time of a file below it (0 when it holds none). */
  newestMtimeMs: number;
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
   * The real path of an area's folder, checked to lie inside the data dir's real path (an area that
   * is a symlink elsewhere is refused); null when the folder does not exist and `create` is false.
   */
  private async realArea(area: StorageArea, create: boolean): Promise<string | null> {
    if (create) await this.ensure(area);
    const [realData, realBase] = await Promise.all([
      realpath(this.dataDir).catch(() => null),
      realpath(this.dir(area)).catch(() => null),
    ]);
    if (realData === null || realBase === null) return null;
    if (!realBase.startsWith(realData + sep)) {
      throw new StoragePathError(`the ${area} area resolves outside the data dir`);
    }
    return realBase;
  }

  /**
   * The real folder a file of the area is written into, created when missing. Every existing folder
   * on the way is checked with symlinks resolved before anything is created, and the folder again
   * after: a symlinked subfolder (`artwork/12 → /elsewhere`) never receives a write.
   */
  private async writableFolder(area: StorageArea, full: string): Promise<string> {
    const realBase = await this.realArea(area, true);
    if (realBase === null) throw new Error(`the ${area} area could not be created`);
    const folder = dirname(full);
    const check = (real: string) => {
      if (real !== realBase && !real.startsWith(realBase + sep)) {
        throw new StoragePathError(`${relative(this.dir(area), full)} resolves outside the ${area} area`);
      }
      return real;
    };
    // The nearest folder that exists (the area itself at worst, which exists now).
    let existing = folder;
    let real = await realpath(existing).catch(() => null);
    while (real === null && existing !== this.dir(area)) {
      existing = dirname(existing);
      real = await realpath(existing).catch(() => null);
    }
    check(real ?? realBase);
    await mkdir(folder, { recursive: true });
    return check(await realpath(folder));
  }

  /** Refuses a path whose last part is a symlink: a rename or remove would act on the link. */
  private async refuseSymlink(area: StorageArea, relativePath: string, path: string): Promise<void> {
    const s = await lstat(path).catch(() => null);
    if (s?.isSymbolicLink() === true) {
      throw new StoragePathError(`${area}/${relativePath} is a symlink; the data dir holds only files`);
    }
  }

  /**
   * Writes a whole file: to a temporary file beside the target, then renamed over it. A crash
   * leaves the old file or the new one, never a half-written one.
   * @throws StoragePathError when the path, or a symlinked folder on it, leads out of the area.
   */
  async writeAtomic(
    area: StorageArea,
    relativePath: string,
    bytes: Uint8Array | string,
  ): Promise<StoredFile> {
    const full = this.resolve(area, relativePath);
    const target = join(await this.writableFolder(area, full), basename(full));
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
   * @throws StoragePathError when either path leads out of the area or the file is a symlink.
   */
  async commit(area: StorageArea, fromRelative: string, toRelative: string): Promise<StoredFile> {
    const fromFull = this.resolve(area, fromRelative);
    const toFull = this.resolve(area, toRelative);
    const from = join(await this.writableFolder(area, fromFull), basename(fromFull));
    await this.refuseSymlink(area, fromRelative, from);
    const to = join(await this.writableFolder(area, toFull), basename(toFull));
    await rename(from, to);
    const committed = await this.stat(area, toRelative);
    if (committed === null) throw new Error(`${area}/${toRelative} vanished after it was renamed`);
    return committed;
  }

  /**
   * Creates a folder of the area (and those on the way) with the checks of {@link writeAtomic}, and
   * returns its real path: where a tool that takes a folder (ffmpeg's image2 output) writes.
   * @throws StoragePathError when the path, or a symlinked folder on it, leads out of the area
   */
  async makeFolder(area: StorageArea, relativeDir: string): Promise<string> {
    const full = this.resolve(area, relativeDir);
    return this.writableFolder(area, join(full, '.folder'));
  }

  /**
   * Renames a folder a tool filled (`<file>/<job>.part` → `<file>/<job>`): the atomic last step of a
   * set of files, so a reader sees all of them or none. Same checks as {@link commit}: both paths
   * inside the area with symlinks resolved, the source a real folder (not a symlink), the target
   * absent (a rename never replaces a set someone may be reading).
   * @throws StoragePathError when either path leads out of the area or the source is not a folder
   */
  async commitFolder(area: StorageArea, fromRelative: string, toRelative: string): Promise<string> {
    const fromFull = this.resolve(area, fromRelative);
    const toFull = this.resolve(area, toRelative);
    const from = join(await this.writableFolder(area, fromFull), basename(fromFull));
    const info = await lstat(from).catch(() => null);
    if (info === null || !info.isDirectory()) {
      throw new StoragePathError(`${area}/${fromRelative} is not a folder of the area`);
    }
    const to = join(await this.writableFolder(area, toFull), basename(toFull));
    if ((await lstat(to).catch(() => null)) !== null) {
      throw new StoragePathError(`${area}/${toRelative} exists already`);
    }
    await rename(from, to);
    return to;
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
    const realBase = await this.realArea(area, false);
    if (realBase === null) return null;
    if (!real.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativePath} resolves outside the ${area} area`);
    }
    const s = await stat(real).catch(() => null);
    if (s === null || !s.isFile()) return null;
    return checkedFileAt(real, s.size, s.mtimeMs);
  }

  /**
   * The file a tool is writing at `partRelative`, renamed to `finalRelative` when it is done. Each
   * read goes through {@link DataStore.stat} (so through its checks) at the moment it is made.
   */
  growing(area: StorageArea, partRelative: string, finalRelative: string): GrowingFile {
    this.resolve(area, partRelative);
    this.resolve(area, finalRelative);
    const current = async (): Promise<StoredFile> => {
      const file = (await this.stat(area, partRelative)) ?? (await this.stat(area, finalRelative));
      if (file === null) throw new Error(`${area}/${partRelative} is gone`);
      return file;
    };
    return {
      size: async () => (await this.stat(area, partRelative))?.sizeBytes ?? null,
      // The part file may be renamed between the stat and the open: then the finished file is opened.
      open: async () =>
        (await current()).open().catch(async () => {
          const done = await this.stat(area, finalRelative);
          if (done === null) throw new Error(`${area}/${partRelative} is gone`);
          return done.open();
        }),
      read: async (range) => (await current()).read(range),
    };
  }

  /**
   * Removes a file; a file that is already gone is not an error.
   * @throws StoragePathError when a folder on the path leads out of the area, or the file is a symlink.
   */
  async remove(area: StorageArea, relativePath: string): Promise<void> {
    const full = this.resolve(area, relativePath);
    const realBase = await this.realArea(area, false);
    if (realBase === null) return;
    const folder = await realpath(dirname(full)).catch(() => null);
    if (folder === null) return;
    if (folder !== realBase && !folder.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativePath} resolves outside the ${area} area`);
    }
    const path = join(folder, basename(full));
    await this.refuseSymlink(area, relativePath, path);
    await rm(path, { force: true });
  }

  /** Names of the files directly in a folder of the area, sorted; [] when it does not exist. */
  async list(area: StorageArea, relativeDir = ''): Promise<string[]> {
    const realBase = await this.realArea(area, false);
    if (realBase === null) return [];
    const dir =
      relativeDir === '' ? realBase : await realpath(this.resolve(area, relativeDir)).catch(() => null);
    if (dir === null) return [];
    if (dir !== realBase && !dir.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativeDir} resolves outside the ${area} area`);
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile() && !e.name.includes(TEMP_MARK))
      .map((e) => e.name)
      .sort();
  }

  /** Names of the folders directly in a folder of the area, sorted (HLS keeps one per presentation). */
  async listFolders(area: StorageArea, relativeDir = ''): Promise<string[]> {
    const realBase = await this.realArea(area, false);
    if (realBase === null) return [];
    const dir =
      relativeDir === '' ? realBase : await realpath(this.resolve(area, relativeDir)).catch(() => null);
    if (dir === null) return [];
    if (dir !== realBase && !dir.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativeDir} resolves outside the ${area} area`);
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  }

  /**
   * Removes a folder of the area with everything in it; one that is gone is not an error.
   * @throws StoragePathError when the folder is the area itself, a symlink, or resolves outside it.
   */
  async removeFolder(area: StorageArea, relativeDir: string): Promise<void> {
    const full = this.resolve(area, relativeDir);
    const realBase = await this.realArea(area, false);
    if (realBase === null) return;
    const info = await lstat(full).catch(() => null);
    if (info === null) return;
    if (!info.isDirectory()) throw new StoragePathError(`${area}/${relativeDir} is not a folder of the area`);
    const real = await realpath(full);
    if (real === realBase || !real.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativeDir} resolves outside the ${area} area`);
    }
    // rm does not follow symlinks inside the tree: a link planted there is removed, not its target.
    await rm(real, { recursive: true, force: true });
  }

  /** Files and bytes an area holds on disk, every subfolder included (temporary files too: they take space). */
  async usage(area: StorageArea): Promise<AreaUsage> {
    const { files, bytes } = await this.measure(area);
    return { files, bytes };
  }

  /**
   * Files, bytes and the newest modification time below a folder of the area (the whole area by
   * default; a folder that is gone is empty): the playback cache sizes and dates each HLS
   * presentation's folder with it.
   */
  async measure(area: StorageArea, relativeDir = ''): Promise<FolderUsage> {
    const total: FolderUsage = { files: 0, bytes: 0, newestMtimeMs: 0 };
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
          total.newestMtimeMs = Math.max(total.newestMtimeMs, s.mtimeMs);
        }
      }
    };
    // Entries are not followed through symlinks (Dirent): only what the area itself holds counts.
    const realBase = await this.realArea(area, false);
    if (realBase === null) return total;
    if (relativeDir === '') {
      await walk(realBase);
      return total;
    }
    const dir = await realpath(this.resolve(area, relativeDir)).catch(() => null);
    if (dir === null) return total;
    if (dir === realBase || !dir.startsWith(realBase + sep)) {
      throw new StoragePathError(`${area}/${relativeDir} resolves outside the ${area} area`);
    }
    await walk(dir);
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
    if (!realBase.startsWith(realpathSync(this.dataDir) + sep)) {
      return names.sort().map((name) => ({ name, error: `the ${area} area resolves outside the data dir` }));
    }
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
