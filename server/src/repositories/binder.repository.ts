import { type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { preparedMark } from '../db/prepared-statements.ts';
import { AppError } from '../errors.ts';
import type { ArtworkState } from '../domain/artwork-url.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';

export interface BinderRow {
  id: number;
  name: string;
  slots_per_page: number;
}

export interface BinderSummaryRow {
  name: string;
  copies: number;
  slots_per_page: number;
}

/** A copy in a binder slot; `visible` 0 when the viewer's limit hides its film. */
export interface SlotCopyRow {
  id: number;
  movie_id: number;
  slot: string;
  title: string;
  format: string | null;
  edition: string | null;
  visible: number;
  /** 1 while the copy is lent out (an open loan), else 0. */
  on_loan: number;
  /** The film's artwork row (the poster's part), null when it has none. */
  artwork: ArtworkState | null;
}

/** A copy's place, as a move or swap reads (and on PostgreSQL locks) it. */
export interface CopyPlaceRow {
  id: number;
  binder_id: number | null;
  slot: string | null;
  binder: string | null;
  title: string;
}

/**
 * binders and the physical copies in their slots (issue 27 item 1). The reads a binder page waits on
 * are named prepared statements on PostgreSQL (db/prepared-statements.ts: planning them anew cost
 * more than running them).
 */
export class BinderRepository {
  /** @param postgres rows are locked `FOR UPDATE` there; SQLite runs one transaction at a time. */
  constructor(
    private readonly db: Db,
    private readonly postgres: boolean,
  ) {}

  /** Every binder with how many of its copies the filter lets through, by name. */
  async list(filter: CertificationFilter | null): Promise<BinderSummaryRow[]> {
    const rows = await this.db
      .selectFrom('binders as b')
      .leftJoin('physical_copies as pc', 'pc.binder_id', 'b.id')
      .leftJoin('movies as m', (j) =>
        j.onRef('m.id', '=', 'pc.movie_id').on(movieVisible(filter, 'm.certification')),
      )
      .select(['b.name', 'b.slots_per_page', (eb) => eb.fn.count<string | number>('m.id').as('copies')])
      .groupBy(['b.id', 'b.name', 'b.slots_per_page'])
      .orderBy('b.name')
      .modifyEnd(preparedMark)
      .execute();
    return rows.map((r) => ({ name: r.name, slots_per_page: r.slots_per_page, copies: Number(r.copies) }));
  }

  byName(name: string): Promise<BinderRow | undefined> {
    return this.db
      .selectFrom('binders')
      .select(['id', 'name', 'slots_per_page'])
      .where('name', '=', name)
      .modifyEnd(preparedMark)
      .executeTakeFirst();
  }

  /**
   * The binder named `name` and its copies that have a slot, with their film's poster state (a page
   * draws it), in one statement (one round trip: at 1–2 ms a second one was most of PostgreSQL's
   * time); undefined when there is no such binder. A film the filter hides comes with `visible` 0.
   */
  async withSlots(
    name: string,
    filter: CertificationFilter | null,
  ): Promise<{ binder: BinderRow; slots: SlotCopyRow[] } | undefined> {
    const visible = movieVisible(filter, 'm.certification');
    const rows = await this.db
      .selectFrom('binders as b')
      .leftJoin('physical_copies as pc', (j) =>
        j.onRef('pc.binder_id', '=', 'b.id').on('pc.slot', 'is not', null),
      )
      .leftJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('disc_editions as e', 'e.id', 'pc.edition_id')
      .leftJoin('movie_artwork_state as a', 'a.movie_id', 'm.id')
      .leftJoin('loans as l', (j) =>
        j.onRef('l.physical_copy_id', '=', 'pc.id').on('l.returned_at', 'is', null),
      )
      .select([
        'l.id as loan_id',
        'b.id as binder_id',
        'b.name as binder_name',
        'b.slots_per_page',
        'pc.id',
        'pc.movie_id',
        'pc.slot',
        'm.title',
        'e.format',
        'e.label as edition',
        'a.poster_state',
        'a.poster_path',
        'a.fetched_at',
        sql<number>`case when ${visible} then 1 else 0 end`.as('visible'),
      ])
      .where('b.name', '=', name)
      .modifyEnd(preparedMark)
      .execute();
    const first = rows[0];
    if (first === undefined) return undefined;
    const binder = { id: first.binder_id, name: first.binder_name, slots_per_page: first.slots_per_page };
    const slots: SlotCopyRow[] = [];
    for (const r of rows) {
      if (r.id === null || r.movie_id === null || r.slot === null || r.title === null) continue;
      const movieId = r.movie_id;
      slots.push({
        id: r.id,
        movie_id: movieId,
        slot: r.slot,
        title: r.title,
        format: r.format,
        edition: r.edition,
        visible: Number(r.visible),
        on_loan: r.loan_id === null ? 0 : 1,
        artwork:
          r.poster_state === null
            ? null
            : {
                movie_id: movieId,
                poster_state: r.poster_state,
                poster_path: r.poster_path,
                backdrop_state: 'none',
                backdrop_path: null,
                fetched_at: r.fetched_at,
              },
      });
    }
    return { binder, slots };
  }

  async create(name: string, capacity: number, now: string): Promise<BinderRow> {
    const row = await this.db
      .insertInto('binders')
      .values({ name, capacity, created_at: now })
      .returning(['id', 'name', 'slots_per_page'])
      .executeTakeFirstOrThrow();
    return row;
  }

  /** 409 `binder_exists` when another binder took the name first (the unique index decides). */
  async update(id: number, changes: { name?: string; slots_per_page?: number }): Promise<void> {
    try {
      await this.db.updateTable('binders').set(changes).where('id', '=', id).execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError('binder_exists', {
        message: `There is already a binder named ${changes.name ?? ''}.`,
      });
    }
  }

  /** The copies' places, locked `FOR UPDATE` on PostgreSQL in id order (two swaps cannot deadlock). */
  async lockCopies(ids: readonly number[]): Promise<CopyPlaceRow[]> {
    const query = this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('binders as b', 'b.id', 'pc.binder_id')
      .select(['pc.id', 'pc.binder_id', 'pc.slot', 'b.name as binder', 'm.title'])
      .where('pc.id', 'in', [...ids])
      .orderBy('pc.id');
    return this.postgres ? query.forUpdate('pc').execute() : query.execute();
  }

  /** What holds the slot (its copy id and film title), if anything. */
  holder(binderId: number, slot: string): Promise<{ id: number; title: string } | undefined> {
    return this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .select(['pc.id', 'm.title'])
      .where('pc.binder_id', '=', binderId)
      .where('pc.slot', '=', slot)
      .executeTakeFirst();
  }

  /**
   * Puts the copy at (binder, slot). 409 `slot_taken` when another writer (a barcode scan, an import:
   * they do not take the binders' lock) filled the slot since the caller looked.
   */
  async place(
    copyId: number,
    binder: { id: number; name: string } | null,
    slot: string | null,
  ): Promise<void> {
    try {
      await this.db
        .updateTable('physical_copies')
        .set({ binder_id: binder?.id ?? null, slot })
        .where('id', '=', copyId)
        .execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError('slot_taken', {
        message: `Binder ${binder?.name ?? ''} slot ${slot ?? ''} already holds another disc.`,
        hint: 'Pick a free slot.',
      });
    }
  }

  /** True when another binder has this name (rename's check; the unique index still decides). */
  async nameTaken(name: string, exceptId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('binders')
      .select('id')
      .where('name', '=', name)
      .where(sql<SqlBool>`id <> ${exceptId}`)
      .executeTakeFirst();
    return row !== undefined;
  }
}
