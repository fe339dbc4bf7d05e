import type {
  ArtworkStateValues,
  ImportWriter,
  MoviePatch,
  NewCopyRow,
  NewEditionRow,
  NewMediaFileRow,
  NewMovieRow,
  WatchValues,
} from '../../src/domain/import-export/import-writer.ts';
import type {
  ArtworkRow,
  BinderRow,
  CopyRow,
  CreditRow,
  EditionRow,
  LibraryReads,
  MediaFileRow,
  MovieRow,
  RootRow,
  WatchRow,
} from '../../src/domain/import-export/library-rows.ts';
import type { CopyLoanRow } from '../../src/domain/import-export/library-rows.ts';
import type { ExportLoan } from '../../src/domain/import-export/json-format.ts';
import { loansToAdd } from '../../src/domain/loans.ts';
import type { ImportExportDeps } from '../../src/services/import/import-export.service.ts';
import { type Restorable, fakeUnitOfWork } from './unit-of-work.ts';

interface Tables {
  movies: MovieRow[];
  editions: EditionRow[];
  copies: (NewCopyRow & { id: number })[];
  binders: BinderRow[];
  collections: { id: number; name: string }[];
  roots: { id: number; path: string; name: string; collection_id: number | null }[];
  mediaFiles: (Omit<NewMediaFileRow, 'now'> & { id: number })[];
  /** Keyed by (person, file), as watch_state is. */
  watch: (WatchRow & { user_id: number })[];
  ratings: { movie_id: number; source: string; value: string }[];
  credits: { movie_id: number; person_id: number; kind: 'cast' | 'director' }[];
  persons: { id: number; name: string }[];
  studios: { id: number; name: string }[];
  movieStudios: { movie_id: number; studio_id: number }[];
  artwork: ArtworkRow[];
  loans: CopyLoanRow[];
}

/** The person whose state a read or write without one names (the CLI's): the first admin. */
const FIRST_ADMIN = 1;

const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;

/**
 * The library an import reads and writes, in memory: every {@link LibraryReads} list and every
 * {@link ImportWriter} write on plain arrays, with the orders the SQL repositories promise (ids;
 * billing order for credits). A unit test of ImportExportService runs on it with no database.
 */
export class FakeImportTables implements LibraryReads, ImportWriter, Restorable {
  t: Tables = {
    movies: [],
    editions: [],
    copies: [],
    binders: [],
    collections: [],
    roots: [],
    mediaFiles: [],
    watch: [],
    ratings: [],
    credits: [],
    persons: [],
    studios: [],
    movieStudios: [],
    artwork: [],
    loans: [],
  };
  private nextId = 1;
  /** Writes made, by method name (a test reads how much an import wrote). */
  readonly writes: string[] = [];

  save(): () => void {
    const copy = structuredClone(this.t);
    const ids = this.nextId;
    return () => {
      this.t = copy;
      this.nextId = ids;
    };
  }

  /** The repositories of ImportExportDeps, on these tables. */
  deps(): Pick<ImportExportDeps, 'reads' | 'store'> {
    return { reads: this, store: fakeUnitOfWork(this, { reads: this, writer: this }) };
  }

  private id(method: string): number {
    this.writes.push(method);
    return this.nextId++;
  }

  // LibraryReads

  async movies(): Promise<MovieRow[]> {
    return [...this.t.movies].sort(byId);
  }
  async editions(): Promise<EditionRow[]> {
    return [...this.t.editions].sort(byId);
  }
  async copies(): Promise<CopyRow[]> {
    return [...this.t.copies].sort(byId).map((c) => ({
      id: c.id,
      movie_id: c.movie_id,
      edition_id: c.edition_id,
      binder: this.t.binders.find((b) => b.id === c.binder_id)?.name ?? null,
      slot: c.slot,
      notes: c.notes,
    }));
  }
  async binders(): Promise<BinderRow[]> {
    return [...this.t.binders].sort(byId);
  }
  async collections() {
    return [...this.t.collections].sort(byId);
  }
  async roots(): Promise<RootRow[]> {
    return [...this.t.roots].sort(byId).map((r) => ({
      id: r.id,
      path: r.path,
      name: r.name,
      collection: this.t.collections.find((c) => c.id === r.collection_id)?.name ?? null,
    }));
  }
  async mediaFiles(): Promise<MediaFileRow[]> {
    return [...this.t.mediaFiles].sort(byId).map((f) => ({
      id: f.id,
      movie_id: f.movie_id,
      edition_id: f.edition_id,
      root_path: this.t.roots.find((r) => r.id === f.library_root_id)?.path ?? '',
      relative_path: f.relative_path,
      fingerprint: f.fingerprint,
      size_bytes: f.size_bytes,
      edition_label: f.edition_label,
    }));
  }
  async watchStates(userId: number | null): Promise<WatchRow[]> {
    return this.t.watch
      .filter((w) => w.user_id === (userId ?? FIRST_ADMIN))
      .map(({ user_id: _user, ...row }) => row);
  }
  async ratings() {
    return [...this.t.ratings].sort((a, b) => a.movie_id - b.movie_id || (a.source < b.source ? -1 : 1));
  }
  async credits(): Promise<CreditRow[]> {
    return this.t.credits.map((c) => ({
      movie_id: c.movie_id,
      name: this.t.persons.find((p) => p.id === c.person_id)?.name ?? '',
      kind: c.kind,
    }));
  }
  async movieStudios() {
    return this.t.movieStudios.map((m) => ({
      movie_id: m.movie_id,
      name: this.t.studios.find((s) => s.id === m.studio_id)?.name ?? '',
    }));
  }
  async persons() {
    return [...this.t.persons].sort(byId);
  }
  async studios() {
    return [...this.t.studios].sort(byId);
  }
  async artwork(): Promise<ArtworkRow[]> {
    return [...this.t.artwork];
  }
  async loans(): Promise<CopyLoanRow[]> {
    return [...this.t.loans];
  }

  // ImportWriter

  async insertCollection(name: string): Promise<number> {
    const id = this.id('insertCollection');
    this.t.collections.push({ id, name });
    return id;
  }
  async insertRoot(row: { path: string; name: string; collection_id: number | null }): Promise<number> {
    const id = this.id('insertRoot');
    this.t.roots.push({ id, path: row.path, name: row.name, collection_id: row.collection_id });
    return id;
  }
  async updateRoot(id: number, values: { name: string; collection_id: number | null }): Promise<void> {
    this.writes.push('updateRoot');
    Object.assign(this.t.roots.find((r) => r.id === id) ?? {}, values);
  }
  async insertBinders(
    rows: { name: string; capacity: number; slots_per_page: number; created_at: string }[],
  ) {
    return rows.map((row) => {
      const id = this.id('insertBinders');
      this.t.binders.push({ id, ...row });
      return { id, name: row.name };
    });
  }
  async setBinderCapacity(id: number, capacity: number): Promise<void> {
    this.writes.push('setBinderCapacity');
    Object.assign(this.t.binders.find((b) => b.id === id) ?? {}, { capacity });
  }
  async setBinderSlotsPerPage(id: number, slotsPerPage: number): Promise<void> {
    this.writes.push('setBinderSlotsPerPage');
    Object.assign(this.t.binders.find((b) => b.id === id) ?? {}, { slots_per_page: slotsPerPage });
  }
  async insertPersons(names: string[]) {
    return names.map((name) => {
      const id = this.id('insertPersons');
      this.t.persons.push({ id, name });
      return { id, name };
    });
  }
  async insertStudios(names: string[]) {
    return names.map((name) => {
      const id = this.id('insertStudios');
      this.t.studios.push({ id, name });
      return { id, name };
    });
  }
  async insertMovies(rows: NewMovieRow[]) {
    return rows.map((row) => {
      const id = this.id('insertMovies');
      this.t.movies.push({ ...row, id, enriched_at: null });
      return { id, title: row.title, year: row.year, tmdb_id: row.tmdb_id, imdb_id: row.imdb_id };
    });
  }
  async updateMovie(id: number, patch: MoviePatch): Promise<void> {
    this.writes.push('updateMovie');
    Object.assign(this.t.movies.find((m) => m.id === id) ?? {}, patch);
  }
  async insertEditions(rows: NewEditionRow[]) {
    return rows.map((row) => {
      const id = this.id('insertEditions');
      this.t.editions.push({ ...row, id });
      const { created_at: _created, ...rest } = row;
      return { ...rest, id };
    });
  }
  async updateEdition(
    id: number,
    patch: Partial<Pick<EditionRow, 'label' | 'format' | 'region' | 'barcode'>>,
  ) {
    this.writes.push('updateEdition');
    Object.assign(this.t.editions.find((e) => e.id === id) ?? {}, patch);
  }
  async insertCopies(rows: NewCopyRow[]): Promise<void> {
    for (const row of rows) this.t.copies.push({ ...row, id: this.id('insertCopies') });
  }
  async insertLentCopy(row: NewCopyRow, loans: readonly ExportLoan[]): Promise<void> {
    const id = this.id('insertLentCopy');
    this.t.copies.push({ ...row, id });
    for (const l of loans) this.t.loans.push({ physical_copy_id: id, ...l });
  }
  async mergeLoans(copyId: number, loans: readonly ExportLoan[]): Promise<void> {
    this.writes.push('mergeLoans');
    // The rule the real writer applies (domain/loans.ts), not a copy of it.
    const stored = this.t.loans.filter((l) => l.physical_copy_id === copyId);
    for (const l of loansToAdd(stored, loans).add) this.t.loans.push({ physical_copy_id: copyId, ...l });
  }
  async setCopyNotes(id: number, notes: string): Promise<void> {
    this.writes.push('setCopyNotes');
    Object.assign(this.t.copies.find((c) => c.id === id) ?? {}, { notes });
  }
  async upsertRating(movieId: number, source: string, value: string): Promise<void> {
    this.writes.push('upsertRating');
    const row = this.t.ratings.find((r) => r.movie_id === movieId && r.source === source);
    if (row === undefined) this.t.ratings.push({ movie_id: movieId, source, value });
    else row.value = value;
  }
  async replaceCredits(movieId: number, kind: 'cast' | 'director', personIds: number[]): Promise<void> {
    this.writes.push('replaceCredits');
    this.t.credits = this.t.credits.filter((c) => !(c.movie_id === movieId && c.kind === kind));
    for (const personId of personIds) this.t.credits.push({ movie_id: movieId, person_id: personId, kind });
  }
  async replaceStudios(movieId: number, studioIds: number[]): Promise<void> {
    this.writes.push('replaceStudios');
    this.t.movieStudios = this.t.movieStudios.filter((m) => m.movie_id !== movieId);
    for (const studioId of new Set(studioIds))
      this.t.movieStudios.push({ movie_id: movieId, studio_id: studioId });
  }
  async upsertArtwork(movieId: number, values: ArtworkStateValues, fetchedAt: string | null): Promise<void> {
    this.writes.push('upsertArtwork');
    const row = this.t.artwork.find((a) => a.movie_id === movieId);
    if (row === undefined)
      this.t.artwork.push({ movie_id: movieId, ...values, fetched_at: fetchedAt, error: null });
    else Object.assign(row, values);
  }
  async insertMediaFile(row: NewMediaFileRow): Promise<number> {
    const id = this.id('insertMediaFile');
    const { now: _now, ...values } = row;
    this.t.mediaFiles.push({ ...values, id });
    return id;
  }
  async moveMediaFile(id: number, values: { movie_id: number; edition_id?: number }): Promise<void> {
    this.writes.push('moveMediaFile');
    Object.assign(this.t.mediaFiles.find((f) => f.id === id) ?? {}, values);
  }
  async upsertWatch(mediaFileId: number, movieId: number, values: WatchValues): Promise<void> {
    this.writes.push('upsertWatch');
    const { user_id: person, ...state } = values;
    const userId = person ?? FIRST_ADMIN;
    const row = this.t.watch.find((w) => w.media_file_id === mediaFileId && w.user_id === userId);
    if (row === undefined)
      this.t.watch.push({ user_id: userId, media_file_id: mediaFileId, movie_id: movieId, ...state });
    else Object.assign(row, { movie_id: movieId, ...state });
  }
}
