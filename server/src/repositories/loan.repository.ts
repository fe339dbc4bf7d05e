import type { LoanView } from '@reelshelf/contract';
import { type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { AppError } from '../errors.ts';
import { movieVisible } from './visibility.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';

/** A loan with the disc and film it is of, as GET /api/loans lists it (before `overdue`). */
export type LoanRow = Omit<LoanView, 'overdue'>;

/**
 * loans (migration 0019) with their copy, film, edition and binder. What /library lists of a copy
 * includes its open loan: a write here is a change of the copy's movie to the listing by itself
 * (db/listing-writes.ts OWNED_VIA on SQLite, the change-capture triggers on PostgreSQL, on every node).
 */
export class LoanRepository {
  constructor(private readonly db: Db) {}

  private base(filter: CertificationFilter | null) {
    return this.db
      .selectFrom('loans as l')
      .innerJoin('physical_copies as pc', 'pc.id', 'l.physical_copy_id')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('disc_editions as e', 'e.id', 'pc.edition_id')
      .leftJoin('binders as b', 'b.id', 'pc.binder_id')
      .select([
        'l.id',
        'pc.id as copy_id',
        'm.id as movie_id',
        'm.title',
        'e.format',
        'b.name as binder',
        'pc.slot',
        'l.borrower as to',
        'l.lent_at',
        'l.due',
        'l.returned_at',
      ])
      .where(movieVisible(filter, 'm.certification'));
  }

  /** Loans whose film the filter lets through: open ones (oldest first), or every one with `history`. */
  list(filter: CertificationFilter | null, history: boolean): Promise<LoanRow[]> {
    return this.base(filter)
      .$if(!history, (q) => q.where('l.returned_at', 'is', null))
      .orderBy('l.lent_at')
      .orderBy('l.id')
      .execute();
  }

  /** Every loan of the movie's copies, newest first (its page: who has it, who had it). */
  ofMovie(movieId: number, filter: CertificationFilter | null): Promise<LoanRow[]> {
    return this.base(filter)
      .where('m.id', '=', movieId)
      .orderBy('l.lent_at', 'desc')
      .orderBy('l.id', 'desc')
      .execute();
  }

  /** The copy's open loan, if it is out. */
  open(copyId: number): Promise<LoanRow | undefined> {
    return this.base(null).where('pc.id', '=', copyId).where('l.returned_at', 'is', null).executeTakeFirst();
  }

  byId(id: number): Promise<LoanRow | undefined> {
    return this.base(null).where('l.id', '=', id).executeTakeFirst();
  }

  async copyExists(copyId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('physical_copies')
      .select('id')
      .where('id', '=', copyId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records a loan; 409 `already_on_loan` when the copy has an open one (the partial unique index
   * decides, whatever the caller checked before).
   */
  async lend(copyId: number, to: string, due: string | null, now: string): Promise<number> {
    try {
      const row = await this.db
        .insertInto('loans')
        .values({
          physical_copy_id: copyId,
          borrower: to,
          lent_at: now,
          due,
          returned_at: null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError('already_on_loan', { message: `Copy ${copyId} is already lent out.` });
    }
  }

  /** Closes the copy's open loan; its id, or undefined when it was not out. */
  async giveBack(copyId: number, now: string): Promise<number | undefined> {
    const row = await this.db
      .updateTable('loans')
      .set({ returned_at: now })
      .where('physical_copy_id', '=', copyId)
      .where(sql<SqlBool>`returned_at is null`)
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }
}
