import { type Kysely, sql } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/**
 * Loans (issue 27 item 4, docs/collector.md "Loans"): who has a disc, since when, until when. A
 * returned loan keeps its row (`returned_at` set): the history is the table. At most one open loan
 * per copy is the partial unique index, so two racing lends cannot both succeed even past the
 * service's check. `due` is a calendar date (`YYYY-MM-DD`, text on both engines like every
 * timestamp here); deleting a copy deletes its loans.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('loans'), dialect)
    .addColumn('physical_copy_id', 'integer', (c) =>
      c.notNull().references('physical_copies.id').onDelete('cascade'),
    )
    // `to` in the API; not a column name (a keyword in SQL).
    .addColumn('borrower', 'text', (c) => c.notNull())
    .addColumn('lent_at', timestamp, (c) => c.notNull())
    .addColumn('due', 'text')
    .addColumn('returned_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('loans_one_open_per_copy')
    .on('loans')
    .column('physical_copy_id')
    .unique()
    .where(sql.ref('returned_at'), 'is', null)
    .execute();
  await db.schema.createIndex('loans_copy').on('loans').columns(['physical_copy_id', 'lent_at']).execute();
}
