import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';

/**
 * The visibility rule (domain/people/visibility.ts) as a SQL condition on a movies row: its
 * certification (trimmed, upper case) is one the limit allows, or it is unrated (none, or a name the
 * country's system does not know) and the limit allows unrated films. Every list query that can name
 * a film takes it through here; `null` (no limit) adds nothing.
 */
export function certificationAllows(
  filter: CertificationFilter,
  certification: Expression<string | null>,
): Expression<SqlBool> {
  const key = sql<string>`upper(trim(${certification}))`;
  const rated =
    filter.allowed.length === 0 ? sql<SqlBool>`0 = 1` : sql<SqlBool>`${key} in (${sql.join(filter.allowed)})`;
  if (!filter.allowUnrated) return sql<SqlBool>`(${certification} is not null and ${rated})`;
  const unknown =
    filter.known.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${key} not in (${sql.join(filter.known)})`;
  return sql<SqlBool>`(${certification} is null or ${unknown} or ${rated})`;
}

/** `where` condition: the movies whose `column` (`m.certification`) a filter lets through; true without one. */
export function movieVisible(filter: CertificationFilter | null, column: string): Expression<SqlBool> {
  return filter === null ? sql<SqlBool>`1 = 1` : certificationAllows(filter, sql.ref(column));
}

/** What the visibility service reads: movie ids a filter lets through, and what an id names. */
export class VisibilityRepository {
  constructor(private readonly db: Db) {}

  async visibleMovieIds(filter: CertificationFilter): Promise<number[]> {
    const rows = await this.db
      .selectFrom('movies as m')
      .select('m.id')
      .where(certificationAllows(filter, sql.ref('m.certification')))
      .execute();
    return rows.map((r) => r.id);
  }

  /** A person's role and limit columns; undefined when there is no such person. */
  userLimit(
    userId: number,
  ): Promise<{ role: string; max_certification: string | null; allow_unrated: number } | undefined> {
    return this.db
      .selectFrom('users')
      .select(['role', 'max_certification', 'allow_unrated'])
      .where('id', '=', userId)
      .executeTakeFirst();
  }

  /** The movie's certification; undefined when there is no such movie. */
  movie(movieId: number): Promise<{ certification: string | null } | undefined> {
    return this.db.selectFrom('movies').select('certification').where('id', '=', movieId).executeTakeFirst();
  }

  /** The file's movie and its certification (both null for a file matched to no movie); undefined: no such file. */
  mediaFile(fileId: number): Promise<{ movie_id: number | null; certification: string | null } | undefined> {
    return this.db
      .selectFrom('media_files as f')
      .leftJoin('movies as m', 'm.id', 'f.movie_id')
      .select(['f.movie_id', 'm.certification'])
      .where('f.id', '=', fileId)
      .executeTakeFirst();
  }

  /** A job's payload (JSON) and the media files its artifact rows name; undefined: no such job. */
  async job(jobId: number): Promise<{ payload_json: string; fileIds: number[] } | undefined> {
    const job = await this.db
      .selectFrom('jobs')
      .select('payload_json')
      .where('id', '=', jobId)
      .executeTakeFirst();
    if (job === undefined) return undefined;
    const files = await this.db
      .selectFrom('artifacts')
      .select('media_file_id')
      .where('job_id', '=', jobId)
      .execute();
    return { payload_json: job.payload_json, fileIds: files.map((f) => f.media_file_id) };
  }
}
