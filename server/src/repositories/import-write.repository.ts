import { insertRows } from '../db/bulk-insert.ts';
import type { Db } from '../db/database.ts';
import type {
  ArtworkStateValues,
  ImportWriter,
  MoviePatch,
  NewCopyRow,
  NewEditionRow,
  NewMediaFileRow,
  NewMovieRow,
  WatchValues,
} from '../domain/import-export/import-writer.ts';
import type { ExportLoan } from '../domain/import-export/json-format.ts';
import { loansToAdd } from '../domain/loans.ts';
import { LibraryRootRepository } from './library-root.repository.ts';

/** The import's writes on one Kysely transaction (or database). */
export class ImportWriteRepository implements ImportWriter {
  constructor(private readonly db: Db) {}

  async insertCollection(name: string, now: string): Promise<number> {
    const res = await this.db
      .insertInto('collections')
      .values({ name, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async insertRoot(row: {
    path: string;
    name: string;
    collection_id: number | null;
    created_at: string;
  }): Promise<number> {
    return new LibraryRootRepository(this.db).insert(row);
  }

  async updateRoot(id: number, values: { name: string; collection_id: number | null }): Promise<void> {
    await this.db.updateTable('library_roots').set(values).where('id', '=', id).execute();
  }

  async insertBinders(rows: { name: string; capacity: number; created_at: string }[]) {
    return insertRows(this.db, 'binders', rows).returning(['id', 'name']).execute();
  }

  async setBinderCapacity(id: number, capacity: number): Promise<void> {
    await this.db.updateTable('binders').set({ capacity }).where('id', '=', id).execute();
  }

  async setBinderSlotsPerPage(id: number, slotsPerPage: number): Promise<void> {
    await this.db.updateTable('binders').set({ slots_per_page: slotsPerPage }).where('id', '=', id).execute();
  }

  async insertPersons(names: string[]) {
    const rows = names.map((name) => ({ tmdb_id: null, name, profile_path: null }));
    return insertRows(this.db, 'persons', rows).returning(['id', 'name']).execute();
  }

  async insertStudios(names: string[]) {
    const rows = names.map((name) => ({ tmdb_id: null, name }));
    return insertRows(this.db, 'studios', rows).returning(['id', 'name']).execute();
  }

  async insertMovies(rows: NewMovieRow[]) {
    return insertRows(this.db, 'movies', rows)
      .returning(['id', 'title', 'year', 'tmdb_id', 'imdb_id'])
      .execute();
  }

  async updateMovie(id: number, patch: MoviePatch): Promise<void> {
    await this.db.updateTable('movies').set(patch).where('id', '=', id).execute();
  }

  async insertEditions(rows: NewEditionRow[]) {
    return insertRows(this.db, 'disc_editions', rows)
      .returning(['id', 'movie_id', 'label', 'format', 'barcode', 'region'])
      .execute();
  }

  async updateEdition(
    id: number,
    patch: { label?: string; format?: string; region?: string; barcode?: string },
  ): Promise<void> {
    await this.db.updateTable('disc_editions').set(patch).where('id', '=', id).execute();
  }

  async insertCopies(rows: NewCopyRow[]): Promise<void> {
    await insertRows(this.db, 'physical_copies', rows).execute();
  }

  async insertLentCopy(row: NewCopyRow, loans: readonly ExportLoan[]): Promise<void> {
    const copy = await this.db
      .insertInto('physical_copies')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto('loans')
      .values(loans.map((l) => loanValues(copy.id, l, row.created_at)))
      .execute();
  }

  async mergeLoans(copyId: number, loans: readonly ExportLoan[], now: string): Promise<void> {
    const stored = await this.db
      .selectFrom('loans')
      .select(['borrower', 'lent_at', 'returned_at'])
      .where('physical_copy_id', '=', copyId)
      .execute();
    // The plan warned of an open loan refused (ImportPlan, from the same transaction's snapshot).
    const { add } = loansToAdd(
      stored.map((l) => ({ to: l.borrower, lent_at: l.lent_at, returned_at: l.returned_at })),
      loans,
    );
    if (add.length === 0) return;
    await this.db
      .insertInto('loans')
      .values(add.map((l) => loanValues(copyId, l, now)))
      .execute();
  }

  async setCopyNotes(id: number, notes: string): Promise<void> {
    await this.db.updateTable('physical_copies').set({ notes }).where('id', '=', id).execute();
  }

  async upsertRating(movieId: number, source: string, value: string, now: string): Promise<void> {
    await this.db
      .insertInto('movie_ratings')
      .values({ movie_id: movieId, source, value, fetched_at: now })
      .onConflict((oc) => oc.columns(['movie_id', 'source']).doUpdateSet({ value, fetched_at: now }))
      .execute();
  }

  async replaceCredits(movieId: number, kind: 'cast' | 'director', personIds: number[]): Promise<void> {
    let del = this.db.deleteFrom('person_movie').where('movie_id', '=', movieId);
    del =
      kind === 'cast'
        ? del.where('role', '=', 'cast')
        : del.where('role', '=', 'crew').where('job', '=', 'Director');
    await del.execute();
    await this.db
      .insertInto('person_movie')
      .values(
        personIds.map((personId, i) => ({
          person_id: personId,
          movie_id: movieId,
          role: kind === 'cast' ? 'cast' : 'crew',
          character: null,
          job: kind === 'cast' ? null : 'Director',
          department: kind === 'cast' ? null : 'Directing',
          sort_order: i,
        })),
      )
      .execute();
  }

  async replaceStudios(movieId: number, studioIds: number[]): Promise<void> {
    await this.db.deleteFrom('movie_studio').where('movie_id', '=', movieId).execute();
    await this.db
      .insertInto('movie_studio')
      .values(studioIds.map((studioId) => ({ movie_id: movieId, studio_id: studioId })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async upsertArtwork(movieId: number, values: ArtworkStateValues, fetchedAt: string | null): Promise<void> {
    await this.db
      .insertInto('movie_artwork_state')
      .values({ movie_id: movieId, ...values, fetched_at: fetchedAt, error: null })
      .onConflict((oc) => oc.column('movie_id').doUpdateSet(values))
      .execute();
  }

  async insertMediaFile(row: NewMediaFileRow): Promise<number> {
    const { now, ...values } = row;
    const res = await this.db
      .insertInto('media_files')
      .values({
        ...values,
        mtime_ms: 0,
        status: 'present',
        analysis_status: 'not_analyzed',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async moveMediaFile(
    id: number,
    values: { movie_id: number; edition_id?: number; updated_at: string },
  ): Promise<void> {
    await this.db.updateTable('media_files').set(values).where('id', '=', id).execute();
  }

  /**
   * An imported watch state belongs to the importing person, or (`user_id` null: the CLI, which has
   * no person) to the first admin, who owned all state before people came.
   */
  async upsertWatch(mediaFileId: number, movieId: number, values: WatchValues): Promise<void> {
    const { user_id: person, ...state } = values;
    const userId =
      person ??
      (
        await this.db
          .selectFrom('users')
          .select('id')
          .where('role', '=', 'admin')
          .orderBy('id')
          .limit(1)
          .executeTakeFirstOrThrow()
      ).id;
    await this.db
      .insertInto('watch_state')
      .values({ user_id: userId, media_file_id: mediaFileId, movie_id: movieId, ...state })
      .onConflict((oc) =>
        oc.columns(['user_id', 'media_file_id']).doUpdateSet({ movie_id: movieId, ...state }),
      )
      .execute();
  }
}

function loanValues(copyId: number, loan: ExportLoan, now: string) {
  return {
    physical_copy_id: copyId,
    borrower: loan.to,
    lent_at: loan.lent_at,
    due: loan.due,
    returned_at: loan.returned_at,
    created_at: now,
  };
}
