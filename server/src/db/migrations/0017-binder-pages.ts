import type { Kysely } from 'kysely';
import type { Dialect } from './helpers.ts';

/**
 * Binders drawn as pages (issue 27 item 1): how many slots one page of a binder holds. Existing
 * binders get the default of 8 (a common 4×2 sleeve page); `capacity` stays the binder's size.
 * A plain column with a default: the same statement on both engines.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('binders')
    .addColumn('slots_per_page', 'integer', (c) => c.notNull().defaultTo(8))
    .execute();
}
