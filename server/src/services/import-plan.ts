/**
 * @module services/import-plan
 * Turns validated import items (CSV groups or JSON export items) into a plan against a snapshot of the
 * library: which movies, editions, copies (and, for JSON, roots, files, credits…) to create or change.
 * Planning writes nothing; {@link ImportPlan.ops} are the writes, run in order inside one transaction.
 *
 * Matching (so that importing the same file twice changes nothing):
 * - movies by TMDb id, then IMDb id, then a barcode of one of its editions (a barcode several items of
 *   the file share — a box set — is not used), then normalised title + year (a side without a year
 *   matches when exactly one candidate is left); ids must not contradict; one library movie answers
 *   for at most one item;
 * - editions of a matched movie by barcode, then label + format;
 * - copies by binder slot (a slot is one disc), else by binder among the edition's copies.
 * Values the file gives overwrite; values it leaves empty (`null`, an empty list) keep what is stored.
 */
import { existsSync } from 'node:fs';
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MoviesTable } from '../db/schema.ts';
import type { LibraryExport, RowError } from '../domain/import-export/index.ts';
import { normalizeTitle, sortTitle } from '../domain/titles.ts';
import type {
  ArtworkRow,
  MediaFileRow,
  MovieRow,
  WatchRow,
} from '../repositories/import-export.repository.ts';
import {
  type InCopy,
  type InEdition,
  type InFile,
  type InMovie,
  type Snapshot,
  barcodeKey,
} from './import-input.ts';
import { parseGenres } from '../domain/genres.ts';
import { isWithin } from './library-root.service.ts';
import { DEFAULT_BINDER_CAPACITY } from './movie.service.ts';

/** Rows per multi-row INSERT (at most 19 values each: well under SQLite's 32,766 parameters). */
const INSERT_BATCH = 500;

/** One write of the plan. */
export type Op = (trx: Db) => Promise<void>;

/** The id of a row that exists, or will once the op that inserts it has run. */
export class Ref {
  constructor(public id: number | null = null) {}

  get value(): number {
    if (this.id === null) throw new Error('import plan: a row was used before it was written');
    return this.id;
  }
}

interface MovieState {
  ref: Ref;
  /** The stored row; null for a movie this import creates. */
  row: MovieRow | null;
  title: string;
  year: number | null;
  editions: EditionState[];
  copies: CopyState[];
  claimed: boolean;
}

interface EditionState {
  ref: Ref;
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
  claimed: boolean;
}

interface CopyState {
  /** The stored row's id; null for a copy this import creates. */
  id: number | null;
  movie: MovieState;
  edition: EditionState | null;
  binder: string | null;
  slot: string | null;
  notes: string | null;
  claimed: boolean;
}

interface RootState {
  ref: Ref;
  path: string;
}

/** Per-item bookkeeping: did anything change for an existing movie? */
interface Change {
  changed: boolean;
}

type MoviePatch = Updateable<MoviesTable>;
type NewMovieValues = Omit<Insertable<MoviesTable>, 'binder_id'> & {
  title: string;
  year: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
};
interface NewEditionValues {
  label: string | null;
  format: string | null;
  barcode: string | null;
  region: string | null;
}

const movieKey = (m: {
  title: string;
  year: number | null;
  tmdb_id: number | null;
  imdb_id: string | null;
}) => JSON.stringify([m.title, m.year, m.tmdb_id, m.imdb_id]);
const editionKey = (e: NewEditionValues & { movie_id: number }) =>
  JSON.stringify([e.movie_id, e.label, e.format, e.barcode, e.region]);

/**
 * Gives each pending row the id of the returned row with its key. Rows with equal keys are
 * interchangeable for everything written after them; they are paired in insertion (id) order.
 */
function assignIds(pending: { ref: Ref; key: string }[], returned: { id: number; key: string }[]): void {
  const byKey = new Map<string, number[]>();
  for (const r of returned) push(byKey, r.key, r.id);
  for (const ids of byKey.values()) ids.sort((a, b) => a - b);
  for (const p of pending) {
    const id = byKey.get(p.key)?.shift();
    if (id === undefined) throw new Error('import plan: an inserted row did not come back from RETURNING');
    p.ref.id = id;
  }
}

const flag = (value: boolean): number => (value ? 1 : 0);
const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The plan of one import: its writes, its counts, and the problems that forbid writing any of it. */
export class ImportPlan {
  /**
   * The writes, in an order that puts every row after the rows it points at: collections, roots,
   * binders, people and studios; movies; editions; copies; then credits, ratings, artwork and files.
   */
  readonly ops: Op[];
  private readonly phases = {
    setup: [] as Op[],
    movies: [] as Op[],
    editions: [] as Op[],
    copies: [] as Op[],
    extras: [] as Op[],
  };
  private readonly newMovieRows: { ref: Ref; binder: Ref | null; values: NewMovieValues }[] = [];
  private readonly newEditionRows: { ref: Ref; movie: Ref; values: NewEditionValues }[] = [];
  readonly errors: RowError[] = [];
  readonly warnings: string[] = [];
  readonly created = { movies: 0, editions: 0, copies: 0 };
  updated = 0;
  unchanged = 0;
  /** Movies this import creates (their ids are set once the ops have run). */
  readonly newMovies: Ref[] = [];
  private readonly newCopies: {
    movie: Ref;
    edition: Ref | null;
    binder: Ref | null;
    slot: string | null;
    notes: string | null;
  }[] = [];

  private readonly byTmdb = new Map<number, MovieState>();
  private readonly byImdb = new Map<string, MovieState[]>();
  private readonly byTitle = new Map<string, MovieState[]>();
  private readonly barcodeOwner = new Map<string, MovieState>();
  private readonly slots = new Map<string, CopyState>();
  private readonly binders = new Map<string, { ref: Ref; capacity: number }>();
  private readonly binderCapacity = new Map<string, number>();
  /** How many items of the file name each barcode (more than one: a box set). */
  private readonly fileBarcodes = new Map<string, number>();

  // JSON only
  private readonly collections = new Map<string, Ref>();
  private readonly roots = new Map<string, RootState>();
  private readonly docListsRoots: boolean;
  private readonly files = new Map<string, MediaFileRow>();
  private readonly watch = new Map<number, WatchRow>();
  private readonly ratings = new Map<number, Map<string, string>>();
  private readonly cast = new Map<number, string[]>();
  private readonly directors = new Map<number, string[]>();
  private readonly movieStudios = new Map<number, string[]>();
  private readonly persons = new Map<string, Ref>();
  private readonly studios = new Map<string, Ref>();
  private readonly artwork = new Map<number, ArtworkRow>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly now: string,
    items: readonly InMovie[],
    doc: LibraryExport | null,
  ) {
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
      if (c.binder !== null && c.slot !== null) this.slots.set(slotKey(c.binder, c.slot), state);
    }
    for (const b of snapshot.binders) this.binders.set(b.name, { ref: new Ref(b.id), capacity: b.capacity });
    for (const item of items) {
      const seen = new Set<string>();
      for (const e of item.editions) if (e.barcode !== null) seen.add(e.barcode);
      for (const b of seen) this.fileBarcodes.set(b, (this.fileBarcodes.get(b) ?? 0) + 1);
    }

    const x = snapshot.extras;
    this.docListsRoots = doc !== null && doc.library_roots.length > 0;
    if (x !== null) {
      for (const c of x.collections) this.collections.set(c.name, new Ref(c.id));
      for (const r of x.roots) {
        const state = { ref: new Ref(r.id), path: r.path };
        this.roots.set(r.path, state);
        if (!this.docListsRoots && !this.roots.has(r.name)) this.roots.set(r.name, state);
      }
      for (const f of x.mediaFiles) this.files.set(fileKey(f.root_path, f.relative_path), f);
      for (const w of x.watch) this.watch.set(w.media_file_id, w);
      for (const r of x.ratings) {
        const map = this.ratings.get(r.movie_id) ?? new Map<string, string>();
        map.set(r.source, r.value);
        this.ratings.set(r.movie_id, map);
      }
      for (const c of x.credits) push(c.kind === 'cast' ? this.cast : this.directors, c.movie_id, c.name);
      for (const s of x.movieStudios) push(this.movieStudios, s.movie_id, s.name);
      for (const p of x.persons) if (!this.persons.has(p.name)) this.persons.set(p.name, new Ref(p.id));
      for (const s of x.studios) if (!this.studios.has(s.name)) this.studios.set(s.name, new Ref(s.id));
      for (const a of x.artwork) this.artwork.set(a.movie_id, a);
    }
    if (doc !== null) this.planDocument(doc);
    // Items with a TMDb id claim their movie first, so a title match cannot take it from them.
    const matches = new Map<InMovie, MovieState | undefined>();
    for (const item of items) if (item.tmdb_id !== null) matches.set(item, this.claim(item));
    for (const item of items) if (item.tmdb_id === null) matches.set(item, this.claim(item));
    for (const item of items) this.planMovie(item, matches.get(item));
    this.insertMovies();
    this.insertEditions();
    this.insertCopies();
    const p = this.phases;
    this.ops = [...p.setup, ...p.movies, ...p.editions, ...p.copies, ...p.extras];
  }

  // -------------------------------------------------------------------------------------------------
  // Collections, library roots, binders (JSON)

  private planDocument(doc: LibraryExport): void {
    for (const c of doc.collections) this.collectionRef(c.name);
    for (const b of doc.binders) this.binderCapacity.set(b.name, b.capacity);
    for (const b of doc.binders) {
      const existing = this.binders.get(b.name);
      if (existing === undefined) this.binderRef(b.name);
      else if (existing.capacity !== b.capacity) {
        existing.capacity = b.capacity;
        const ref = existing.ref;
        this.phases.setup.push(async (trx) => {
          await trx
            .updateTable('binders')
            .set({ capacity: b.capacity })
            .where('id', '=', ref.value)
            .execute();
        });
      }
    }
    const stored = this.snapshot.extras?.roots ?? [];
    doc.library_roots.forEach((r, i) => {
      const collection = r.collection === null ? null : this.collectionRef(r.collection);
      const existing = stored.find((s) => s.path === r.path);
      let state: RootState;
      if (existing !== undefined) {
        state = { ref: new Ref(existing.id), path: existing.path };
        if (existing.name !== r.name || existing.collection !== r.collection) {
          this.phases.setup.push(async (trx) => {
            await trx
              .updateTable('library_roots')
              .set({ name: r.name, collection_id: collection?.value ?? null })
              .where('id', '=', state.ref.value)
              .execute();
          });
        }
      } else {
        const overlap = stored.find((s) => isWithin(s.path, r.path) || isWithin(r.path, s.path));
        if (overlap !== undefined) {
          this.errors.push({
            row: 0,
            field: `library_roots/${i}/path`,
            message: `"${r.path}" overlaps the library root ${overlap.path}: a folder may belong to one root only`,
          });
        }
        if (!existsSync(r.path)) {
          this.warnings.push(
            `library root ${r.path} does not exist on this machine: it is recorded, and its files count as missing after the next scan`,
          );
        }
        state = { ref: new Ref(), path: r.path };
        const ref = state.ref;
        this.phases.setup.push(async (trx) => {
          const res = await trx
            .insertInto('library_roots')
            .values({
              path: r.path,
              name: r.name,
              collection_id: collection?.value ?? null,
              created_at: this.now,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          ref.id = res.id;
        });
      }
      this.roots.set(r.path, state);
      if (!this.roots.has(r.name)) this.roots.set(r.name, state);
    });
  }

  private collectionRef(name: string): Ref {
    const existing = this.collections.get(name);
    if (existing !== undefined) return existing;
    const ref = new Ref();
    this.collections.set(name, ref);
    this.phases.setup.push(async (trx) => {
      const res = await trx
        .insertInto('collections')
        .values({ name, created_at: this.now })
        .returning('id')
        .executeTakeFirstOrThrow();
      ref.id = res.id;
    });
    return ref;
  }

  /** The binder, created on first use with the capacity the file lists (else the default). */
  private binderRef(name: string): Ref {
    const existing = this.binders.get(name);
    if (existing !== undefined) return existing.ref;
    const capacity = this.binderCapacity.get(name) ?? DEFAULT_BINDER_CAPACITY;
    const ref = new Ref();
    this.binders.set(name, { ref, capacity });
    this.phases.setup.push(async (trx) => {
      const res = await trx
        .insertInto('binders')
        .values({ name, capacity, created_at: this.now })
        .returning('id')
        .executeTakeFirstOrThrow();
      ref.id = res.id;
    });
    return ref;
  }

  // -------------------------------------------------------------------------------------------------
  // Movies

  private findMovie(item: InMovie): MovieState | undefined {
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

  private claim(item: InMovie): MovieState | undefined {
    const found = this.findMovie(item);
    if (found !== undefined) found.claimed = true;
    return found;
  }

  private planMovie(item: InMovie, found: MovieState | undefined): void {
    const change: Change = { changed: false };
    let movie: MovieState;
    if (found === undefined) {
      movie = this.createMovie(item);
    } else {
      movie = found;
      this.patchMovie(movie, item, change);
    }
    const editions = this.planEditions(movie, item, change);
    const copies = [
      ...item.editions.flatMap((e, i) => e.copies.map((c) => ({ c, edition: editions[i] ?? null }))),
      ...item.copies.map((c) => ({ c, edition: null })),
    ];
    // Copies in a slot first: a slot names one disc, so those pairings are certain.
    const inSlot = (c: InCopy) => c.binder !== null && c.slot !== null;
    for (const { c, edition } of copies) if (inSlot(c)) this.planCopy(movie, edition, c, change);
    for (const { c, edition } of copies) if (!inSlot(c)) this.planCopy(movie, edition, c, change);
    if (item.full) this.planExtras(movie, item, editions, change);
    if (found !== undefined) {
      if (change.changed) this.updated++;
      else this.unchanged++;
    }
  }

  private createMovie(item: InMovie): MovieState {
    const ref = new Ref();
    const movie: MovieState = {
      ref,
      row: null,
      title: item.title,
      year: item.year,
      editions: [],
      copies: [],
      claimed: true,
    };
    this.created.movies++;
    this.newMovies.push(ref);
    if (item.tmdb_id !== null) {
      const holder = this.byTmdb.get(item.tmdb_id);
      if (holder !== undefined) {
        this.errors.push({
          ...item.at,
          field: 'tmdb_id',
          message: `TMDb id ${item.tmdb_id} is ${describe(holder)}, which another ${item.full ? 'item' : 'row'} of the file already matched by its title or ids: give both the same TMDb id, or none`,
        });
      } else this.byTmdb.set(item.tmdb_id, movie);
    }
    const binder = item.binder === null ? null : this.binderRef(item.binder);
    const values: NewMovieValues = {
      title: item.title,
      sort_title: sortTitle(item.title),
      normalized_title: normalizeTitle(item.title),
      original_title: item.original_title,
      year: item.year,
      overview: item.overview,
      tagline: item.tagline,
      runtime_minutes: item.runtime_minutes,
      tmdb_id: item.tmdb_id,
      imdb_id: item.imdb_id,
      genres_json: item.genres.length === 0 ? null : JSON.stringify(item.genres),
      tmdb_collection_id: item.tmdb_collection?.id ?? null,
      tmdb_collection_name: item.tmdb_collection?.name ?? null,
      has_digital_store_a: flag(item.has_digital_store_a === true),
      has_digital_store_b: flag(item.has_digital_store_b === true),
      watched: flag(item.watched === true),
      created_at: this.now,
      updated_at: this.now,
    };
    this.newMovieRows.push({ ref, binder, values });
    return movie;
  }

  /**
   * New movies, many rows per INSERT. RETURNING gives rows in no promised order, so each comes back to
   * its item by title, year and ids; rows equal in those are matched in id (insertion) order.
   */
  private insertMovies(): void {
    for (let start = 0; start < this.newMovieRows.length; start += INSERT_BATCH) {
      const batch = this.newMovieRows.slice(start, start + INSERT_BATCH);
      this.phases.movies.push(async (trx) => {
        const rows = await trx
          .insertInto('movies')
          .values(batch.map((m) => ({ ...m.values, binder_id: m.binder?.value ?? null })))
          .returning(['id', 'title', 'year', 'tmdb_id', 'imdb_id'])
          .execute();
        assignIds(
          batch.map((m) => ({ ref: m.ref, key: movieKey(m.values) })),
          rows.map((r) => ({ id: r.id, key: movieKey(r) })),
        );
      });
    }
  }

  private insertEditions(): void {
    for (let start = 0; start < this.newEditionRows.length; start += INSERT_BATCH) {
      const batch = this.newEditionRows.slice(start, start + INSERT_BATCH);
      this.phases.editions.push(async (trx) => {
        const pending = batch.map((e) => ({
          ref: e.ref,
          row: { ...e.values, movie_id: e.movie.value, created_at: this.now },
        }));
        const rows = await trx
          .insertInto('disc_editions')
          .values(pending.map((e) => e.row))
          .returning(['id', 'movie_id', 'label', 'format', 'barcode', 'region'])
          .execute();
        assignIds(
          pending.map((e) => ({ ref: e.ref, key: editionKey(e.row) })),
          rows.map((r) => ({ id: r.id, key: editionKey(r) })),
        );
      });
    }
  }

  private patchMovie(movie: MovieState, item: InMovie, change: Change): void {
    const row = movie.row;
    if (row === null) return;
    const patch: MoviePatch = {};
    const set = <K extends keyof MovieRow & keyof MoviePatch>(key: K, value: MovieRow[K] | null) => {
      if (value !== null && value !== row[key]) patch[key] = value as MoviePatch[K];
    };
    if (item.full && item.title !== row.title) {
      patch.title = item.title;
      patch.sort_title = sortTitle(item.title);
      patch.normalized_title = normalizeTitle(item.title);
    }
    set('year', item.year);
    // A TMDb id is unique: it is filled in only when no other movie has it.
    if (row.tmdb_id === null && item.tmdb_id !== null && !this.byTmdb.has(item.tmdb_id))
      set('tmdb_id', item.tmdb_id);
    if (row.imdb_id === null) set('imdb_id', item.imdb_id);
    set('watched', item.watched === null ? null : flag(item.watched));
    set('has_digital_store_a', item.has_digital_store_a === null ? null : flag(item.has_digital_store_a));
    set('has_digital_store_b', item.has_digital_store_b === null ? null : flag(item.has_digital_store_b));
    if (item.full) {
      set('original_title', item.original_title);
      set('overview', item.overview);
      set('tagline', item.tagline);
      set('runtime_minutes', item.runtime_minutes);
      if (item.genres.length > 0 && !sameList(item.genres, parseGenres(row.genres_json)))
        patch.genres_json = JSON.stringify(item.genres);
      if (item.tmdb_collection !== null) {
        set('tmdb_collection_id', item.tmdb_collection.id);
        set('tmdb_collection_name', item.tmdb_collection.name);
      }
    }
    const binderName =
      row.binder_id === null
        ? null
        : (this.snapshot.binders.find((b) => b.id === row.binder_id)?.name ?? null);
    const binder = item.binder !== null && item.binder !== binderName ? this.binderRef(item.binder) : null;
    if (Object.keys(patch).length === 0 && binder === null) return;
    change.changed = true;
    if (patch.tmdb_id != null) this.byTmdb.set(patch.tmdb_id, movie);
    this.phases.movies.push(async (trx) => {
      await trx
        .updateTable('movies')
        .set({
          ...patch,
          ...(binder === null ? {} : { binder_id: binder.value }),
          updated_at: this.now,
        })
        .where('id', '=', movie.ref.value)
        .execute();
    });
  }

  // -------------------------------------------------------------------------------------------------
  // Editions and copies

  /** Each incoming edition's state (matched or new), in the item's order. */
  private planEditions(movie: MovieState, item: InMovie, change: Change): EditionState[] {
    const result: (EditionState | undefined)[] = item.editions.map(() => undefined);
    const free = (e: EditionState) => !e.claimed;
    // A barcode another movie already holds (in the library or earlier in this file) stays there.
    const usable = item.editions.map((e) => {
      if (e.barcode === null) return null;
      const owner = this.barcodeOwner.get(e.barcode);
      return owner === undefined || owner === movie ? e.barcode : null;
    });
    item.editions.forEach((e, i) => {
      if (e.barcode === null) return;
      const match = movie.editions.find((s) => free(s) && s.barcode === e.barcode);
      if (match !== undefined) result[i] = this.claimEdition(match, e, null, change);
    });
    item.editions.forEach((e, i) => {
      if (result[i] !== undefined || usable[i] !== null) return;
      const match = movie.editions.find(
        (s) => free(s) && s.barcode === null && s.label === e.label && s.format === e.format,
      );
      if (match !== undefined) result[i] = this.claimEdition(match, e, null, change);
    });
    item.editions.forEach((e, i) => {
      const barcode = usable[i] ?? null;
      if (result[i] !== undefined || barcode === null) return;
      const match = movie.editions.find(
        (s) => free(s) && s.barcode === null && s.label === e.label && s.format === e.format,
      );
      if (match === undefined) return;
      result[i] = this.claimEdition(match, e, barcode, change);
      this.barcodeOwner.set(barcode, movie);
    });
    return item.editions.map((e, i) => {
      const matched = result[i];
      if (matched !== undefined) return matched;
      const barcode = usable[i] ?? null;
      if (e.barcode !== null && barcode === null) {
        const owner = this.barcodeOwner.get(e.barcode);
        this.warnings.push(
          `${where(item)}: barcode ${e.barcode} is already on ${owner === undefined ? 'another movie' : describe(owner)}; this edition of ${item.title} is recorded without it`,
        );
      }
      return this.createEdition(movie, e, barcode, change);
    });
  }

  private claimEdition(
    state: EditionState,
    e: InEdition,
    fillBarcode: string | null,
    change: Change,
  ): EditionState {
    state.claimed = true;
    const patch: { label?: string; format?: string; region?: string; barcode?: string } = {};
    if (e.label !== null && e.label !== state.label) patch.label = e.label;
    if (e.format !== null && e.format !== state.format) patch.format = e.format;
    if (e.region !== null && e.region !== state.region) patch.region = e.region;
    if (fillBarcode !== null) patch.barcode = fillBarcode;
    if (Object.keys(patch).length > 0) {
      change.changed = true;
      Object.assign(state, patch);
      this.phases.editions.push(async (trx) => {
        await trx.updateTable('disc_editions').set(patch).where('id', '=', state.ref.value).execute();
      });
    }
    return state;
  }

  private createEdition(
    movie: MovieState,
    e: InEdition,
    barcode: string | null,
    change: Change,
  ): EditionState {
    const state: EditionState = {
      ref: new Ref(),
      label: e.label,
      format: e.format,
      barcode,
      region: e.region,
      claimed: true,
    };
    movie.editions.push(state);
    if (barcode !== null) this.barcodeOwner.set(barcode, movie);
    change.changed = true;
    this.created.editions++;
    this.newEditionRows.push({
      ref: state.ref,
      movie: movie.ref,
      values: { label: e.label, format: e.format, barcode, region: e.region },
    });
    return state;
  }

  private planCopy(movie: MovieState, edition: EditionState | null, c: InCopy, change: Change): void {
    let match: CopyState | undefined;
    if (c.binder !== null && c.slot !== null) {
      const holder = this.slots.get(slotKey(c.binder, c.slot));
      if (holder !== undefined) {
        if (holder.movie !== movie) {
          this.errors.push({
            ...c.at,
            message: `binder "${c.binder}" slot ${c.slot} already holds ${describe(holder.movie)}: one disc per slot`,
          });
          return;
        }
        if (edition !== null && holder.edition !== edition) {
          this.errors.push({
            ...c.at,
            message: `binder "${c.binder}" slot ${c.slot} already holds another disc of ${describe(movie)}${holder.edition?.format ? ` (${holder.edition.format})` : ''}: one disc per slot`,
          });
          return;
        }
        match = holder;
      }
    } else {
      // No slot: a stored copy of the same edition in that binder (any binder when none is named).
      const candidates = movie.copies.filter(
        (s) => !s.claimed && s.edition === edition && (c.binder === null || s.binder === c.binder),
      );
      match =
        candidates.find((s) => s.binder === c.binder && s.slot === null) ??
        candidates.find((s) => s.binder === c.binder) ??
        candidates[0];
    }
    if (match !== undefined) {
      match.claimed = true;
      const id = match.id;
      const notes = c.notes;
      if (notes !== null && notes !== match.notes && id !== null) {
        match.notes = notes;
        change.changed = true;
        this.phases.copies.push(async (trx) => {
          await trx.updateTable('physical_copies').set({ notes }).where('id', '=', id).execute();
        });
      }
      return;
    }
    const state: CopyState = {
      id: null,
      movie,
      edition,
      binder: c.binder,
      slot: c.slot,
      notes: c.notes,
      claimed: true,
    };
    movie.copies.push(state);
    if (c.binder !== null && c.slot !== null) this.slots.set(slotKey(c.binder, c.slot), state);
    change.changed = true;
    this.created.copies++;
    this.newCopies.push({
      movie: movie.ref,
      edition: edition?.ref ?? null,
      binder: c.binder === null ? null : this.binderRef(c.binder),
      slot: c.slot,
      notes: c.notes,
    });
  }

  /** New copies need no id back, so they are inserted many rows at a time, after what they point at. */
  private insertCopies(): void {
    for (let start = 0; start < this.newCopies.length; start += INSERT_BATCH) {
      const batch = this.newCopies.slice(start, start + INSERT_BATCH);
      this.phases.copies.push(async (trx) => {
        await trx
          .insertInto('physical_copies')
          .values(
            batch.map((c) => ({
              movie_id: c.movie.value,
              edition_id: c.edition?.value ?? null,
              binder_id: c.binder?.value ?? null,
              slot: c.slot,
              notes: c.notes,
              created_at: this.now,
            })),
          )
          .execute();
      });
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Ratings, credits, studios, artwork, media files and watch state (JSON)

  private planExtras(movie: MovieState, item: InMovie, editions: EditionState[], change: Change): void {
    const id = movie.row?.id ?? null;
    const ref = movie.ref;
    const now = this.now;

    const ratings = id === null ? undefined : this.ratings.get(id);
    for (const r of item.ratings) {
      if (ratings?.get(r.source) === r.value) continue;
      change.changed = true;
      this.phases.extras.push(async (trx) => {
        await trx
          .insertInto('movie_ratings')
          .values({ movie_id: ref.value, source: r.source, value: r.value, fetched_at: now })
          .onConflict((oc) =>
            oc.columns(['movie_id', 'source']).doUpdateSet({ value: r.value, fetched_at: now }),
          )
          .execute();
      });
    }

    const credits = (kind: 'cast' | 'director', names: string[], stored: string[]) => {
      if (names.length === 0 || sameList(names, stored)) return;
      change.changed = true;
      const people = names.map((n) => this.personRef(n));
      this.phases.extras.push(async (trx) => {
        let del = trx.deleteFrom('person_movie').where('movie_id', '=', ref.value);
        del =
          kind === 'cast'
            ? del.where('role', '=', 'cast')
            : del.where('role', '=', 'crew').where('job', '=', 'Director');
        await del.execute();
        await trx
          .insertInto('person_movie')
          .values(
            people.map((p, i) => ({
              person_id: p.value,
              movie_id: ref.value,
              role: kind === 'cast' ? 'cast' : 'crew',
              character: null,
              job: kind === 'cast' ? null : 'Director',
              department: kind === 'cast' ? null : 'Directing',
              sort_order: i,
            })),
          )
          .execute();
      });
    };
    credits('cast', item.cast, id === null ? [] : (this.cast.get(id) ?? []));
    credits('director', item.directors, id === null ? [] : (this.directors.get(id) ?? []));

    const studios = [...new Set(item.studios)].sort();
    const storedStudios = id === null ? [] : [...new Set(this.movieStudios.get(id) ?? [])].sort();
    if (studios.length > 0 && !sameList(studios, storedStudios)) {
      change.changed = true;
      const refs = studios.map((s) => this.studioRef(s));
      this.phases.extras.push(async (trx) => {
        await trx.deleteFrom('movie_studio').where('movie_id', '=', ref.value).execute();
        await trx
          .insertInto('movie_studio')
          .values(refs.map((s) => ({ movie_id: ref.value, studio_id: s.value })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      });
    }

    const art = item.artwork;
    const stored = id === null ? undefined : this.artwork.get(id);
    if (
      art !== null &&
      (stored === undefined ||
        stored.poster_state !== art.poster.state ||
        stored.poster_source !== art.poster.source ||
        stored.backdrop_state !== art.backdrop.state ||
        stored.backdrop_source !== art.backdrop.source)
    ) {
      change.changed = true;
      const values = {
        poster_state: art.poster.state,
        poster_source: art.poster.source,
        // A downloaded file is kept only while it still shows the same image.
        poster_path: stored?.poster_source === art.poster.source ? stored.poster_path : null,
        backdrop_state: art.backdrop.state,
        backdrop_source: art.backdrop.source,
        backdrop_path: stored?.backdrop_source === art.backdrop.source ? stored.backdrop_path : null,
      };
      this.phases.extras.push(async (trx) => {
        await trx
          .insertInto('movie_artwork_state')
          .values({ movie_id: ref.value, ...values, fetched_at: stored?.fetched_at ?? null, error: null })
          .onConflict((oc) => oc.column('movie_id').doUpdateSet(values))
          .execute();
      });
    }

    for (const f of item.media_files) this.planFile(movie, item, f, editions, change);
  }

  private planFile(
    movie: MovieState,
    item: InMovie,
    f: InFile,
    editions: EditionState[],
    change: Change,
  ): void {
    const root = this.roots.get(f.root);
    if (root === undefined) {
      this.errors.push({
        row: item.at.row,
        field: `${f.at}/root`,
        message: `no library root "${f.root}": list it in library_roots or add it first (POST /api/library-roots)`,
      });
      return;
    }
    const edition = f.edition_index === null ? null : (editions[f.edition_index] ?? null);
    const key = fileKey(root.path, f.relative_path);
    const existing = this.files.get(key);
    const ref = movie.ref;
    let fileRef: Ref;
    if (existing !== undefined) {
      fileRef = new Ref(existing.id);
      const moves = movie.row === null || existing.movie_id !== movie.row.id;
      const relabels = edition !== null && existing.edition_id !== edition.ref.id;
      if (moves || relabels) {
        change.changed = true;
        this.phases.extras.push(async (trx) => {
          await trx
            .updateTable('media_files')
            .set({
              movie_id: ref.value,
              ...(edition === null ? {} : { edition_id: edition.ref.value }),
              updated_at: this.now,
            })
            .where('id', '=', fileRef.value)
            .execute();
        });
      }
    } else {
      change.changed = true;
      fileRef = new Ref();
      const target = fileRef;
      this.phases.extras.push(async (trx) => {
        const res = await trx
          .insertInto('media_files')
          .values({
            movie_id: ref.value,
            edition_id: edition?.ref.value ?? null,
            library_root_id: root.ref.value,
            relative_path: f.relative_path,
            size_bytes: f.size_bytes,
            mtime_ms: 0,
            fingerprint: f.fingerprint,
            edition_label: f.edition_label,
            status: 'present',
            analysis_status: 'not_analyzed',
            created_at: this.now,
            updated_at: this.now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        target.id = res.id;
      });
    }
    const w = f.watch;
    if (w === null) return;
    const stored = existing === undefined ? undefined : this.watch.get(existing.id);
    const position = Math.floor(w.position_seconds);
    if (stored !== undefined && stored.position_seconds === position && stored.watched === flag(w.watched))
      return;
    change.changed = true;
    const values = { position_seconds: position, watched: flag(w.watched), updated_at: this.now };
    this.phases.extras.push(async (trx) => {
      await trx
        .insertInto('watch_state')
        .values({ media_file_id: fileRef.value, movie_id: ref.value, ...values })
        .onConflict((oc) => oc.column('media_file_id').doUpdateSet({ movie_id: ref.value, ...values }))
        .execute();
    });
  }

  private personRef(name: string): Ref {
    return this.named(this.persons, name, async (trx) => {
      const res = await trx
        .insertInto('persons')
        .values({ tmdb_id: null, name, profile_path: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return res.id;
    });
  }

  private studioRef(name: string): Ref {
    return this.named(this.studios, name, async (trx) => {
      const res = await trx
        .insertInto('studios')
        .values({ tmdb_id: null, name })
        .returning('id')
        .executeTakeFirstOrThrow();
      return res.id;
    });
  }

  private named(map: Map<string, Ref>, name: string, insert: (trx: Db) => Promise<number>): Ref {
    const existing = map.get(name);
    if (existing !== undefined) return existing;
    const ref = new Ref();
    map.set(name, ref);
    this.phases.setup.push(async (trx) => {
      ref.id = await insert(trx);
    });
    return ref;
  }
}

function slotKey(binder: string, slot: string): string {
  return `${binder}\u0000${slot}`;
}

function fileKey(rootPath: string, relativePath: string): string {
  return `${rootPath}\u0000${relativePath}`;
}

function describe(movie: MovieState): string {
  return `${movie.title}${movie.year === null ? '' : ` (${movie.year})`}`;
}

function where(item: InMovie): string {
  return item.full ? `movie item ${item.at.row}` : `line ${item.at.row}`;
}
