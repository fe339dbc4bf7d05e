import { type Dirent, type FSWatcher, type Stats, watch } from 'node:fs';
import { lstat, readdir, stat, statfs } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** A folder tree being watched. */
export interface FolderWatch {
  /** Stops watching (every handle is released at once; idempotent). */
  close(): void;
}

export interface FolderWatchListener {
  /** Something under the folder changed: its path relative to the folder, `/`-separated ('' = the folder itself). */
  change(relativePath: string): void;
  /** The watcher reported a problem (e.g. the inotify watch limit); the watch goes on with what it has. */
  error(err: Error): void;
}

/** Either a watch, or why the folder is not watched (its changes are then found by periodic rescans only). */
export type FolderWatchResult = { watch: FolderWatch } | { unwatched: string };

/**
 * Network file systems by `statfs` magic number (linux/magic.h): inotify sees only the changes made
 * through this machine's mount there, and arming a watch reads the whole tree synchronously over the
 * network, so such folders are left to the periodic rescan.
 */
const NETWORK_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'NFS'],
  [0x517b, 'SMB'],
  [0xff534d42, 'CIFS'],
  [0xfe534d42, 'SMB2'],
  [0x564c, 'NCP'],
  [0x5346414f, 'AFS'],
  [0x00c36400, 'Ceph'],
]);

/** The name of a network file system type (statfs `type`), or null for a local one. */
export function networkFileSystem(type: number): string | null {
  return NETWORK_FILE_SYSTEMS.get(type) ?? null;
}

/**
 * Which folder is at `path` now (device and inode), or null when there is no readable folder there.
 * A different answer than before means the folder was replaced, unmounted or mounted again.
 */
export async function folderIdentity(path: string): Promise<string | null> {
  try {
    const s = await stat(path, { bigint: true });
    return s.isDirectory() ? `${s.dev}:${s.ino}` : null;
  } catch {
    return null;
  }
}

/** Skips folders the scan does not walk either (hidden, system): nothing under them is watched. */
export interface FolderWatchOptions {
  skipFolder(name: string): boolean;
  /** Aborting it while the tree is being armed stops the walk and releases every watch at once. */
  signal?: AbortSignal;
}

/**
 * Watches a folder tree: one non-recursive `fs.watch` (inotify) per folder, armed by an asynchronous
 * walk and kept in step with the tree (a folder that appears is watched and everything in it reported
 * as changed; one that goes is unwatched with everything under it). Folders reached through a
 * symbolic link are not followed, and a folder on a network file system is not watched at all (see
 * NETWORK_FILE_SYSTEMS): the periodic rescan finds those changes. Resolves once every folder is watched.
 *
 * (Node 20's recursive `fs.watch` on Linux was measured and not used: it holds one inotify watch per
 * file as well as per folder, walks the tree synchronously on the event loop, and an unreadable
 * folder silently leaves its later siblings unwatched.)
 */
export async function watchFolderTree(
  path: string,
  listener: FolderWatchListener,
  options: FolderWatchOptions,
): Promise<FolderWatchResult> {
  try {
    const network = networkFileSystem((await statfs(path)).type);
    if (network !== null) return { unwatched: `${path} is on a network file system (${network})` };
  } catch (err) {
    return { unwatched: `${path} cannot be read: ${(err as Error).message}` };
  }
  const tree = new FolderTree(path, listener, options);
  const abort = () => tree.close();
  const stopped = () => options.signal?.aborted === true;
  options.signal?.addEventListener('abort', abort);
  try {
    if (stopped()) throw new Error('stopped');
    await tree.arm();
    if (stopped()) throw new Error('stopped');
  } catch (err) {
    tree.close();
    return { unwatched: `${path} cannot be watched: ${(err as Error).message}` };
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  return { watch: tree };
}

class FolderTree implements FolderWatch {
  /** Watched folders by root-relative path ('' = the root). */
  private readonly folders = new Map<string, FSWatcher>();
  private readonly reported = new Set<string>();
  private identity: string | null = null;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly listener: FolderWatchListener,
    private readonly options: FolderWatchOptions,
  ) {}

  async arm(): Promise<void> {
    this.identity = await folderIdentity(this.root);
    await this.watchFolder('', false);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const watcher of this.folders.values()) watcher.close();
    this.folders.clear();
  }

  private absolute(relativePath: string): string {
    return relativePath === '' ? this.root : join(this.root, relativePath);
  }

  /** Watches a folder, then what is in it; `announce`: report every entry (a folder that just appeared). */
  private async watchFolder(relativePath: string, announce: boolean): Promise<void> {
    if (this.closed || this.folders.has(relativePath)) return;
    const absolute = this.absolute(relativePath);
    let watcher: FSWatcher;
    try {
      watcher = watch(absolute, (event, name) => this.event(relativePath, event, name));
    } catch (err) {
      if (relativePath === '') throw err;
      this.problem(err as NodeJS.ErrnoException);
      return;
    }
    watcher.on('error', (err: NodeJS.ErrnoException) => {
      this.unwatch(relativePath);
      this.problem(err);
    });
    this.folders.set(relativePath, watcher);
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.problem(err as NodeJS.ErrnoException);
      return;
    }
    for (const entry of entries) {
      if (this.closed || this.folders.get(relativePath) !== watcher) return;
      const child = relativePath === '' ? entry.name : `${relativePath}/${entry.name}`;
      if (announce) this.listener.change(child);
      if (entry.isDirectory() && !this.options.skipFolder(entry.name))
        await this.watchFolder(child, announce);
    }
  }

  /** Stops watching a folder and everything under it (a folder's subfolders are watched only after it). */
  private unwatch(relativePath: string): void {
    if (!this.folders.has(relativePath)) return;
    const prefix = `${relativePath}/`;
    for (const [path, watcher] of this.folders) {
      if (path === relativePath || path.startsWith(prefix)) {
        watcher.close();
        this.folders.delete(path);
      }
    }
  }

  private event(folder: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      this.listener.change(folder);
      return;
    }
    const child = folder === '' ? String(name) : `${folder}/${String(name)}`;
    this.listener.change(child);
    // A 'rename' is an entry created, removed or moved (in or out): folders are followed.
    if (event === 'rename') void this.follow(folder, child, String(name));
  }

  private async follow(folder: string, child: string, name: string): Promise<void> {
    const stat = await lstatOrNull(this.absolute(child));
    if (this.closed) return;
    if (stat?.isDirectory() === true) {
      if (!this.options.skipFolder(name)) await this.watchFolder(child, true);
      return;
    }
    this.unwatch(child);
    if (folder === '' && stat === null && name === basename(this.root)) {
      // The root itself reports its removal or move under its own name.
      if ((await folderIdentity(this.root)) !== this.identity && !this.closed) this.listener.change('');
    }
  }

  /** Reports a problem once per kind (a watch limit reached fails every folder after it). */
  private problem(err: NodeJS.ErrnoException): void {
    const kind = err.code ?? err.message;
    if (this.reported.has(kind)) return;
    this.reported.add(kind);
    this.listener.error(
      err.code === 'ENOSPC'
        ? new Error(
            `inotify watch limit reached under ${this.root} (raise fs.inotify.max_user_watches): some folders are found by the periodic rescan only`,
          )
        : err,
    );
  }
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}
