import { type Expression, type SqlBool, sql } from 'kysely';

/**
 * The rip queue's rule in one place (issue 27 item 2 and the /stats chart of item 6): a film is
 * waiting to be ripped when it has a physical copy and no media file that is present. Missing files
 * do not count (the rip is gone); a file matched to no film cannot take a film off the queue.
 * Both engines read these fragments as they are; `movieId` is a column reference such as `m.id`.
 */

/** The film has at least one media file whose status is `present`. */
export function filmHasPresentFile(movieId: string): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from media_files rq_f where rq_f.movie_id = ${sql.ref(movieId)} and rq_f.status = 'present')`;
}

/** The film has at least one physical copy. */
export function filmHasDisc(movieId: string): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from physical_copies rq_c where rq_c.movie_id = ${sql.ref(movieId)})`;
}

/** On the rip queue: a disc, and no present file. */
export function awaitingRip(movieId: string): Expression<SqlBool> {
  return sql<SqlBool>`(${filmHasDisc(movieId)} and not ${filmHasPresentFile(movieId)})`;
}
