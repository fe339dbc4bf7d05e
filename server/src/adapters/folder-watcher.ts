import { type FSWatcher, watch } from 'node:fs';
import { stat, statfs } from 'node:fs/promises';
import { sep } from 'node:path';

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

/**
 * Watches a folder tree with Node's recursive `fs.watch` (on Linux: one inotify watch per folder and
 * per file, set up by a synchronous walk of the tree when armed; new folders are followed). A folder
 * on a network file system is not watched (see NETWORK_FILE_SYSTEMS).
 */
export async function watchFolderTree(
  path: string,
  listener: FolderWatchListener,
): Promise<FolderWatchResult> {
  try {
    const network = networkFileSystem((await statfs(path)).type);
    if (network !== null) return { unwatched: `${path} is on a network file system (${network})` };
  } catch (err) {
    return { unwatched: `${path} cannot be read: ${(err as Error).message}` };
  }
  let watcher: FSWatcher;
  try {
    watcher = watch(path, { recursive: true }, (_event, filename) => {
      const name = typeof filename === 'string' ? filename : '';
      listener.change(sep === '/' ? name : name.split(sep).join('/'));
    });
  } catch (err) {
    return { unwatched: `${path} cannot be watched: ${(err as Error).message}` };
  }
  watcher.on('error', (err: Error) => listener.error(err));
  let closed = false;
  return {
    watch: {
      close() {
        if (closed) return;
        closed = true;
        watcher.close();
      },
    },
  };
}
