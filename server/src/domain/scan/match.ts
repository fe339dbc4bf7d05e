/**
 * Which existing movie a newly found file belongs to, and how new files without a movie group into movies
 * and editions. Pure; the precedence is reference/metadata.md §4.4.
 *
 * Fingerprint matching (§4.4 step 4) is not here: it works on files, not movies. The scanner runs it
 * first (§5.4: a new path whose `(size, oshash)` equals a vanished file is a move and keeps its movie), so
 * only files that are really new reach {@link matchMovie}.
 */
import { normalizeTitle } from '../titles.ts';
import type { NfoInfo, ParsedMovieName } from './parse-name.ts';

/** An existing movie as the matcher sees it. `normalizedTitle` is `normalizeTitle(title)` (the DB column). */
export interface MatchCandidate {
  id: number;
  tmdbId: number | null;
  imdbId: string | null;
  normalizedTitle: string;
  year: number | null;
}

export type MatchReason =
  'nfo_tmdb_id' | 'tmdb_id' | 'nfo_imdb_id' | 'imdb_id' | 'title_year' | 'title_only_unique';

export interface MovieMatch {
  movieId: number;
  reason: MatchReason;
}

interface KnownIds {
  tmdbId: number | null;
  tmdbFromNfo: boolean;
  imdbId: string | null;
  imdbFromNfo: boolean;
}

function knownIds(parsed: ParsedMovieName, nfo: NfoInfo | null | undefined): KnownIds {
  const nfoTmdb = nfo?.tmdbId ?? null;
  const nfoImdb = nfo?.imdbId?.toLowerCase() ?? null;
  return {
    tmdbId: nfoTmdb ?? parsed.tmdbId,
    tmdbFromNfo: nfoTmdb !== null,
    imdbId: nfoImdb ?? parsed.imdbId?.toLowerCase() ?? null,
    imdbFromNfo: nfoImdb !== null,
  };
}

/** A candidate may receive the file unless it carries a different id than the file does. */
function isCompatible(candidate: MatchCandidate, ids: KnownIds): boolean {
  if (ids.tmdbId !== null && candidate.tmdbId !== null && candidate.tmdbId !== ids.tmdbId) return false;
  const candidateImdb = candidate.imdbId?.toLowerCase() ?? null;
  return ids.imdbId === null || candidateImdb === null || candidateImdb === ids.imdbId;
}

/**
 * Finds the existing movie a new file belongs to, by metadata.md §4.4 precedence: TMDb id (NFO, then the
 * file/folder name), IMDb id (NFO, then name), then title. The NFO's id wins over the name's; the name's id
 * is not tried when the NFO gives a different one, so a contradicting tag never attaches a file.
 *
 * Title matching compares `normalizeTitle` of the NFO title and of the parsed title with the candidates'
 * `normalizedTitle`, skipping candidates whose ids contradict the file's:
 * - with a year: exactly one candidate with the same title and the **same** year → `title_year`. No ±1:
 *   §4.4 rates a ±1 year as only "medium" confidence, and this match attaches a file to a movie with no
 *   review. A file one year off gets a TMDb id from the search step (§1.4) and then matches by id.
 * - without a year (or when the only same-title candidate has no year): exactly one candidate with that
 *   title → `title_only_unique`.
 * Several equal candidates are ambiguous → null (the file goes to "unmatched").
 * @param parsed what the path says ({@link parseMoviePath})
 * @param nfo what the file's `.nfo` says, if there is one
 * @param candidates existing movies (the caller may pre-filter by id or normalized title)
 * @returns the movie and why, or null when nothing matches safely
 */
export function matchMovie(
  parsed: ParsedMovieName,
  nfo: NfoInfo | null | undefined,
  candidates: readonly MatchCandidate[],
): MovieMatch | null {
  const ids = knownIds(parsed, nfo);

  if (ids.tmdbId !== null) {
    const byTmdb = candidates.find((c) => c.tmdbId === ids.tmdbId);
    if (byTmdb !== undefined)
      return { movieId: byTmdb.id, reason: ids.tmdbFromNfo ? 'nfo_tmdb_id' : 'tmdb_id' };
  }
  if (ids.imdbId !== null) {
    const byImdb = candidates.find((c) => c.imdbId?.toLowerCase() === ids.imdbId && isCompatible(c, ids));
    if (byImdb !== undefined)
      return { movieId: byImdb.id, reason: ids.imdbFromNfo ? 'nfo_imdb_id' : 'imdb_id' };
  }

  const titleKeys = new Set(
    [nfo?.title ?? '', parsed.title].map((title) => normalizeTitle(title)).filter((key) => key !== ''),
  );
  if (titleKeys.size === 0) return null;
  const sameTitle = candidates.filter((c) => titleKeys.has(c.normalizedTitle) && isCompatible(c, ids));
  const year = nfo?.year ?? parsed.year;

  if (year !== null) {
    const sameYear = sameTitle.filter((c) => c.year === year);
    if (sameYear.length === 1 && sameYear[0] !== undefined)
      return { movieId: sameYear[0].id, reason: 'title_year' };
    if (sameYear.length > 1) return null;
    const only = sameTitle.length === 1 ? sameTitle[0] : undefined;
    return only !== undefined && only.year === null
      ? { movieId: only.id, reason: 'title_only_unique' }
      : null;
  }
  const only = sameTitle.length === 1 ? sameTitle[0] : undefined;
  return only === undefined ? null : { movieId: only.id, reason: 'title_only_unique' };
}

/** One file of a batch to group; anything else the scanner needs rides along in `T`. */
export interface GroupableFile {
  parsed: ParsedMovieName;
  nfo?: NfoInfo | null;
}

/** One edition: a single file, or the stacked parts of one version (sorted by part number). */
export interface EditionGroup<T extends GroupableFile> {
  label: string | null;
  files: T[];
}

/** One new movie to create, with its editions (Jellyfin order: unlabeled first, then default version). */
export interface MovieGroup<T extends GroupableFile> {
  title: string;
  year: number | null;
  tmdbId: number | null;
  imdbId: string | null;
  editions: EditionGroup<T>[];
}

interface GroupIds {
  tmdbId: number | null;
  imdbId: string | null;
}

const RESOLUTION_LABEL = /^(\d{3,4})[pi]$/iu;

/** Jellyfin's version order: labels like `2160p`/`1080i` by resolution high→low, then the rest alphabetically. */
function compareLabels(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const ra = RESOLUTION_LABEL.exec(a)?.[1];
  const rb = RESOLUTION_LABEL.exec(b)?.[1];
  if (ra !== undefined && rb !== undefined) return Number(rb) - Number(ra);
  if (ra !== undefined) return -1;
  if (rb !== undefined) return 1;
  return a.localeCompare(b, 'en', { sensitivity: 'base' });
}

/**
 * Groups new files that matched no existing movie into movies, so the scanner creates one movie per group
 * and one edition per version. Files join a group when they share a TMDb id, an IMDb id, or the normalized
 * title and year (in that order), but never when their ids contradict (two different TMDb ids stay two
 * movies even with one title and year). Within a group, labeled parts (`cd1`, `cd2`) of one label form one
 * edition; every other file is its own edition.
 * @param files parsed new files (input order decides the group order and each group's title)
 * @returns groups in order of first appearance
 * @example groupEditions([{ parsed: heat1080 }, { parsed: heatDirectorsCut }]) // one movie, two editions
 */
export function groupEditions<T extends GroupableFile>(files: readonly T[]): MovieGroup<T>[] {
  const parent = files.map((_file, i) => i);
  const find = (i: number): number => {
    let root = i;
    while ((parent[root] ?? root) !== root) root = parent[root] ?? root;
    parent[i] = root;
    return root;
  };
  const fileIds: readonly GroupIds[] = files.map((file) => {
    const ids = knownIds(file.parsed, file.nfo);
    return { tmdbId: ids.tmdbId, imdbId: ids.imdbId };
  });
  // Per root: the ids of the whole group so far.
  const groupIds: GroupIds[] = fileIds.map((ids) => ({ ...ids }));
  const compatible = (a: GroupIds, b: GroupIds): boolean =>
    (a.tmdbId === null || b.tmdbId === null || a.tmdbId === b.tmdbId) &&
    (a.imdbId === null || b.imdbId === null || a.imdbId === b.imdbId);
  const union = (i: number, j: number, force: boolean): boolean => {
    const ri = find(i);
    const rj = find(j);
    if (ri === rj) return true;
    const a = groupIds[ri];
    const b = groupIds[rj];
    if (a === undefined || b === undefined || (!force && !compatible(a, b))) return false;
    const lo = Math.min(ri, rj);
    const hi = Math.max(ri, rj);
    parent[hi] = lo;
    groupIds[lo] = { tmdbId: a.tmdbId ?? b.tmdbId, imdbId: a.imdbId ?? b.imdbId };
    return true;
  };

  const byKey = (key: (i: number) => string | null, force: boolean): void => {
    const seen = new Map<string, number[]>();
    files.forEach((_file, i) => {
      const k = key(i);
      if (k === null) return;
      const roots = seen.get(k);
      if (roots === undefined) {
        seen.set(k, [i]);
        return;
      }
      if (!roots.some((r) => union(r, i, force))) roots.push(i);
    });
  };
  // A shared TMDb id is decisive; IMDb and title+year only join groups that do not contradict.
  byKey((i) => {
    const tmdbId = fileIds[i]?.tmdbId ?? null;
    return tmdbId === null ? null : `tmdb:${tmdbId}`;
  }, true);
  byKey((i) => {
    const imdbId = fileIds[i]?.imdbId ?? null;
    return imdbId === null ? null : `imdb:${imdbId}`;
  }, false);
  byKey((i) => {
    const file = files[i];
    if (file === undefined) return null;
    const title = normalizeTitle(file.nfo?.title ?? file.parsed.title);
    return title === '' ? null : `title:${title}|${file.nfo?.year ?? file.parsed.year ?? ''}`;
  }, false);

  const groups = new Map<number, { members: T[] }>();
  files.forEach((file, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group === undefined) groups.set(root, { members: [file] });
    else group.members.push(file);
  });

  return [...groups.entries()].map(([root, { members }]) => {
    const editions: EditionGroup<T>[] = [];
    const stacks = new Map<string, EditionGroup<T>>();
    for (const file of members) {
      const label = file.parsed.editionLabel;
      if (file.parsed.partNumber === null) {
        editions.push({ label, files: [file] });
        continue;
      }
      const key = (label ?? '').toLowerCase();
      const stack = stacks.get(key);
      if (stack !== undefined) {
        stack.files.push(file);
        continue;
      }
      const created: EditionGroup<T> = { label, files: [file] };
      stacks.set(key, created);
      editions.push(created);
    }
    for (const stack of stacks.values()) {
      stack.files.sort((a, b) => (a.parsed.partNumber ?? 0) - (b.parsed.partNumber ?? 0));
    }
    editions.sort((a, b) => compareLabels(a.label, b.label));

    const first = members[0];
    const ids = groupIds[root];
    return {
      title: first?.nfo?.title ?? first?.parsed.title ?? '',
      year: members.map((m) => m.nfo?.year ?? m.parsed.year).find((y) => y !== null) ?? null,
      tmdbId: ids?.tmdbId ?? null,
      imdbId: ids?.imdbId ?? null,
      editions,
    };
  });
}
