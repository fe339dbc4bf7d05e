import type { Kysely } from 'kysely';
import { type Dialect, timestamp } from './helpers.ts';

/**
 * A person's favourite films (issue 23 §5): one row per (person, movie), the person's own state like
 * their watch state — nobody else's lists change. Plain SQL types, as every migration.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('favourites')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('favourites_pk', ['user_id', 'movie_id'])
    .execute();
  await db.schema.createIndex('favourites_movie').on('favourites').column('movie_id').execute();
}
