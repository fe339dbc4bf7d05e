import { sql, type Kysely } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/**
 * The household's wish list (issue 27 item 5, docs/collector.md "Wish list"): films wanted and not
 * owned. A wish is one film either way it is named: its TMDb id is unique, and so is its normalized
 * title with its year (an unknown year counts as 0, so two "Heat" wishes without a year are one wish).
 * No reference to movies: a wish is usually of a film the library does not hold.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('wishes'), dialect)
    .addColumn('tmdb_id', 'integer', (c) => c.unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('year', 'integer')
    .addColumn('normalized_title', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('wishes_title_year')
    .on('wishes')
    .unique()
    .columns(['normalized_title'])
    .expression(sql`coalesce(year, 0)`)
    .execute();
}
