import type { Db } from '../db/database.ts';
import type { LibraryRootRow } from './media-file.repository.ts';

export interface RootWithCollection extends LibraryRootRow {
  collection: string | null;
  file_count: number;
}

/** library_roots and collections rows. */
export class LibraryRootRepository {
  constructor(private readonly db: Db) {}

  async list(): Promise<RootWithCollection[]> {
    const rows = await this.db
      .selectFrom('library_roots as r')
      .leftJoin('collections as c', 'c.id', 'r.collection_id')
      .selectAll('r')
      .select('c.name as collection')
      .select((eb) =>
        eb
          .selectFrom('media_files as f')
          .whereRef('f.library_root_id', '=', 'r.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('file_count'),
      )
      .orderBy('r.id')
      .execute();
    return rows.map((r) => ({ ...r, file_count: Number(r.file_count ?? 0) }));
  }

  async get(id: number): Promise<RootWithCollection | undefined> {
    return (await this.list()).find((r) => r.id === id);
  }

  async getOrCreateCollection(name: string, now: string): Promise<number> {
    const existing = await this.db
      .selectFrom('collections')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirst();
    if (existing !== undefined) return existing.id;
    const res = await this.db
      .insertInto('collections')
      .values({ name, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async insert(row: {
    path: string;
    name: string;
    collection_id: number | null;
    created_at: string;
  }): Promise<number> {
    const res = await this.db
      .insertInto('library_roots')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return res.id;
  }

  async delete(id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('library_roots').where('id', '=', id).executeTakeFirst();
    return res.numDeletedRows > 0n;
  }

  async touchScanned(id: number, now: string): Promise<void> {
    await this.db.updateTable('library_roots').set({ last_scan_at: now }).where('id', '=', id).execute();
  }

  async listCollections(): Promise<{ id: number; name: string; root_ids: number[] }[]> {
    const cols = await this.db.selectFrom('collections').select(['id', 'name']).orderBy('name').execute();
    const roots = await this.db.selectFrom('library_roots').select(['id', 'collection_id']).execute();
    return cols.map((c) => ({
      ...c,
      root_ids: roots.filter((r) => r.collection_id === c.id).map((r) => r.id),
    }));
  }
}
