import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import PQueue from 'p-queue';
import {
  type LibraryPathFacts,
  type PathTarget,
  decideLibraryPath,
  describeLibraryPath,
} from '../domain/library-path.ts';
import { pathFacts } from './file-system.ts';

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
  /**
   * The symlink rule (domain/library-path.ts): whether links out of the root are followed, and the
   * data dir that is never entered (null only for tools without one).
   */
  links: { followSymlinks: boolean; dataDir: string | null };
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

/** A folder being walked: its path under the root, its real path, and the real folders above it. */
interface Folder {
  path: string;
  real: string;
  /** Real paths of the folders the walk came through to here (the root first, this one last). */
  through: readonly string[];
}

interface FoundLink {
  path: string;
  name: string;
  parent: Folder;
}

/**
 * Walks a folder tree with bounded concurrency, applying the library path rule
 * (domain/library-path.ts) to every folder, file and symlink. The real tree is walked first; the
 * symlinks it holds are then resolved and followed in order of their paths, level by level (the
 * links found in followed folders next), so which of two links to one folder is walked does not
 * depend on timing. A loop, a dangling link, a link into the data dir or out of the root (when not
 * followed) is reported once as a problem; unreadable folders and files too; the walk goes on.
 */
export async function walkDirectory(
  root: string,
  options: WalkOptions,
): Promise<{ files: WalkedFile[]; problems: WalkProblem[] }> {
  const files: WalkedFile[] = [];
  const problems: WalkProblem[] = [];
  const walked = new Set<string>();
  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  let links: FoundLink[] = [];

  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (err) {
    return { files, problems: [{ path: '.', error: reason(err) }] };
  }
  const dataDir = options.links.dataDir;
  const realDataDir = dataDir === null ? null : await realpath(dataDir).catch((): string => resolve(dataDir));
  const decide = (
    path: string,
    target: PathTarget,
    walk: Pick<LibraryPathFacts, 'walkedThrough' | 'alreadyWalked'> = {},
  ) =>
    decideLibraryPath({
      relativePath: relative(root, path),
      target,
      expected: 'any',
      realRoot,
      realDataDir,
      followSymlinks: options.links.followSymlinks,
      ...walk,
    });
  const report = (path: string, why: Parameters<typeof describeLibraryPath>[0]) =>
    problems.push({ path: rel(path) || '.', error: describeLibraryPath(why) });

  const visitFolder = async (folder: Folder): Promise<void> => {
    if (options.signal?.aborted === true) return;
    let entries: Dirent[];
    try {
      entries = await readdir(folder.path, { withFileTypes: true });
    } catch (err) {
      problems.push({ path: rel(folder.path) || '.', error: reason(err) });
      return;
    }
    if (entries.some((e) => options.isIgnoreMarker(e.name))) return;
    for (const entry of entries) {
      if (options.skipEntry(entry.name)) continue;
      const path = join(folder.path, entry.name);
      // Not a link: its real path is its folder's real path and its name.
      const real = join(folder.real, entry.name);
      if (entry.isSymbolicLink()) {
        links.push({ path, name: entry.name, parent: folder });
      } else if (entry.isDirectory()) {
        enterFolder(path, real, folder);
      } else if (options.keepFile(rel(path), entry.name)) {
        const kind = entry.isFile() ? 'file' : 'other';
        queue.add(() => visitFile(path, { state: 'present', realPath: real, kind }));
      }
    }
  };

  /** Walks a folder the rule allows (reporting why not otherwise); `real` is claimed at once. */
  const enterFolder = (path: string, real: string, parent: Folder): void => {
    const decision = decide(
      path,
      { state: 'present', realPath: real, kind: 'directory' },
      { walkedThrough: parent.through, alreadyWalked: walked.has(real) },
    );
    if (!decision.allowed) {
      report(path, decision.reason);
      return;
    }
    walked.add(real);
    queue.add(() => visitFolder({ path, real, through: [...parent.through, real] }));
  };

  const visitFile = async (path: string, target: PathTarget): Promise<void> => {
    const decision = decide(path, target);
    if (!decision.allowed) {
      report(path, decision.reason);
      return;
    }
    try {
      const s = await stat(path);
      files.push({
        relativePath: rel(path),
        absolutePath: path,
        sizeBytes: s.size,
        mtimeMs: Math.floor(s.mtimeMs),
      });
    } catch (err) {
      problems.push({ path: rel(path), error: reason(err) });
    }
  };

  /** Resolves the links of one level, then follows them in order of their paths. */
  const followLinks = async (level: FoundLink[]): Promise<void> => {
    level.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const targets: (PathTarget | Error)[] = [];
    level.forEach((link, n) =>
      queue.add(async () => {
        targets[n] = await pathFacts(link.path).catch((err: unknown) =>
          err instanceof Error ? err : new Error(String(err)),
        );
      }),
    );
    await queue.onIdle();
    level.forEach((link, n) => {
      const t = targets[n];
      if (t === undefined) return;
      if (t instanceof Error) {
        problems.push({ path: rel(link.path), error: reason(t) });
        return;
      }
      if (t.state === 'present' && t.kind === 'directory') {
        enterFolder(link.path, t.realPath, link.parent);
      } else if (t.state !== 'present' || options.keepFile(rel(link.path), link.name)) {
        // A file link the scan would not keep (by its name) is passed over, as a file would be.
        queue.add(() => visitFile(link.path, t));
      }
    });
    await queue.onIdle();
  };

  const rootDecision = decide(root, { state: 'present', realPath: realRoot, kind: 'directory' });
  if (!rootDecision.allowed) {
    report(root, rootDecision.reason);
    return { files, problems };
  }
  walked.add(realRoot);
  queue.add(() => visitFolder({ path: root, real: realRoot, through: [realRoot] }));
  await queue.onIdle();
  while (links.length > 0 && options.signal?.aborted !== true) {
    const level = links;
    links = [];
    await followLinks(level);
  }
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  files.sort((a, b) => byPath({ path: a.relativePath }, { path: b.relativePath }));
  problems.sort(byPath);
  return { files, problems };
}
