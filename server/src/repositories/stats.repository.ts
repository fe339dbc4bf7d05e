import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import type { RipQueueGroup } from '../domain/stats/rip-queue-series.ts';
import { filmHasDisc, filmHasPresentFile } from './rip-queue.predicate.ts';
import { movieVisible } from './visibility.repository.ts';
import type { PlayedFilm } from '../domain/stats/your-year.ts';

export interface CountRow {
  key: string | null;
  count: number;
}

export interface RootSpaceRow {
  id: number;
  name: string;
  files: number;
  bytes: number;
}

/** A film a person played in a year: their plays of it, the first and last start, time watched. */
export type YearFilmRow = PlayedFilm;

export interface YearMonthRow {
  /** `01`…`12`. */
  month: string;
  plays: number;
  seconds: number;
}

/** A number from a count or sum (PostgreSQL's bigint and numeric arrive as text; null as 0). */
const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/**
 * The /stats figures as grouped SQL (issue 27 item 6): one statement per chart, each a GROUP BY the
 * database answers from its indexes, so a page costs the same few statements at 10 or 10,000 films.
 * Every film-bearing statement goes through the viewer's filter (`movieVisible`): a film above a
 * child's limit is neither counted nor named.
 */
export class StatsRepository {
  constructor(private readonly db: Db) {}

  /** Physical copies by their edition's format (null: no format recorded). */
  async discsByFormat(filter: CertificationFilter | null): Promise<CountRow[]> {
    const rows = await this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('disc_editions as e', 'e.id', 'pc.edition_id')
      .select(['e.format as key', (eb) => eb.fn.countAll<string | number>().as('count')])
      .where(movieVisible(filter, 'm.certification'))
      .groupBy('e.format')
      .execute();
    return rows.map((r) => ({ key: r.key, count: num(r.count) }));
  }

  /** Physical copies by their film's decade (`1990`; null: no year). */
  async discsByDecade(filter: CertificationFilter | null): Promise<CountRow[]> {
    const decade = sql<number | null>`(m.year / 10) * 10`;
    const rows = await this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .select([decade.as('key'), (eb) => eb.fn.countAll<string | number>().as('count')])
      .where(movieVisible(filter, 'm.certification'))
      .groupBy(decade)
      .execute();
    return rows.map((r) => ({ key: r.key === null ? null : String(num(r.key)), count: num(r.count) }));
  }

  /** Films by `file` (a present file), `disc` (a disc, no present file: the rip queue) or `none`. */
  async filmsByFiles(filter: CertificationFilter | null): Promise<CountRow[]> {
    const kind = sql<string>`case when ${filmHasPresentFile('m.id')} then 'file' when ${filmHasDisc('m.id')} then 'disc' else 'none' end`;
    const rows = await this.db
      .selectFrom('movies as m')
      .select([kind.as('key'), (eb) => eb.fn.countAll<string | number>().as('count')])
      .where(movieVisible(filter, 'm.certification'))
      .groupBy(kind)
      .execute();
    return rows.map((r) => ({ key: r.key, count: num(r.count) }));
  }

  /**
   * Every library root with its present files' count and bytes; only files of films the viewer
   * sees count (a file matched to no film counts when `unmatched`: it is unrated).
   */
  async spaceByRoot(filter: CertificationFilter | null, unmatched: boolean): Promise<RootSpaceRow[]> {
    const roots = await this.db.selectFrom('library_roots').select(['id', 'name']).orderBy('name').execute();
    const seen: Expression<SqlBool> =
      filter === null
        ? sql<SqlBool>`1 = 1`
        : sql<SqlBool>`((m.id is not null and ${movieVisible(filter, 'm.certification')}) or (m.id is null and ${unmatched ? sql`1 = 1` : sql`1 = 0`}))`;
    const sums = await this.db
      .selectFrom('media_files as f')
      .leftJoin('movies as m', 'm.id', 'f.movie_id')
      .select([
        'f.library_root_id as id',
        (eb) => eb.fn.countAll<string | number>().as('files'),
        (eb) => eb.fn.sum<string | number | null>('f.size_bytes').as('bytes'),
      ])
      .where('f.status', '=', 'present')
      .where(seen)
      .groupBy('f.library_root_id')
      .execute();
    const byRoot = new Map(sums.map((s) => [s.id, s]));
    return roots.map((r) => ({
      id: r.id,
      name: r.name,
      files: num(byRoot.get(r.id)?.files),
      bytes: num(byRoot.get(r.id)?.bytes),
    }));
  }

  /**
   * Physical copies grouped by the month they were added and the month the first file of their film
   * that is present now was added (null: none): what the rip queue's history is rebuilt from.
   */
  async ripQueueGroups(filter: CertificationFilter | null): Promise<RipQueueGroup[]> {
    const firstFiles = this.db
      .selectFrom('media_files')
      .select(['movie_id', (eb) => eb.fn.min('created_at').as('first_at')])
      .where('status', '=', 'present')
      .where('movie_id', 'is not', null)
      .groupBy('movie_id')
      .as('ff');
    const added = sql<string>`substr(pc.created_at, 1, 7)`;
    const ripped = sql<string | null>`substr(ff.first_at, 1, 7)`;
    const rows = await this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin(firstFiles, 'ff.movie_id', 'pc.movie_id')
      .select([added.as('added'), ripped.as('ripped'), (eb) => eb.fn.countAll<string | number>().as('discs')])
      .where(movieVisible(filter, 'm.certification'))
      .groupBy([added, ripped])
      .execute();
    return rows.map((r) => ({ added: r.added, ripped: r.ripped, discs: num(r.discs) }));
  }

  /** The condition on a play's film: visible to the filter (a play of no film is unrated). */
  private playVisible(filter: CertificationFilter | null, unmatched: boolean): Expression<SqlBool> {
    if (filter === null) return sql<SqlBool>`1 = 1`;
    return sql<SqlBool>`((m.id is not null and ${movieVisible(filter, 'm.certification')}) or (m.id is null and ${unmatched ? sql`1 = 1` : sql`1 = 0`}))`;
  }

  /** A person's plays in `[from, to)` (ISO instants), grouped by film. */
  async yearFilms(
    userId: number,
    from: string,
    to: string,
    filter: CertificationFilter | null,
    unmatched: boolean,
  ): Promise<YearFilmRow[]> {
    const rows = await this.db
      .selectFrom('play_history as h')
      .leftJoin('movies as m', 'm.id', 'h.movie_id')
      .select([
        'h.movie_id',
        sql<string>`coalesce(m.title, min(h.title))`.as('title'),
        'm.genres_json',
        (eb) => eb.fn.countAll<string | number>().as('plays'),
        (eb) => eb.fn.min('h.started_at').as('first_at'),
        (eb) => eb.fn.max('h.started_at').as('last_at'),
        (eb) => eb.fn.sum<string | number | null>('h.position_seconds').as('seconds'),
      ])
      .where('h.user_id', '=', userId)
      .where('h.started_at', '>=', from)
      .where('h.started_at', '<', to)
      .where(this.playVisible(filter, unmatched))
      .groupBy(['h.movie_id', 'm.title', 'm.genres_json'])
      .execute();
    return rows.map((r) => ({
      movie_id: r.movie_id,
      title: r.title,
      genres_json: r.genres_json,
      plays: num(r.plays),
      first_at: String(r.first_at),
      last_at: String(r.last_at),
      seconds: num(r.seconds),
    }));
  }

  /** A person's plays in `[from, to)` by month of the start. */
  async yearMonths(
    userId: number,
    from: string,
    to: string,
    filter: CertificationFilter | null,
    unmatched: boolean,
  ): Promise<YearMonthRow[]> {
    const month = sql<string>`substr(h.started_at, 6, 2)`;
    const rows = await this.db
      .selectFrom('play_history as h')
      .leftJoin('movies as m', 'm.id', 'h.movie_id')
      .select([
        month.as('month'),
        (eb) => eb.fn.countAll<string | number>().as('plays'),
        (eb) => eb.fn.sum<string | number | null>('h.position_seconds').as('seconds'),
      ])
      .where('h.user_id', '=', userId)
      .where('h.started_at', '>=', from)
      .where('h.started_at', '<', to)
      .where(this.playVisible(filter, unmatched))
      .groupBy(month)
      .execute();
    return rows.map((r) => ({ month: r.month, plays: num(r.plays), seconds: num(r.seconds) }));
  }

  /** A person's plays in `[from, to)` by device profile. */
  async yearDevices(
    userId: number,
    from: string,
    to: string,
    filter: CertificationFilter | null,
    unmatched: boolean,
  ): Promise<CountRow[]> {
    const rows = await this.db
      .selectFrom('play_history as h')
      .leftJoin('movies as m', 'm.id', 'h.movie_id')
      .select(['h.device as key', (eb) => eb.fn.countAll<string | number>().as('count')])
      .where('h.user_id', '=', userId)
      .where('h.started_at', '>=', from)
      .where('h.started_at', '<', to)
      .where(this.playVisible(filter, unmatched))
      .groupBy('h.device')
      .execute();
    return rows.map((r) => ({ key: r.key, count: num(r.count) }));
  }

  /** The household's people (id order): whose year an admin may pick. */
  people(): Promise<{ id: number; name: string }[]> {
    return this.db.selectFrom('users').select(['id', 'name']).orderBy('id').execute();
  }
}
