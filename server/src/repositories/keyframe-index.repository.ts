import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { KeyframeIndexesTable } from '../db/schema.ts';

export type KeyframeIndexRow = Selectable<KeyframeIndexesTable>;

/** The keyframe_indexes table: one query per method. */
export class KeyframeIndexRepository {
  constructor(private readonly db: Db) {}

  async get(mediaFileId: number): Promise<KeyframeIndexRow | undefined> {
    return this.db
      .selectFrom('keyframe_indexes')
      .selectAll()
      .where('media_file_id', '=', mediaFileId)
      .executeTakeFirst();
  }

  /** Keeps the index of a file's current content (replacing one read from older content). */
  async put(row: KeyframeIndexRow): Promise<void> {
    await this.db
      .insertInto('keyframe_indexes')
      .values(row)
      .onConflict((oc) =>
        oc.column('media_file_id').doUpdateSet({
          source_key: row.source_key,
          source: row.source,
          times_json: row.times_json,
          created_at: row.created_at,
        }),
      )
      .execute();
  }
}
