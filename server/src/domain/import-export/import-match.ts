/**
 * @module import-export/import-match
 * Which library rows the items of an import file are (pure: no I/O, no writes). So that importing
 * the same file twice changes nothing:
 * - movies by TMDb id, then IMDb id, then a barcode of one of its editions (a barcode several items
 *   of the file share — a box set — is not used), then normalised title + year (a side without a
 *   year matches when exactly one candidate is left); ids must not contradict; one library movie
 *   answers for at most one item;
 * - editions of a matched movie by barcode, then label + format;
 * - copies by binder slot (a slot is one disc), else by binder among the edition's copies.
 * The matcher keeps the claims it hands out, and learns what the plan adds (new movies, barcodes,
 * slots, roots), so later items of the same file match against them too.
 */
import { normalizeTitle } from '../titles.ts';
import { type InCopy, type InEdition, type InMovie, type Snapshot, barcodeKey } from './import-items.ts';
import type { MediaFileRow, MovieRow } from './library-rows.ts';

/** The id of a row that exists, or will once the write that inserts it has run. */
export class Ref {
  constructor(public id: number | null = null) {}

  get value(): number {
    if (this.id === null) throw new Error('import plan: a row was used before it was written');
    return this.id;
  }
}

export interface MovieState {
  ref: Ref;
  /** The stored row; null for a movie this import creates. */
  row: MovieRow | null;
  title: string;
  year: number | null;
  editions: EditionState[];
  copies: CopyState[];
  claimed: boolean;
}

export interface EditionState {
  ref: Ref;
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  claimed: boolean;
}

export interface CopyState {
  /** The stored row's id; null for a copy this import creates. */
  id: number | null;
  movie: MovieState;
  edition: EditionState | null;
  binder: string | null;
  slot: string | null;
  notes: string | null;
  claimed: boolean;
}

export interface RootState {
  ref: Ref;
  path: string;
}

/** How an incoming edition of a matched movie was matched. */
export type EditionMatch =
  /** A stored edition; `fillBarcode` is the file's barcode for an edition stored without one. */
  | { edition: EditionState; fillBarcode: string | null }
  /** None: a new edition, with the barcode it may carry (null when another movie holds it). */
  | { edition: null; barcode: string | null };

/** What an incoming copy is, among the movie's stored copies. */
export type CopyMatch =
  | { kind: 'copy'; copy: CopyState }
  | { kind: 'none' }
  /** Its binder slot holds a disc of another movie. */
  | { kind: 'slot_taken_by_movie'; holder: CopyState }
  /** Its binder slot holds another disc (edition) of the same movie. */
  | { kind: 'slot_taken_by_edition'; holder: CopyState };

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

export function slotKey(binder: string, slot: string): string {
  return `${binder}\u0000${slot}`;
}

export function fileKey(rootPath: string, relativePath: string): string {
  return `${rootPath}\u0000${relativePath}`;
}

/** A movie as messages name it: `Title (year)`. */
export function describe(movie: Pick<MovieState, 'title' | 'year'>): string {
  return `${movie.title}${movie.year === null ? '' : ` (${movie.year})`}`;
}

/** Matches the items of a file against a snapshot of the library. */
export class LibraryMatcher {
  readonly byTmdb = new Map<number, MovieState>();
  private readonly byImdb = new Map<string, MovieState[]>();
  private readonly byTitle = new Map<string, MovieState[]>();
  /** Which movie holds each barcode (GTIN), in the library or earlier in this file. */
  readonly barcodeOwner = new Map<string, MovieState>();
  /** The copy in each binder slot. */
  readonly slots = new Map<string, CopyState>();
  /** Library roots by path (and by name, when the file names roots that way). */
  readonly roots = new Map<string, RootState>();
  /** Stored media files by root path + relative path (JSON). */
  readonly files = new Map<string, MediaFileRow>();
  /** How many items of the file name each barcode (more than one: a box set). */
  private readonly fileBarcodes = new Map<string, number>();

  /**
   * @param docListsRoots whether the file lists its library roots (then media files name roots by
   *   the names the file gives; otherwise also by the names stored)
   */
  constructor(snapshot: Snapshot, items: readonly InMovie[], docListsRoots: boolean) {
    const movies = new Map<number, MovieState>();
    for (const row of snapshot.movies) {
      const state: MovieState = {
        ref: new Ref(row.id),
        row,
        title: row.title,
        year: row.year,
        editions: [],
        copies: [],
        claimed: false,
      };
      movies.set(row.id, state);
      if (row.tmdb_id !== null) this.byTmdb.set(row.tmdb_id, state);
      if (row.imdb_id !== null) push(this.byImdb, row.imdb_id, state);
      push(this.byTitle, row.normalized_title, state);
    }
    const editions = new Map<number, EditionState>();
    for (const e of snapshot.editions) {
      const movie = movies.get(e.movie_id);
      if (movie === undefined) continue;
      const state: EditionState = {
        ref: new Ref(e.id),
        label: e.label,
        format: e.format,
        barcode: e.barcode === null ? null : barcodeKey(e.barcode),
        region: e.region,
        claimed: false,
      };
      editions.set(e.id, state);
      movie.editions.push(state);
      if (state.barcode !== null) this.barcodeOwner.set(state.barcode, movie);
    }
    for (const c of snapshot.copies) {
      const movie = movies.get(c.movie_id);
      if (movie === undefined) continue;
      const state: CopyState = {
        id: c.id,
        movie,
        edition: c.edition_id === null ? null : (editions.get(c.edition_id) ?? null),
        binder: c.binder,
        slot: c.slot,
        notes: c.notes,
        claimed: false,
      };
      movie.copies.push(state);
      this.holdSlot(state);
    }
    for (const item of items) {
      const seen = new Set<string>();
      for (const e of item.editions) if (e.barcode !== null) seen.add(e.barcode);
      for (const b of seen) this.fileBarcodes.set(b, (this.fileBarcodes.get(b) ?? 0) + 1);
    }
    const x = snapshot.extras;
    if (x !== null) {
      for (const r of x.roots) {
        const state = { ref: new Ref(r.id), path: r.path };
        this.roots.set(r.path, state);
        if (!docListsRoots && !this.roots.has(r.name)) this.roots.set(r.name, state);
      }
      for (const f of x.mediaFiles) this.files.set(fileKey(f.root_path, f.relative_path), f);
    }
  }

  /**
   * Claims a library movie for each item (or none: the item is a new movie). Items with a TMDb id
   * claim first, so a title match cannot take their movie from them.
   */
  claimAll(items: readonly InMovie[]): Map<InMovie, MovieState | undefined> {
    const matches = new Map<InMovie, MovieState | undefined>();
    for (const item of items) if (item.tmdb_id !== null) matches.set(item, this.claim(item));
    for (const item of items) if (item.tmdb_id === null) matches.set(item, this.claim(item));
    return matches;
  }

  private claim(item: InMovie): MovieState | undefined {
    const found = this.findMovie(item);
    if (found !== undefined) found.claimed = true;
    return found;
  }

  /** The unclaimed library movie an item is, if any. */
  findMovie(item: InMovie): MovieState | undefined {
    const compatible = (m: MovieState) =>
      !m.claimed &&
      (m.row?.tmdb_id == null || item.tmdb_id === null || m.row.tmdb_id === item.tmdb_id) &&
      (m.row?.imdb_id == null || item.imdb_id === null || m.row.imdb_id === item.imdb_id);
    if (item.tmdb_id !== null) {
      const m = this.byTmdb.get(item.tmdb_id);
      if (m !== undefined && !m.claimed) return m;
    }
    if (item.imdb_id !== null) {
      const m = this.pick((this.byImdb.get(item.imdb_id) ?? []).filter(compatible), item);
      if (m !== undefined) return m;
    }
    const key = normalizeTitle(item.title);
    const sameTitle = (this.byTitle.get(key) ?? []).filter(compatible);
    const exact = this.pick(
      sameTitle.filter((m) => m.year === item.year),
      item,
    );
    for (const e of item.editions) {
      if (e.barcode === null || (this.fileBarcodes.get(e.barcode) ?? 0) > 1) continue;
      const m = this.barcodeOwner.get(e.barcode);
      // A title + year match elsewhere is a better answer than a barcode another movie holds.
      if (m !== undefined && compatible(m) && (exact === undefined || exact === m)) return m;
    }
    if (exact !== undefined) return exact;
    const loose = sameTitle.filter((m) => m.year === null || item.year === null);
    return loose.length === 1 ? loose[0] : undefined;
  }

  /** Of several equally good candidates (two "Solaris (1972)"), the one whose discs and files fit the item. */
  private pick(candidates: MovieState[], item: InMovie): MovieState | undefined {
    if (candidates.length <= 1) return candidates[0];
    let best: MovieState | undefined;
    let bestScore = -1;
    for (const m of candidates) {
      const score = this.affinity(m, item);
      if (score > bestScore) {
        best = m;
        bestScore = score;
      }
    }
    return best;
  }

  private affinity(m: MovieState, item: InMovie): number {
    const copies = [...item.copies, ...item.editions.flatMap((e) => e.copies)];
    let score = 0;
    for (const c of copies) {
      if (c.binder !== null && c.slot !== null && this.slots.get(slotKey(c.binder, c.slot))?.movie === m)
        score += 4;
    }
    for (const e of item.editions) {
      if (e.barcode !== null && m.editions.some((s) => s.barcode === e.barcode)) score += 4;
    }
    for (const f of item.media_files) {
      const root = this.roots.get(f.root);
      const file = root === undefined ? undefined : this.files.get(fileKey(root.path, f.relative_path));
      if (file !== undefined && file.movie_id === m.row?.id) score += 4;
    }
    if (m.editions.length === item.editions.length) score += 1;
    if (m.copies.length === copies.length) score += 1;
    return score;
  }

  /**
   * A movie this import creates takes its TMDb id.
   * @returns the movie that already has that id (then the new one does not get it), else null
   */
  addMovie(movie: MovieState, tmdbId: number | null): MovieState | null {
    if (tmdbId === null) return null;
    const holder = this.byTmdb.get(tmdbId);
    if (holder !== undefined) return holder;
    this.byTmdb.set(tmdbId, movie);
    return null;
  }

  /**
   * Each incoming edition of `movie` matched to a stored one (claimed) or not, in the item's order:
   * first by barcode; then, for an edition whose barcode cannot be used, by label + format among
   * editions stored without a barcode; then the same for editions that bring a usable barcode (it
   * fills the stored edition's empty one).
   */
  matchEditions(movie: MovieState, editions: readonly InEdition[]): EditionMatch[] {
    const result: (EditionMatch | undefined)[] = editions.map(() => undefined);
    const free = (e: EditionState) => !e.claimed;
    const claim = (state: EditionState, fillBarcode: string | null): EditionMatch => {
      state.claimed = true;
      return { edition: state, fillBarcode };
    };
    // A barcode another movie already holds (in the library or earlier in this file) stays there.
    const usable = editions.map((e) => {
      if (e.barcode === null) return null;
      const owner = this.barcodeOwner.get(e.barcode);
      return owner === undefined || owner === movie ? e.barcode : null;
    });
    editions.forEach((e, i) => {
      if (e.barcode === null) return;
      const match = movie.editions.find((s) => free(s) && s.barcode === e.barcode);
      if (match !== undefined) result[i] = claim(match, null);
    });
    editions.forEach((e, i) => {
      if (result[i] !== undefined || usable[i] !== null) return;
      const match = movie.editions.find(
        (s) => free(s) && s.barcode === null && s.label === e.label && s.format === e.format,
      );
      if (match !== undefined) result[i] = claim(match, null);
    });
    editions.forEach((e, i) => {
      const barcode = usable[i] ?? null;
      if (result[i] !== undefined || barcode === null) return;
      const match = movie.editions.find(
        (s) => free(s) && s.barcode === null && s.label === e.label && s.format === e.format,
      );
      if (match === undefined) return;
      result[i] = claim(match, barcode);
      this.barcodeOwner.set(barcode, movie);
    });
    return editions.map((_, i) => result[i] ?? { edition: null, barcode: usable[i] ?? null });
  }

  /** Records that `movie` now holds `barcode` (an edition this import creates). */
  ownBarcode(barcode: string, movie: MovieState): void {
    this.barcodeOwner.set(barcode, movie);
  }

  /** Records the copy in its binder slot, if it has one. */
  holdSlot(copy: CopyState): void {
    if (copy.binder !== null && copy.slot !== null) this.slots.set(slotKey(copy.binder, copy.slot), copy);
  }

  /**
   * The stored copy an incoming copy of `movie` (of `edition`) is: the one in its slot (which must
   * hold this movie's disc of this edition), or without a slot a copy of the same edition in that
   * binder (any binder when none is named). Does not claim it.
   */
  matchCopy(movie: MovieState, edition: EditionState | null, c: InCopy): CopyMatch {
    if (c.binder !== null && c.slot !== null) {
      const holder = this.slots.get(slotKey(c.binder, c.slot));
      if (holder === undefined) return { kind: 'none' };
      if (holder.movie !== movie) return { kind: 'slot_taken_by_movie', holder };
      if (edition !== null && holder.edition !== edition) return { kind: 'slot_taken_by_edition', holder };
      return { kind: 'copy', copy: holder };
    }
    const candidates = movie.copies.filter(
      (s) => !s.claimed && s.edition === edition && (c.binder === null || s.binder === c.binder),
    );
    const match =
      candidates.find((s) => s.binder === c.binder && s.slot === null) ??
      candidates.find((s) => s.binder === c.binder) ??
      candidates[0];
    return match === undefined ? { kind: 'none' } : { kind: 'copy', copy: match };
  }
}
