import { type OperationNodeSource, type Selectable, sql } from 'kysely';
import { compiledSelect } from '../db/compiled-select.ts';
import type { Db } from '../db/database.ts';
import { preparedMark } from '../db/prepared-statements.ts';
import type { MovieArtworkStateTable } from '../db/schema.ts';
import { type SqlEngine, sqlEngineOf } from '../db/sql-engine.ts';

export interface LibraryMovieRow {
  id: number;
  title: string;
  /** The listing's order: `sort_title, id` (SQLite's binary collation). */
  sort_title: string;
  year: number | null;
  overview: string | null;
  has_digital_store_a: number;
  has_digital_store_b: number;
  created_at: string;
}

export interface LibraryCopyRow {
  movie_id: number;
  edition_id: number | null;
  binder: string | null;
  slot: string | null;
  format: string | null;
  /** The open loan's borrower, start and due day; null while the copy is home. */
  loan_to: string | null;
  loan_lent_at: string | null;
  loan_due: string | null;
}

export interface LibraryFileRow {
  id: number;
  movie_id: number | null;
  edition_id: number | null;
  root_path: string;
  relative_path: string;
  size_bytes: number;
  fingerprint: string | null;
  edition_label: string | null;
  status: string;
  analysis_status: string;
  capabilities_json: string | null;
  analysis_error: string | null;
  analyzed_size_bytes: number | null;
  analyzed_fingerprint: string | null;
  position_seconds: number | null;
  watched: number | null;
  /** The file's subtitle sidecars as a JSON array of subtitle_sidecars rows ('[]' without any). */
  sidecars_json: string;
}

export interface CreditNameRow {
  movie_id: number;
  name: string;
  role: string;
}

/** Everything the listing presents of the movies in a scope (LibraryRepository.presentationRows). */
export interface PresentationRows {
  movies: LibraryMovieRow[];
  copies: LibraryCopyRow[];
  files: LibraryFileRow[];
  credits: CreditNameRow[];
  artwork: Selectable<MovieArtworkStateTable>[];
}

/** Which movies a read covers: all (undefined), one, or a list (a rebuild after some changed). */
/** A copy as the listing shows it: its place, format and open loan (a copy has at most one). */
const COPY_COLUMNS = [
  'c.movie_id',
  'c.edition_id',
  'b.name as binder',
  'c.slot',
  'e.format',
  'l.borrower as loan_to',
  'l.lent_at as loan_lent_at',
  'l.due as loan_due',
] as const;

export type MovieScope = number | readonly number[] | undefined;

/**
 * A file's subtitle sidecars (`s`, correlated on `f.id`) as one JSON array text, in relative_path
 * order, '[]' without any: SQLite's json_group_array, PostgreSQL's json_agg (whose `json` value pg
 * would parse: cast to text, as SQLite gives it).
 */
function sidecarsJson(engine: SqlEngine) {
  const fields = sql`'relative_path', s.relative_path, 'size_bytes', s.size_bytes, 'mtime_ms', s.mtime_ms,
    'format', s.format, 'kind', s.kind, 'language', s.language, 'title', s.title,
    'forced', s.forced, 'default', s."default", 'sdh', s.sdh`;
  const array =
    engine === 'postgres'
      ? sql`coalesce(json_agg(json_build_object(${fields}) order by s.relative_path), '[]')::text`
      : sql`coalesce(json_group_array(json_object(${fields}) order by s.relative_path), '[]')`;
  return sql<string>`(select ${array} from subtitle_sidecars s where s.media_file_id = f.id)`;
}

/** The columns of a movie the listing presents (both engines' reads of presentationRows). */
const LISTED_MOVIE_COLUMNS = [
  'id',
  'title',
  'sort_title',
  'year',
  'overview',
  'has_digital_store_a',
  'has_digital_store_b',
  'created_at',
] as const;

/** Ids per query: well under SQLite's limit of bound parameters. */
const IDS_PER_QUERY = 500;

/**
 * Scopes of at most this many movies read their presentation rows with a prepared statement on
 * PostgreSQL (a rebuild after a few changes, a movie page): its plan, made for a few ids, is never
 * used for a full build's slices of 1,000.
 */
const PREPARED_SCOPE = 100;

/** Runs `read` for all (undefined), one, or the ids in slices, concatenating the rows. */
async function scoped<T>(
  scope: MovieScope,
  read: (ids: readonly number[] | undefined) => Promise<T[]>,
): Promise<T[]> {
  if (scope === undefined) return read(undefined);
  const ids = typeof scope === 'number' ? [scope] : scope;
  const out: T[] = [];
  for (let at = 0; at < ids.length; at += IDS_PER_QUERY) {
    out.push(...(await read(ids.slice(at, at + IDS_PER_QUERY))));
  }
  return out;
}

/**
 * Bulk reads behind GET /library: a handful of ordered queries over whole tables instead of one
 * query per movie, so 10,000 movies cost the same five round trips as ten. Each takes the same
 * optional scope (one movie for its page; the movies a change touched, for the listing cache); rows
 * of a list scope come in the order within each slice of ids, and the caller groups them.
 */
export class LibraryRepository {
  constructor(private readonly db: Db) {}

  /**
   * The rows of {@link movies}, {@link copies}, {@link files} (with `userId`'s watch state),
   * {@link creditNames} and {@link artwork} of a scope, each in its order. SQLite: the five queries.
   * PostgreSQL: one statement, each part a JSON array of its rows (the same columns, values and
   * order), so a rebuild after one change, a search page or a slice of a full build waits for one
   * round trip instead of five (issue 26: PostgreSQL within 2× of SQLite, whose queries cost no trip).
   */
  async presentationRows(scope: MovieScope, userId: number): Promise<PresentationRows> {
    if (sqlEngineOf(this.db) === 'postgres') return this.presentationRowsAtOnce(scope, userId);
    const [movies, copies, files, credits, artwork] = await Promise.all([
      this.movies(scope),
      this.copies(scope),
      this.files(scope, userId),
      this.creditNames(scope),
      this.artwork(scope),
    ]);
    return { movies, copies, files, credits, artwork };
  }

  private async presentationRowsAtOnce(scope: MovieScope, userId: number): Promise<PresentationRows> {
    const ids = scope === undefined ? null : typeof scope === 'number' ? [scope] : [...scope];
    const db = this.db;
    // One movie (a rebuild after one change, a movie page) is `= $n`, not `= any($n)`: its generic
    // plan is then estimated like its custom ones, and PostgreSQL stops planning it after five runs.
    const one = ids?.length === 1 ? ids[0] : undefined;
    const within = (column: string) =>
      ids === null
        ? sql<boolean>`true`
        : one !== undefined
          ? sql<boolean>`${sql.ref(column)} = ${one}::integer`
          : sql<boolean>`${sql.ref(column)} = any(${ids}::integer[])`;
    // Each part: its rows as a JSON array (to_json keeps the columns' names and order), in the order
    // of its own query; `ord_*` columns only order and are dropped here.
    const part = (rows: OperationNodeSource, order: string) =>
      sql<string>`(select coalesce(json_agg(to_json(x) order by ${sql.raw(order)}), '[]')::text from (${rows}) x)`;
    const movies = db.selectFrom('movies').where(within('id')).select(LISTED_MOVIE_COLUMNS);
    const copies = db
      .selectFrom('physical_copies as c')
      .where(within('c.movie_id'))
      .leftJoin('binders as b', 'b.id', 'c.binder_id')
      .leftJoin('disc_editions as e', 'e.id', 'c.edition_id')
      .leftJoin('loans as l', (j) =>
        j.onRef('l.physical_copy_id', '=', 'c.id').on('l.returned_at', 'is', null),
      )
      .select([...COPY_COLUMNS, 'c.id as ord_id']);
    const files = this.fileQuery(userId).where(within('f.movie_id'));
    const credits = db
      .selectFrom('person_movie as pm')
      .where(within('pm.movie_id'))
      .innerJoin('persons as p', 'p.id', 'pm.person_id')
      .select(['pm.movie_id', 'p.name', 'pm.role', 'pm.sort_order as ord_sort'])
      .where((eb) => eb.or([eb('pm.role', '=', 'cast'), eb('pm.job', '=', 'Director')]));
    const artwork = db.selectFrom('movie_artwork_state').selectAll().where(within('movie_id'));
    // Parsing and planning this statement cost more than running it for a few movies (docs/database.md).
    const prepared = ids !== null && ids.length <= PREPARED_SCOPE ? preparedMark : sql``;
    const row = await sql<Record<'movies' | 'copies' | 'files' | 'credits' | 'artwork', string>>`select
      ${part(movies, 'x.sort_title, x.id')} as movies,
      ${part(copies, 'x.movie_id, x.ord_id')} as copies,
      ${part(files, 'x.movie_id, x.id')} as files,
      ${part(credits, 'x.movie_id, x.role, x.ord_sort')} as credits,
      ${part(artwork, 'x.movie_id')} as artwork ${prepared}`
      .execute(db)
      .then((r) => r.rows[0]);
    if (row === undefined) throw new Error('presentation rows: no row');
    const parse = <T>(text: string) => JSON.parse(text) as T[];
    return {
      movies: parse<LibraryMovieRow>(row.movies),
      copies: parse<LibraryCopyRow & { ord_id?: number }>(row.copies).map(({ ord_id: _, ...c }) => c),
      files: parse<LibraryFileRow>(row.files),
      credits: parse<CreditNameRow & { ord_sort?: number }>(row.credits).map(({ ord_sort: _, ...c }) => c),
      artwork: parse<Selectable<MovieArtworkStateTable>>(row.artwork),
    };
  }

  async movies(scope?: MovieScope): Promise<LibraryMovieRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('movies')
        .$if(ids !== undefined, (q) => q.where('id', 'in', ids ?? []))
        .select(LISTED_MOVIE_COLUMNS)
        .orderBy('sort_title')
        .orderBy('id')
        .execute(),
    );
  }

  async copies(scope?: MovieScope): Promise<LibraryCopyRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('physical_copies as c')
        .$if(ids !== undefined, (q) => q.where('c.movie_id', 'in', ids ?? []))
        .leftJoin('binders as b', 'b.id', 'c.binder_id')
        .leftJoin('disc_editions as e', 'e.id', 'c.edition_id')
        .leftJoin('loans as l', (j) =>
          j.onRef('l.physical_copy_id', '=', 'c.id').on('l.returned_at', 'is', null),
        )
        .select(COPY_COLUMNS)
        .orderBy('c.movie_id')
        .orderBy('c.id')
        .execute(),
    );
  }

  /** The files of the movies in scope, with `userId`'s watch state. */
  async files(scope: MovieScope, userId: number): Promise<LibraryFileRow[]> {
    return scoped(scope, (ids) =>
      this.fileQuery(userId)
        .$if(ids !== undefined, (q) => q.where('f.movie_id', 'in', ids ?? []))
        .orderBy('f.movie_id')
        .orderBy('f.id')
        .execute(),
    );
  }

  /** Every movie id in the listing's order (sort_title, id): a full build reads the movies in slices of it. */
  async movieOrder(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('movies')
      .select('id')
      .orderBy('sort_title')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** The files matched to no movie, by id, with `userId`'s watch state. */
  async unmatchedFiles(userId: number): Promise<LibraryFileRow[]> {
    return this.fileQuery(userId).where('f.movie_id', 'is', null).orderBy('f.id').execute();
  }

  /** Files by id, in id order (those a change named: the listing places each where it now belongs). */
  async filesById(fileIds: readonly number[], userId: number): Promise<LibraryFileRow[]> {
    const rows = await scoped(fileIds, (ids) =>
      this.fileQuery(userId)
        .where('f.id', 'in', ids ?? [])
        .orderBy('f.id')
        .execute(),
    );
    return rows.sort((a, b) => a.id - b.id);
  }

  /**
   * One file in the listing's shape (streaming and prewarm decide with the same rules), with the
   * watch state of `userId` (none without one: a stream's decision does not depend on it). Every
   * stream request asks this, so the query is compiled once per database ({@link compiledSelect}).
   */
  async file(id: number, userId: number | null = null): Promise<LibraryFileRow | undefined> {
    // Users are numbered from 1: user 0 has no state.
    return (await LibraryRepository.fileById(this.db, [userId ?? 0, id]))[0];
  }

  private static readonly fileById = compiledSelect<LibraryFileRow>(
    (db) => new LibraryRepository(db).fileQuery(0).where('f.id', '=', 0),
    2,
  );

  /** Files with one person's watch state: joined on (user, file), the key, so a file is one row. */
  private fileQuery(userId: number) {
    return this.db
      .selectFrom('media_files as f')
      .innerJoin('library_roots as r', 'r.id', 'f.library_root_id')
      .leftJoin('watch_state as w', (join) =>
        join.onRef('w.media_file_id', '=', 'f.id').on('w.user_id', '=', userId),
      )
      .select([
        'f.id',
        'f.movie_id',
        'f.edition_id',
        'r.path as root_path',
        'f.relative_path',
        'f.size_bytes',
        'f.fingerprint',
        'f.edition_label',
        'f.status',
        'f.analysis_status',
        'f.capabilities_json',
        'f.analysis_error',
        'f.analyzed_size_bytes',
        'f.analyzed_fingerprint',
        'w.position_seconds',
        'w.watched',
        // One indexed lookup per file (unique media_file_id, relative_path): no sidecar, no cost.
        sidecarsJson(sqlEngineOf(this.db)).as('sidecars_json'),
      ]);
  }

  async artwork(scope?: MovieScope) {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('movie_artwork_state')
        .selectAll()
        .$if(ids !== undefined, (q) => q.where('movie_id', 'in', ids ?? []))
        .execute(),
    );
  }

  /** Cast (in billing order) and directors, the names /library exposes for search. */
  async creditNames(scope?: MovieScope): Promise<CreditNameRow[]> {
    return scoped(scope, (ids) =>
      this.db
        .selectFrom('person_movie as pm')
        .$if(ids !== undefined, (q) => q.where('pm.movie_id', 'in', ids ?? []))
        .innerJoin('persons as p', 'p.id', 'pm.person_id')
        .select(['pm.movie_id', 'p.name', 'pm.role'])
        .where((eb) => eb.or([eb('pm.role', '=', 'cast'), eb('pm.job', '=', 'Director')]))
        .orderBy('pm.movie_id')
        .orderBy('pm.role')
        .orderBy('pm.sort_order')
        .execute(),
    );
  }
}
