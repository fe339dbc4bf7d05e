import type { MovieDetail } from '@reelshelf/contract';
import type {
  ArtworkImageState,
  ArtworkKind,
  ArtworkRow,
} from '../../src/repositories/artwork.repository.ts';
import type {
  MovieCredit,
  MovieProviderFields,
  MovieRating,
  MovieStudio,
} from '../../src/repositories/movie-metadata.repository.ts';
import type {
  BinderRow,
  EditionRow,
  MovieRow,
  NewMovieRow,
} from '../../src/repositories/movie.repository.ts';
import type { DiscRecords } from '../../src/services/metadata/barcode.service.ts';
import type { EnrichmentRepositories } from '../../src/services/metadata/enrichment.service.ts';
import { type Restorable, fakeUnitOfWork } from './unit-of-work.ts';

interface Tables {
  movies: MovieRow[];
  editions: EditionRow[];
  binders: BinderRow[];
  copies: {
    id: number;
    movie_id: number;
    edition_id: number | null;
    binder_id: number | null;
    slot: string | null;
    notes: string | null;
    created_at: string;
  }[];
  persons: { id: number; tmdb_id: number | null; name: string; profile_path: string | null }[];
  credits: {
    person_id: number;
    movie_id: number;
    role: string;
    character: string | null;
    job: string | null;
    department: string | null;
    sort_order: number;
  }[];
  studios: { id: number; tmdb_id: number | null; name: string }[];
  movieStudios: { movie_id: number; studio_id: number }[];
  ratings: { movie_id: number; source: string; value: string; fetched_at: string }[];
  artwork: ArtworkRow[];
}

/** What SQLite would refuse: a UNIQUE constraint of the schema (migrations/0001-initial.ts). */
class UniqueViolation extends Error {
  constructor(what: string) {
    super(`UNIQUE constraint failed: ${what}`);
  }
}

/**
 * The catalogue tables a scanned disc and enrichment read and write, in memory: movies, disc editions,
 * binders, physical copies, persons and credits, studios, ratings and artwork state. One object plays
 * MovieRepository (the parts barcode and enrichment use), MovieMetadataRepository and the artwork
 * repository's get/setImage, with the schema's unique constraints (a movie's TMDb id, a barcode, a
 * binder's slot) enforced as SQLite would, so a unit test reads the outcome from its tables.
 */
export class FakeMetadataTables implements DiscRecords, Restorable {
  t: Tables = {
    movies: [],
    editions: [],
    binders: [],
    copies: [],
    persons: [],
    credits: [],
    studios: [],
    movieStudios: [],
    ratings: [],
    artwork: [],
  };
  private nextId = 1;

  save(): () => void {
    const copy = structuredClone(this.t);
    const ids = this.nextId;
    return () => {
      this.t = copy;
      this.nextId = ids;
    };
  }

  /** The barcode service's transaction: these tables, rolled back when the work throws. */
  discRecords() {
    return fakeUnitOfWork<DiscRecords>(this, this);
  }

  /** The enrichment service's transaction: these tables, rolled back when the work throws. */
  enrichmentStore() {
    const repositories: EnrichmentRepositories = { metadata: this, artwork: this };
    return fakeUnitOfWork(this, repositories);
  }

  /** A movie as a person or a scan would have created it, before any enrichment. */
  addMovie(fields: Partial<MovieRow> & { title: string }): MovieRow {
    const row: MovieRow = {
      id: this.nextId++,
      sort_title: fields.title,
      normalized_title: fields.title.toLowerCase(),
      original_title: null,
      year: null,
      overview: null,
      tagline: null,
      runtime_minutes: null,
      tmdb_id: null,
      imdb_id: null,
      genres_json: null,
      tmdb_collection_id: null,
      tmdb_collection_name: null,
      binder_id: null,
      has_digital_store_a: 0,
      has_digital_store_b: 0,
      watched: 0,
      certification: null,
      enriched_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      ...fields,
    };
    this.uniqueTmdbId(row.tmdb_id, row.id);
    this.t.movies.push(row);
    return row;
  }

  movie(id: number): MovieRow | undefined {
    return this.t.movies.find((m) => m.id === id);
  }

  /** The movie as GET /api/movies/{id} shows it (MovieService.get's answer, from these tables). */
  detail(id: number): MovieDetail {
    const row = this.movie(id);
    if (row === undefined) throw new Error(`no movie ${id}`);
    const credits = this.t.credits
      .filter((c) => c.movie_id === id)
      .map((c) => ({ ...c, name: this.t.persons.find((p) => p.id === c.person_id)?.name ?? '' }));
    return {
      id: row.id,
      title: row.title,
      year: row.year,
      tmdb_id: row.tmdb_id,
      imdb_id: row.imdb_id,
      has_digital_store_a: row.has_digital_store_a === 1,
      has_digital_store_b: row.has_digital_store_b === 1,
      watched: row.watched === 1,
      created_at: row.created_at,
      updated_at: row.updated_at,
      original_title: row.original_title,
      overview: row.overview,
      runtime_minutes: row.runtime_minutes,
      certification: row.certification,
      editions: this.t.editions
        .filter((e) => e.movie_id === id)
        .map((e) => ({ id: e.id, label: e.label, format: e.format, barcode: e.barcode })),
      physical_copies: this.t.copies
        .filter((c) => c.movie_id === id)
        .map((c) => ({
          id: c.id,
          edition_id: c.edition_id,
          binder: this.t.binders.find((b) => b.id === c.binder_id)?.name ?? null,
          slot: c.slot,
          format: this.t.editions.find((e) => e.id === c.edition_id)?.format ?? null,
          notes: c.notes,
        })),
      media_files: [],
      tagline: row.tagline,
      genres: row.genres_json === null ? [] : (JSON.parse(row.genres_json) as string[]),
      collection: row.tmdb_collection_name,
      ratings: this.t.ratings
        .filter((r) => r.movie_id === id)
        .map((r) => ({ source: r.source, value: r.value, fetched_at: r.fetched_at })),
      cast: credits
        .filter((c) => c.role === 'cast')
        .sort((a, b) => a.sort_order - b.sort_order)
        .map((c) => ({ name: c.name, character: c.character })),
      directors: credits.filter((c) => c.job === 'Director').map((c) => c.name),
      studios: this.studiosOf(id),
      enriched_at: row.enriched_at,
    };
  }

  /** A movie's credits as person names in billing order, cast first: `name (role: character|job)`. */
  creditsOf(movieId: number): string[] {
    return this.t.credits
      .filter((c) => c.movie_id === movieId)
      .sort((a, b) => (a.role === b.role ? a.sort_order - b.sort_order : a.role < b.role ? -1 : 1))
      .map((c) => {
        const person = this.t.persons.find((p) => p.id === c.person_id);
        return `${person?.name ?? '?'} (${c.role}: ${c.character ?? c.job ?? ''})`;
      });
  }

  studiosOf(movieId: number): string[] {
    const ids = new Set(this.t.movieStudios.filter((s) => s.movie_id === movieId).map((s) => s.studio_id));
    return this.t.studios
      .filter((s) => ids.has(s.id))
      .map((s) => s.name)
      .sort();
  }

  ratingsOf(movieId: number): string[] {
    return this.t.ratings.filter((r) => r.movie_id === movieId).map((r) => `${r.source}=${r.value}`);
  }

  private uniqueTmdbId(tmdbId: number | null, movieId: number): void {
    if (tmdbId !== null && this.t.movies.some((m) => m.tmdb_id === tmdbId && m.id !== movieId))
      throw new UniqueViolation('movies.tmdb_id');
  }

  // MovieRepository

  async getById(id: number): Promise<MovieRow | undefined> {
    const row = this.movie(id);
    return row === undefined ? undefined : { ...row };
  }

  async getByTmdbId(tmdbId: number): Promise<MovieRow | undefined> {
    const row = this.t.movies.find((m) => m.tmdb_id === tmdbId);
    return row === undefined ? undefined : { ...row };
  }

  async insert(row: NewMovieRow): Promise<number> {
    return this.addMovie({ ...row, tagline: null, genres_json: null, enriched_at: null }).id;
  }

  async editionByBarcode(barcode: string): Promise<{ id: number; movie_id: number } | undefined> {
    const row = this.t.editions.find((e) => e.barcode === barcode);
    return row === undefined ? undefined : { id: row.id, movie_id: row.movie_id };
  }

  async insertEdition(row: {
    movie_id: number;
    label: string | null;
    format: string | null;
    barcode: string | null;
    created_at: string;
  }): Promise<number> {
    if (row.barcode !== null && this.t.editions.some((e) => e.barcode === row.barcode))
      throw new UniqueViolation('disc_editions.barcode');
    const id = this.nextId++;
    this.t.editions.push({ id, region: null, ...row });
    return id;
  }

  async getOrCreateBinder(name: string, capacity: number, now: string): Promise<BinderRow> {
    const existing = this.t.binders.find((b) => b.name === name);
    if (existing !== undefined) return { ...existing };
    const row = { id: this.nextId++, name, capacity, slots_per_page: 8, created_at: now };
    this.t.binders.push(row);
    return { ...row };
  }

  async slotsTaken(binderId: number): Promise<string[]> {
    return this.t.copies.flatMap((c) => (c.binder_id === binderId && c.slot !== null ? [c.slot] : []));
  }

  async isSlotTaken(binderId: number, slot: string): Promise<boolean> {
    return this.t.copies.some((c) => c.binder_id === binderId && c.slot === slot);
  }

  /** Wishes: these unit tests keep none (the wish list is tested through the API on both engines). */
  fulfilWishes(_movieId: number): Promise<number> {
    return Promise.resolve(0);
  }

  async insertCopy(row: {
    movie_id: number;
    edition_id: number | null;
    binder_id: number | null;
    slot: string | null;
    notes: string | null;
    created_at: string;
  }): Promise<number> {
    if (
      row.binder_id !== null &&
      row.slot !== null &&
      this.t.copies.some((c) => c.binder_id === row.binder_id && c.slot === row.slot)
    )
      throw new UniqueViolation('physical_copies.binder_id, physical_copies.slot');
    const id = this.nextId++;
    this.t.copies.push({ id, ...row });
    return id;
  }

  // MovieMetadataRepository

  async otherWithTmdbId(tmdbId: number, movieId: number): Promise<number | undefined> {
    return this.t.movies.find((m) => m.tmdb_id === tmdbId && m.id !== movieId)?.id;
  }

  async yearAndImdbId(
    movieId: number,
  ): Promise<{ year: number | null; imdb_id: string | null; certification: string | null }> {
    const row = this.movie(movieId);
    if (row === undefined) throw new Error(`no movie ${movieId}`);
    return { year: row.year, imdb_id: row.imdb_id, certification: row.certification };
  }

  async updateProviderFields(movieId: number, fields: MovieProviderFields): Promise<void> {
    const row = this.movie(movieId);
    if (row === undefined) return;
    if (fields.tmdb_id !== undefined) this.uniqueTmdbId(fields.tmdb_id, movieId);
    Object.assign(row, fields);
  }

  async replaceCredits(movieId: number, credits: readonly MovieCredit[]): Promise<void> {
    this.t.credits = this.t.credits.filter((c) => c.movie_id !== movieId);
    for (const credit of credits) {
      let person = this.t.persons.find((p) => p.tmdb_id === credit.tmdbId);
      if (person === undefined) {
        person = {
          id: this.nextId++,
          tmdb_id: credit.tmdbId,
          name: credit.name,
          profile_path: credit.profilePath,
        };
        this.t.persons.push(person);
      } else person.name = credit.name;
      this.t.credits.push({
        person_id: person.id,
        movie_id: movieId,
        role: credit.role,
        character: credit.character,
        job: credit.job,
        department: credit.department,
        sort_order: credit.order,
      });
    }
  }

  async replaceStudios(movieId: number, studios: readonly MovieStudio[]): Promise<void> {
    this.t.movieStudios = this.t.movieStudios.filter((s) => s.movie_id !== movieId);
    for (const studio of studios) {
      let row = this.t.studios.find((s) => s.tmdb_id === studio.tmdbId);
      if (row === undefined) {
        row = { id: this.nextId++, tmdb_id: studio.tmdbId, name: studio.name };
        this.t.studios.push(row);
      } else row.name = studio.name;
      const studioId = row.id;
      if (!this.t.movieStudios.some((s) => s.movie_id === movieId && s.studio_id === studioId))
        this.t.movieStudios.push({ movie_id: movieId, studio_id: studioId });
    }
  }

  async replaceRatings(movieId: number, ratings: readonly MovieRating[], fetchedAt: string): Promise<void> {
    this.t.ratings = this.t.ratings.filter((r) => r.movie_id !== movieId);
    for (const r of ratings) this.t.ratings.push({ movie_id: movieId, ...r, fetched_at: fetchedAt });
  }

  // ArtworkRepository

  async get(movieId: number): Promise<ArtworkRow | undefined> {
    const row = this.t.artwork.find((a) => a.movie_id === movieId);
    return row === undefined ? undefined : { ...row };
  }

  async setImage(
    movieId: number,
    kind: ArtworkKind,
    image: ArtworkImageState,
    fetchedAt: string | null,
    error: string | null,
  ): Promise<void> {
    const values =
      kind === 'poster'
        ? { poster_state: image.state, poster_source: image.source, poster_path: image.path }
        : { backdrop_state: image.state, backdrop_source: image.source, backdrop_path: image.path };
    const row = this.t.artwork.find((a) => a.movie_id === movieId);
    if (row !== undefined) Object.assign(row, values, { fetched_at: fetchedAt, error });
    else
      this.t.artwork.push({
        movie_id: movieId,
        poster_state: 'none',
        poster_source: null,
        poster_path: null,
        backdrop_state: 'none',
        backdrop_source: null,
        backdrop_path: null,
        ...values,
        fetched_at: fetchedAt,
        error,
      });
  }
}
