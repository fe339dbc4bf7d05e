import { isAbsolute, normalize, sep } from 'node:path';

/**
 * The one rule for reaching a path of a library root (walks, fingerprints, ffprobe, streams,
 * subtitles, artwork beside the media): what the path leads to once its symlinks are resolved, and
 * whether reelshelf may use it. The caller gathers the facts (realpath, stat, lstat) through an
 * adapter; this decides.
 *
 * - Symlinks are followed (REELSHELF_FOLLOW_SYMLINKS=on, the default, as Jellyfin and Plex do): a
 *   link may lead out of its root, and the target is then scanned, listed and streamed like a file
 *   of the root. With `off`, only what lies inside the root's real path is used: a link that stays
 *   in the root still works, a link that leads out is not followed (not listed, 403 if asked).
 * - Never, whatever the setting: the data dir (REELSHELF_DATA_DIR: the database, secrets,
 *   artifacts), anything that is not a regular file or folder (FIFOs, sockets, devices: a read would
 *   block or never end), a path whose own name climbs out of the root (`../`).
 * - A folder link that leads back to a folder the walk came through (or to one holding it) is a
 *   loop; a link chain the system cannot resolve (ELOOP) is one too. Both are reported, not walked.
 */

/** What a path leads to, as an adapter found it (symlinks resolved). */
export type PathTarget =
  | { state: 'present'; realPath: string; kind: 'file' | 'directory' | 'other' }
  /** Nothing at the path (no link either). */
  | { state: 'missing' }
  /** A symlink whose target does not exist. */
  | { state: 'dangling' }
  /** Links that lead back to themselves: the system gave up resolving them (ELOOP). */
  | { state: 'loop' };

export interface LibraryPathFacts {
  /** The path as recorded or walked, relative to its root, before any link is resolved ('' = the root). */
  relativePath: string;
  target: PathTarget;
  /** What the caller needs there: a file to read, a folder to list, or either (a walk). */
  expected: 'file' | 'directory' | 'any';
  /** Real path of the path's library root. */
  realRoot: string;
  /** Real path of the server's data dir; null only for tools that run without one. */
  realDataDir: string | null;
  /** REELSHELF_FOLLOW_SYMLINKS. */
  followSymlinks: boolean;
  /**
   * A walk only: the real paths of the folders it came through to reach this path (the root first,
   * through every followed link). A folder target that is, or holds, one of them is a loop.
   */
  walkedThrough?: readonly string[];
  /** A walk only: whether the folder's real path was already walked through another path. */
  alreadyWalked?: boolean;
}

export type LibraryPathReason =
  /** Allowed: the real path lies inside the root. */
  | 'inside_root'
  /** Allowed: a link out of the root, followed because REELSHELF_FOLLOW_SYMLINKS is on. */
  | 'followed_out_of_root'
  | 'missing'
  | 'dangling_symlink'
  | 'symlink_loop'
  /** The recorded name itself leads out of the root (`..`, an absolute path). */
  | 'climbs_out_of_root'
  | 'data_dir'
  | 'not_regular_file'
  /** A folder where a file was asked for, or the reverse. */
  | 'wrong_kind'
  /** A link out of the root while REELSHELF_FOLLOW_SYMLINKS is off. */
  | 'outside_root'
  /** A walk only: the folder is already walked at another path (two links to one place). */
  | 'already_scanned';

export interface LibraryPathDecision {
  allowed: boolean;
  reason: LibraryPathReason;
  /** The real path to use when allowed. */
  realPath: string | null;
}

/** True when `inner` is `outer` or lies inside it (both absolute and normalised). */
export function isPathWithin(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  const prefix = outer.endsWith(sep) ? outer : `${outer}${sep}`;
  return inner.startsWith(prefix);
}

/** Whether a recorded relative path stays inside its root by its own name (no `..` out, not absolute). */
function namedInsideRoot(relativePath: string): boolean {
  if (relativePath === '') return true;
  if (isAbsolute(relativePath) || relativePath.includes('\0')) return false;
  const normal = normalize(relativePath);
  return normal !== '..' && !normal.startsWith(`..${sep}`);
}

const refused = (reason: LibraryPathReason): LibraryPathDecision => ({
  allowed: false,
  reason,
  realPath: null,
});

/** Decides whether reelshelf may use a path of a library root, and why (see the module comment). */
export function decideLibraryPath(facts: LibraryPathFacts): LibraryPathDecision {
  if (!namedInsideRoot(facts.relativePath)) return refused('climbs_out_of_root');
  const { target } = facts;
  if (target.state === 'missing') return refused('missing');
  if (target.state === 'dangling') return refused('dangling_symlink');
  if (target.state === 'loop') return refused('symlink_loop');
  const real = target.realPath;
  if (facts.realDataDir !== null && isPathWithin(facts.realDataDir, real)) return refused('data_dir');
  if (target.kind === 'other') return refused('not_regular_file');
  if (facts.expected !== 'any' && facts.expected !== target.kind) return refused('wrong_kind');
  const inside = isPathWithin(facts.realRoot, real);
  if (!inside && !facts.followSymlinks) return refused('outside_root');
  if (target.kind === 'directory') {
    if ((facts.walkedThrough ?? []).some((folder) => isPathWithin(real, folder))) {
      return refused('symlink_loop');
    }
    if (facts.alreadyWalked === true) return refused('already_scanned');
  }
  return { allowed: true, reason: inside ? 'inside_root' : 'followed_out_of_root', realPath: real };
}

const SENTENCES: Record<LibraryPathReason, string> = {
  inside_root: 'inside its library root',
  followed_out_of_root: 'a symlink out of its library root, followed (REELSHELF_FOLLOW_SYMLINKS=on)',
  missing: 'not there',
  dangling_symlink: 'a symlink whose target does not exist',
  symlink_loop: 'a symlink loop: it leads back to a folder it lies in; not followed',
  climbs_out_of_root: 'its name leads out of its library root',
  data_dir: "inside the server's data dir (REELSHELF_DATA_DIR), which is never scanned or served",
  not_regular_file: 'not a regular file or folder (a FIFO, socket or device); not read',
  wrong_kind: 'not the kind of entry expected (a folder instead of a file, or the reverse)',
  outside_root: 'a symlink out of its library root, not followed (REELSHELF_FOLLOW_SYMLINKS=off)',
  already_scanned: 'a symlink to a folder already scanned at another path; scanned there only',
};

/**
 * The scan report's line for a path refused by the rule: `<reason>: <sentence>` (the reason is the
 * stable part, as in the 403's `reason`).
 */
export function describeLibraryPath(reason: LibraryPathReason): string {
  return `${reason}: ${SENTENCES[reason]}`;
}
