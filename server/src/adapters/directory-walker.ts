import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import PQueue from 'p-queue';

export interface WalkedFile {
  /** Root-relative path, `/`-separated. */
  relativePath: string;
  absolutePath: string;
  sizeBytes: number;
  mtimeMs: number;
}

export interface WalkProblem {
  path: string;
  error: string;
}

export interface WalkOptions {
  /** Whether a file (by its root-relative path) is collected. */
  keepFile(relativePath: string, name: string): boolean;
  /** Whether a directory entry is skipped outright (hidden, system folders). */
  skipEntry(name: string): boolean;
  /** Whether a directory whose entries include this name is skipped whole (`.ignore`). */
  isIgnoreMarker(name: string): boolean;
  concurrency?: number;
  signal?: AbortSignal;
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'ELOOP') return 'symlink loop';
  if (e.code === 'ENOENT') return 'vanished during the scan';
  return e.message ?? String(err);
}

/**
 * Walks a folder tree with bounded concurrency. Symlinked folders are followed once: a folder whose
 * real path was already visited (a loop, or two links to one place) is reported, not re-entered.
 * Unreadable folders and files are reported as problems; the walk goes on.
 */
export async function walkDirectory(
  root: string,
  options: WalkOptions,
): Promise<{ files: WalkedFile[]; problems: WalkProblem[] }> {
  const files: WalkedFile[] = [];
  const problems: WalkProblem[] = [];
  const visited = new Set<string>();
  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const rel = (p: string) => relative(root, p).split(sep).join('/');

  const visitDir = async (dir: string): Promise<void> => {
    if (options.signal?.aborted === true) return;
    let real: string;
    let entries: Dirent[];
    try {
      real = await realpath(dir);
      if (visited.has(real)) {
        if (dir !== root)
          problems.push({ path: rel(dir), error: 'symlink loop or duplicate link: already scanned' });
        return;
      }
      visited.add(real);
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      problems.push({ path: rel(dir) || '.', error: reason(err) });
      return;
    }
    if (entries.some((e) => options.isIgnoreMarker(e.name))) return;
    for (const entry of entries) {
      if (options.skipEntry(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        queue.add(() => visitDir(full));
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        queue.add(() => visitEntry(full, entry));
      }
    }
  };

  const visitEntry = async (full: string, entry: Dirent): Promise<void> => {
    try {
      const s = await stat(full);
      if (s.isDirectory()) {
        if (entry.isSymbolicLink()) queue.add(() => visitDir(full));
        return;
      }
      if (!s.isFile()) return;
      const relativePath = rel(full);
      if (!options.keepFile(relativePath, entry.name)) return;
      files.push({ relativePath, absolutePath: full, sizeBytes: s.size, mtimeMs: Math.floor(s.mtimeMs) });
    } catch (err) {
      problems.push({ path: rel(full), error: reason(err) });
    }
  };

  await visitDir(root);
  await queue.onIdle();
  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return { files, problems };
}
