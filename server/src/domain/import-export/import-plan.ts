/**
 * @module import-export/import-plan
 * Turns validated import items (CSV groups or JSON export items) into a plan against a snapshot of the
 * library: which movies, editions, copies (and, for JSON, roots, files, credits…) to create or change.
 * Planning is pure: it reads nothing (services/import/import-input.ts read the library and which root
 * folders exist), matches through import-match.ts, and writes nothing.
 * {@link ImportPlan.ops} are the writes, in order, on the {@link ImportWriter} port;
 * services/import/import-apply.ts runs them inside one transaction.
 * Values the file gives overwrite; values it leaves empty (`null`, an empty list) keep what is stored.
 */
import { DEFAULT_BINDER_CAPACITY, DEFAULT_SLOTS_PER_PAGE } from '../binders.ts';
import { parseGenres } from '../genres.ts';
import { loansToAdd } from '../loans.ts';
import { isWithin } from '../path-within.ts';
import { normalizeTitle, sortTitle } from '../titles.ts';
import type { InCopy, InEdition, InFile, InMovie, Snapshot } from './import-items.ts';
import type { ExportLoan, LibraryExport } from './json-format.ts';
import type { ArtworkRow, CopyLoanRow, MovieRow, WatchRow } from './library-rows.ts';
import type { RowError } from './types.ts';
import type {
  ImportWriter,
  MoviePatch,
  NamedRow,
  NewCopyRow,
  NewEditionRow,
  NewMovieRow,
} from './import-writer.ts';
import {
  type CopyState,
  type EditionState,
  LibraryMatcher,
  type MovieState,
  Ref,
  type RootState,
  describe,
  fileKey,
  push,
} from './import-match.ts';

export { Ref } from './import-match.ts';

/** Rows per multi-row INSERT (at most 19 values each: well under SQLite's 32,766 parameters). */
const INSERT_BATCH = 500;

/** One write of the plan. */
export type Op = (writer: ImportWriter) => Promise<void>;

/** Per-item bookkeeping: did anything change for an existing movie? */
interface Change {
  changed: boolean;
}

type NewMovieValues = Omit<NewMovieRow, 'binder_id'>;
/** A binder, person or studio the import creates, by its name. */
type Named = { ref: Ref; name: string };
type NewEditionValues = Omit<NewEditionRow, 'movie_id' | 'created_at'>;

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
export function assignIds(
  pending: { ref: Ref; key: string }[],
  returned: { id: number; key: string }[],
): void {
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

/** What a plan is made from. */
export interface PlanInput {
  snapshot: Snapshot;
  /** The time every created or changed row is stamped with. */
  now: string;
  items: readonly InMovie[];
  /** The JSON document (null for a CSV). */
  doc: LibraryExport | null;
  /** Which of the document's library root paths exist on this machine. */
  rootsOnDisk: ReadonlySet<string>;
  /** Whose watch state the document's is (the snapshot's is that person's); null: the first admin. */
  userId?: number | null;
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
  private readonly newBinders: (Named & { capacity: number; slotsPerPage: number })[] = [];
  private readonly newPersons: Named[] = [];
  private readonly newStudios: Named[] = [];
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

  private readonly match: LibraryMatcher;
  private readonly snapshot: Snapshot;
  private readonly now: string;
  private readonly userId: number | null;
  private readonly rootsOnDisk: ReadonlySet<string>;
  private readonly binders = new Map<string, { ref: Ref; capacity: number }>();
  private readonly binderCapacity = new Map<string, number>();
  /** Slots per page the file lists for a binder (absent: the default, 8). */
  private readonly binderPerPage = new Map<string, number>();
  private readonly storedPerPage = new Map<string, number>();
  // JSON only
  private readonly collections = new Map<string, Ref>();
  private readonly watch = new Map<number, WatchRow>();
  private readonly ratings = new Map<number, Map<string, string>>();
  private readonly cast = new Map<number, string[]>();
  private readonly directors = new Map<number, string[]>();
  private readonly movieStudios = new Map<number, string[]>();
  private readonly persons = new Map<string, Ref>();
  private readonly studios = new Map<string, Ref>();
  private readonly artwork = new Map<number, ArtworkRow>();
  /** Stored loans by copy id (the snapshot's, read in the import's transaction). */
  private readonly storedLoans = new Map<number, CopyLoanRow[]>();

  constructor(input: PlanInput) {
    const { snapshot, items, doc } = input;
    this.snapshot = snapshot;
    this.now = input.now;
    this.userId = input.userId ?? null;
    this.rootsOnDisk = input.rootsOnDisk;
    this.match = new LibraryMatcher(snapshot, items, doc !== null && doc.library_roots.length > 0);
    for (const b of snapshot.binders) {
      this.binders.set(b.name, { ref: new Ref(b.id), capacity: b.capacity });
      this.storedPerPage.set(b.name, b.slots_per_page);
    }
    const x = snapshot.extras;
    if (x !== null) {
      for (const c of x.collections) this.collections.set(c.name, new Ref(c.id));
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
      for (const l of x.loans) push(this.storedLoans, l.physical_copy_id, l);
    }
    if (doc !== null) this.planDocument(doc);
    const matches = this.match.claimAll(items);
    for (const item of items) this.planMovie(item, matches.get(item));
    this.insertNamed();
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
    for (const b of doc.binders) {
      this.binderCapacity.set(b.name, b.capacity);
      this.binderPerPage.set(b.name, b.slots_per_page ?? DEFAULT_SLOTS_PER_PAGE);
    }
    for (const b of doc.binders) {
      const existing = this.binders.get(b.name);
      if (existing === undefined) this.binderRef(b.name);
      else {
        const ref = existing.ref;
        if (existing.capacity !== b.capacity) {
          existing.capacity = b.capacity;
          this.phases.setup.push((w) => w.setBinderCapacity(ref.value, b.capacity));
        }
        const perPage = b.slots_per_page ?? DEFAULT_SLOTS_PER_PAGE;
        if (this.storedPerPage.get(b.name) !== perPage) {
          this.phases.setup.push((w) => w.setBinderSlotsPerPage(ref.value, perPage));
        }
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
          this.phases.setup.push((w) =>
            w.updateRoot(state.ref.value, { name: r.name, collection_id: collection?.value ?? null }),
          );
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
        if (!this.rootsOnDisk.has(r.path)) {
          this.warnings.push(
            `library root ${r.path} does not exist on this machine: it is recorded, and its files count as missing after the next scan`,
          );
        }
        state = { ref: new Ref(), path: r.path };
        const ref = state.ref;
        this.phases.setup.push(async (w) => {
          ref.id = await w.insertRoot({
            path: r.path,
            name: r.name,
            collection_id: collection?.value ?? null,
            created_at: this.now,
          });
        });
      }
      this.match.roots.set(r.path, state);
      if (!this.match.roots.has(r.name)) this.match.roots.set(r.name, state);
    });
  }

  private collectionRef(name: string): Ref {
    const existing = this.collections.get(name);
    if (existing !== undefined) return existing;
    const ref = new Ref();
    this.collections.set(name, ref);
    this.phases.setup.push(async (w) => {
      ref.id = await w.insertCollection(name, this.now);
    });
    return ref;
  }

  /** The binder, created on first use with the capacity the file lists (else the default). */
  private binderRef(name: string): Ref {
    const existing = this.binders.get(name);
    if (existing !== undefined) return existing.ref;
    const capacity = this.binderCapacity.get(name) ?? DEFAULT_BINDER_CAPACITY;
    const perPage = this.binderPerPage.get(name) ?? DEFAULT_SLOTS_PER_PAGE;
    const ref = new Ref();
    this.binders.set(name, { ref, capacity });
    this.newBinders.push({ ref, name, capacity, slotsPerPage: perPage });
    return ref;
  }

  // -------------------------------------------------------------------------------------------------
  // Movies

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
    const holder = this.match.addMovie(movie, item.tmdb_id);
    if (holder !== null) {
      this.errors.push({
        ...item.at,
        field: 'tmdb_id',
        message: `TMDb id ${item.tmdb_id} is ${describe(holder)}, which another ${item.full ? 'item' : 'row'} of the file already matched by its title or ids: give both the same TMDb id, or none`,
      });
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
      this.phases.movies.push(async (w) => {
        const rows = await w.insertMovies(
          batch.map((m) => ({ ...m.values, binder_id: m.binder?.value ?? null })),
        );
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
      this.phases.editions.push(async (w) => {
        const pending = batch.map((e) => ({
          ref: e.ref,
          row: { ...e.values, movie_id: e.movie.value, created_at: this.now },
        }));
        const rows = await w.insertEditions(pending.map((e) => e.row));
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
    if (row.tmdb_id === null && item.tmdb_id !== null && !this.match.byTmdb.has(item.tmdb_id))
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
    if (patch.tmdb_id != null) this.match.byTmdb.set(patch.tmdb_id, movie);
    this.phases.movies.push((w) =>
      w.updateMovie(movie.ref.value, {
        ...patch,
        ...(binder === null ? {} : { binder_id: binder.value }),
        updated_at: this.now,
      }),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Editions and copies

  /** Each incoming edition's state (matched or new), in the item's order. */
  private planEditions(movie: MovieState, item: InMovie, change: Change): EditionState[] {
    const matches = this.match.matchEditions(movie, item.editions);
    return item.editions.map((e, i) => {
      const m = matches[i];
      if (m !== undefined && m.edition !== null)
        return this.patchEdition(m.edition, e, m.fillBarcode, change);
      const barcode = m?.barcode ?? null;
      if (e.barcode !== null && barcode === null) {
        const owner = this.match.barcodeOwner.get(e.barcode);
        this.warnings.push(
          `${where(item)}: barcode ${e.barcode} is already on ${owner === undefined ? 'another movie' : describe(owner)}; this edition of ${item.title} is recorded without it`,
        );
      }
      return this.createEdition(movie, e, barcode, change);
    });
  }

  /** Brings a matched (claimed) edition up to what the file says. */
  private patchEdition(
    state: EditionState,
    e: InEdition,
    fillBarcode: string | null,
    change: Change,
  ): EditionState {
    const patch: { label?: string; format?: string; region?: string; barcode?: string } = {};
    if (e.label !== null && e.label !== state.label) patch.label = e.label;
    if (e.format !== null && e.format !== state.format) patch.format = e.format;
    if (e.region !== null && e.region !== state.region) patch.region = e.region;
    if (fillBarcode !== null) patch.barcode = fillBarcode;
    if (Object.keys(patch).length > 0) {
      change.changed = true;
      Object.assign(state, patch);
      this.phases.editions.push((w) => w.updateEdition(state.ref.value, patch));
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
    if (barcode !== null) this.match.ownBarcode(barcode, movie);
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
    const found = this.match.matchCopy(movie, edition, c);
    if (found.kind === 'slot_taken_by_movie') {
      this.errors.push({
        ...c.at,
        message: `binder "${c.binder}" slot ${c.slot} already holds ${describe(found.holder.movie)}: one disc per slot`,
      });
      return;
    }
    if (found.kind === 'slot_taken_by_edition') {
      const format = found.holder.edition?.format;
      this.errors.push({
        ...c.at,
        message: `binder "${c.binder}" slot ${c.slot} already holds another disc of ${describe(movie)}${format ? ` (${format})` : ''}: one disc per slot`,
      });
      return;
    }
    const match = found.kind === 'copy' ? found.copy : undefined;
    const loans = c.loans ?? [];
    if (match !== undefined) {
      match.claimed = true;
      const id = match.id;
      const notes = c.notes;
      if (notes !== null && notes !== match.notes && id !== null) {
        match.notes = notes;
        change.changed = true;
        this.phases.copies.push((w) => w.setCopyNotes(id, notes));
      }
      // Loans the copy does not have yet are added (the writer compares, as the plan does here).
      if (loans.length > 0 && id !== null) {
        this.warnRefusedLoan(match, id, loans);
        this.phases.copies.push((w) => w.mergeLoans(id, loans, this.now));
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
    this.match.holdSlot(state);
    change.changed = true;
    this.created.copies++;
    const row = {
      movie: movie.ref,
      edition: edition?.ref ?? null,
      binder: c.binder === null ? null : this.binderRef(c.binder),
      slot: c.slot,
      notes: c.notes,
    };
    if (loans.length === 0) {
      this.newCopies.push(row);
      return;
    }
    // A lent copy's loans need its id: it is inserted on its own (few copies are ever lent).
    this.phases.copies.push((w) => w.insertLentCopy(this.copyRow(row), loans));
  }

  /** The file's open loan of a stored copy that is out already is not imported: the report says so. */
  private warnRefusedLoan(copy: CopyState, id: number, loans: readonly ExportLoan[]): void {
    const { refused } = loansToAdd(this.storedLoans.get(id) ?? [], loans);
    if (refused === null) return;
    const place =
      copy.binder === null
        ? ''
        : ` (binder "${copy.binder}"${copy.slot === null ? '' : `, slot ${copy.slot}`})`;
    const since = (l: { to: string; lent_at: string }) => `${l.to} since ${l.lent_at.slice(0, 10)}`;
    this.warnings.push(
      `${describe(copy.movie)}, copy ${id}${place}: the loan to ${since(refused.loan)} is not imported: ` +
        `the disc is on loan to ${since(refused.out)} (one loan at a time)`,
    );
  }

  private copyRow(c: (typeof this.newCopies)[number]): NewCopyRow {
    return {
      movie_id: c.movie.value,
      edition_id: c.edition?.value ?? null,
      binder_id: c.binder?.value ?? null,
      slot: c.slot,
      notes: c.notes,
      created_at: this.now,
    };
  }

  /** New copies need no id back, so they are inserted many rows at a time, after what they point at. */
  private insertCopies(): void {
    for (let start = 0; start < this.newCopies.length; start += INSERT_BATCH) {
      const batch = this.newCopies.slice(start, start + INSERT_BATCH);
      this.phases.copies.push((w) => w.insertCopies(batch.map((c) => this.copyRow(c))));
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
      this.phases.extras.push((w) => w.upsertRating(ref.value, r.source, r.value, now));
    }

    const credits = (kind: 'cast' | 'director', names: string[], stored: string[]) => {
      if (names.length === 0 || sameList(names, stored)) return;
      change.changed = true;
      const people = names.map((n) => this.personRef(n));
      this.phases.extras.push((w) =>
        w.replaceCredits(
          ref.value,
          kind,
          people.map((p) => p.value),
        ),
      );
    };
    credits('cast', item.cast, id === null ? [] : (this.cast.get(id) ?? []));
    credits('director', item.directors, id === null ? [] : (this.directors.get(id) ?? []));

    const studios = [...new Set(item.studios)].sort();
    const storedStudios = id === null ? [] : [...new Set(this.movieStudios.get(id) ?? [])].sort();
    if (studios.length > 0 && !sameList(studios, storedStudios)) {
      change.changed = true;
      const refs = studios.map((s) => this.studioRef(s));
      this.phases.extras.push((w) =>
        w.replaceStudios(
          ref.value,
          refs.map((s) => s.value),
        ),
      );
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
      this.phases.extras.push((w) => w.upsertArtwork(ref.value, values, stored?.fetched_at ?? null));
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
    const root = this.match.roots.get(f.root);
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
    const existing = this.match.files.get(key);
    const ref = movie.ref;
    let fileRef: Ref;
    if (existing !== undefined) {
      fileRef = new Ref(existing.id);
      const moves = movie.row === null || existing.movie_id !== movie.row.id;
      const relabels = edition !== null && existing.edition_id !== edition.ref.id;
      if (moves || relabels) {
        change.changed = true;
        this.phases.extras.push((w) =>
          w.moveMediaFile(fileRef.value, {
            movie_id: ref.value,
            ...(edition === null ? {} : { edition_id: edition.ref.value }),
            updated_at: this.now,
          }),
        );
      }
    } else {
      change.changed = true;
      fileRef = new Ref();
      const target = fileRef;
      this.phases.extras.push(async (w) => {
        target.id = await w.insertMediaFile({
          movie_id: ref.value,
          edition_id: edition?.ref.value ?? null,
          library_root_id: root.ref.value,
          relative_path: f.relative_path,
          size_bytes: f.size_bytes,
          fingerprint: f.fingerprint,
          edition_label: f.edition_label,
          now: this.now,
        });
      });
    }
    const w = f.watch;
    if (w === null) return;
    const stored = existing === undefined ? undefined : this.watch.get(existing.id);
    const position = Math.floor(w.position_seconds);
    if (stored !== undefined && stored.position_seconds === position && stored.watched === flag(w.watched))
      return;
    change.changed = true;
    const values = {
      user_id: this.userId,
      position_seconds: position,
      watched: flag(w.watched),
      updated_at: this.now,
    };
    this.phases.extras.push((w) => w.upsertWatch(fileRef.value, ref.value, values));
  }

  private personRef(name: string): Ref {
    return this.named(this.persons, this.newPersons, name);
  }

  private studioRef(name: string): Ref {
    return this.named(this.studios, this.newStudios, name);
  }

  private named(map: Map<string, Ref>, created: Named[], name: string): Ref {
    const existing = map.get(name);
    if (existing !== undefined) return existing;
    const ref = new Ref();
    map.set(name, ref);
    created.push({ ref, name });
    return ref;
  }

  /**
   * New binders, people and studios, many rows per INSERT (one round trip each instead of one per
   * name: 100 binders of a collection cost ~65 ms on PostgreSQL one by one). Each name is new once,
   * so the returned rows come back to their refs by name.
   */
  private insertNamed(): void {
    const batches = <T extends Named>(
      rows: T[],
      insert: (w: ImportWriter, batch: T[]) => Promise<NamedRow[]>,
    ) => {
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const batch = rows.slice(start, start + INSERT_BATCH);
        this.phases.setup.push(async (w) => {
          const returned = await insert(w, batch);
          assignIds(
            batch.map((r) => ({ ref: r.ref, key: r.name })),
            returned.map((r) => ({ id: r.id, key: r.name })),
          );
        });
      }
    };
    batches(this.newBinders, (w, batch) =>
      w.insertBinders(
        batch.map((b) => ({
          name: b.name,
          capacity: b.capacity,
          slots_per_page: b.slotsPerPage,
          created_at: this.now,
        })),
      ),
    );
    batches(this.newPersons, (w, batch) => w.insertPersons(batch.map((p) => p.name)));
    batches(this.newStudios, (w, batch) => w.insertStudios(batch.map((p) => p.name)));
  }
}

function where(item: InMovie): string {
  return item.full ? `movie item ${item.at.row}` : `line ${item.at.row}`;
}
