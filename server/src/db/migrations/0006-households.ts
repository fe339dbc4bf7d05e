import { type Kysely, sql } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/**
 * A household (issue 22): people with roles and content limits, their own watch state and play
 * history, sessions and keys kept in the database (hashed), and a certification per movie.
 *
 * The state kept so far (one per file) becomes the first admin's: the migration creates that admin
 * (`admin`, no password: it signs in with the data dir's admin token until one is set) and moves
 * every row to it. Plain SQL types only, so the PostgreSQL issue carries every table over as is.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const s = db.schema;
  await idColumn(s.createTable('users'), dialect)
    .addColumn('name', 'text', (c) => c.notNull())
    /** The name folded for uniqueness and sign-in: "Anna" and "anna" are one person. */
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    /** PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`); null: no password set (the first admin). */
    .addColumn('password_hash', 'text')
    /** admin | member | child */
    .addColumn('role', 'text', (c) => c.notNull())
    /** The highest certification shown (in REELSHELF_CERTIFICATION_COUNTRY's system); null: no limit. */
    .addColumn('max_certification', 'text')
    .addColumn('allow_unrated', 'integer', (c) => c.notNull().defaultTo(1))
    /** PHC string of the profile's 4-digit PIN; null: no PIN. */
    .addColumn('pin_hash', 'text')
    .addColumn('pin_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pin_locked_until', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();

  await idColumn(s.createTable('sessions'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** SHA-256 (hex) of the secret the client holds; the secret itself is never stored. */
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    /** browser (cookie: idle and absolute expiry) | device (an app's long-lived token) */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', timestamp, (c) => c.notNull())
    /** Absolute end; null: none (device tokens live until revoked). */
    .addColumn('expires_at', timestamp)
    .addColumn('revoked_at', timestamp)
    .addColumn('address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('app_name', 'text')
    .addColumn('device_name', 'text')
    .execute();
  await s.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await idColumn(s.createTable('api_keys'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** read | playback | admin */
    .addColumn('scope', 'text', (c) => c.notNull())
    /** SHA-256 (hex) of the key; the key is shown once, at creation. */
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .addColumn('last_used_address', 'text')
    .addColumn('revoked_at', timestamp)
    .execute();

  await idColumn(s.createTable('play_history'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** Kept when the file goes (the history stays true); the movie id and title say what it was. */
    .addColumn('media_file_id', 'integer', (c) => c.references('media_files.id').onDelete('set null'))
    .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    /** direct | converted */
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('started_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('position_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_seconds', 'integer')
    .execute();
  await s
    .createIndex('play_history_user_time')
    .on('play_history')
    .columns(['user_id', 'started_at'])
    .execute();

  await s.alterTable('movies').addColumn('certification', 'text').execute();

  // The first admin, who owns the state kept so far.
  const now = new Date().toISOString();
  await sql`INSERT INTO users (name, name_key, password_hash, role, max_certification, allow_unrated, created_at, updated_at)
            VALUES ('admin', 'admin', NULL, 'admin', NULL, 1, ${now}, ${now})`.execute(db);

  // watch_state gains its person: (user_id, media_file_id) is the key now.
  await s
    .createTable('watch_state_by_user')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('media_file_id', 'integer', (c) =>
      c.notNull().references('media_files.id').onDelete('cascade'),
    )
    .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('set null'))
    .addColumn('position_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('watched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_state_pk', ['user_id', 'media_file_id'])
    .execute();
  await sql`INSERT INTO watch_state_by_user (user_id, media_file_id, movie_id, position_seconds, watched, updated_at)
            SELECT (SELECT MIN(id) FROM users), media_file_id, movie_id, position_seconds, watched, updated_at
            FROM watch_state`.execute(db);
  await s.dropTable('watch_state').execute();
  await s.alterTable('watch_state_by_user').renameTo('watch_state').execute();
  await s.createIndex('watch_state_file').on('watch_state').column('media_file_id').execute();
}
