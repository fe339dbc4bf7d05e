import type { Kysely } from 'kysely';
import { type Dialect, idColumn, timestamp } from './helpers.ts';

/** The initial schema: every stored entity of spec §2.11 plus jobs, watch state, settings, caches. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const s = db.schema;

  await idColumn(s.createTable('collections'), dialect)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();

  await idColumn(s.createTable('library_roots'), dialect)
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'integer', (c) => c.references('collections.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_scan_at', timestamp)
    .execute();

  await idColumn(s.createTable('binders'), dialect)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('capacity', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();

  await idColumn(s.createTable('movies'), dialect)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('sort_title', 'text', (c) => c.notNull())
    .addColumn('normalized_title', 'text', (c) => c.notNull())
    .addColumn('original_title', 'text')
    .addColumn('year', 'integer')
    .addColumn('overview', 'text')
    .addColumn('tagline', 'text')
    .addColumn('runtime_minutes', 'integer')
    .addColumn('tmdb_id', 'integer', (c) => c.unique())
    .addColumn('imdb_id', 'text')
    .addColumn('genres_json', 'text')
    .addColumn('tmdb_collection_id', 'integer')
    .addColumn('tmdb_collection_name', 'text')
    .addColumn('binder_id', 'integer', (c) => c.references('binders.id').onDelete('set null'))
    .addColumn('has_digital_store_a', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_digital_store_b', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('watched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enriched_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('movies_normalized_title').on('movies').columns(['normalized_title', 'year']).execute();
  await s.createIndex('movies_imdb_id').on('movies').column('imdb_id').execute();
  await s.createIndex('movies_sort_title').on('movies').columns(['sort_title', 'id']).execute();

  await idColumn(s.createTable('disc_editions'), dialect)
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('label', 'text')
    .addColumn('format', 'text')
    .addColumn('barcode', 'text', (c) => c.unique())
    .addColumn('region', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('disc_editions_movie').on('disc_editions').column('movie_id').execute();

  await idColumn(s.createTable('physical_copies'), dialect)
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('edition_id', 'integer', (c) => c.references('disc_editions.id').onDelete('set null'))
    .addColumn('binder_id', 'integer', (c) => c.references('binders.id').onDelete('set null'))
    .addColumn('slot', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addUniqueConstraint('physical_copies_binder_slot', ['binder_id', 'slot'])
    .execute();
  await s.createIndex('physical_copies_movie').on('physical_copies').column('movie_id').execute();

  await idColumn(s.createTable('media_files'), dialect)
    .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('set null'))
    .addColumn('edition_id', 'integer', (c) => c.references('disc_editions.id').onDelete('set null'))
    .addColumn('library_root_id', 'integer', (c) =>
      c.notNull().references('library_roots.id').onDelete('cascade'),
    )
    .addColumn('relative_path', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('mtime_ms', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('edition_label', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('present'))
    .addColumn('analysis_status', 'text', (c) => c.notNull().defaultTo('not_analyzed'))
    .addColumn('capabilities_json', 'text')
    .addColumn('analysis_error', 'text')
    .addColumn('analyzed_size_bytes', 'bigint')
    .addColumn('analyzed_fingerprint', 'text')
    .addColumn('analyzed_at', timestamp)
    .addColumn('missing_since', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addUniqueConstraint('media_files_root_path', ['library_root_id', 'relative_path'])
    .execute();
  await s.createIndex('media_files_movie').on('media_files').column('movie_id').execute();
  await s.createIndex('media_files_fingerprint').on('media_files').column('fingerprint').execute();

  await idColumn(s.createTable('jobs'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payload_json', 'text', (c) => c.notNull())
    .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('progress_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('result_json', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('started_at', timestamp)
    .addColumn('finished_at', timestamp)
    .execute();
  await s.createIndex('jobs_kind_status').on('jobs').columns(['kind', 'status']).execute();
  await s.createIndex('jobs_dedupe').on('jobs').columns(['dedupe_key', 'status']).execute();

  await idColumn(s.createTable('staging_media_files'), dialect)
    .addColumn('scan_id', 'integer', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('library_root_id', 'integer', (c) =>
      c.notNull().references('library_roots.id').onDelete('cascade'),
    )
    .addColumn('relative_path', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('mtime_ms', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('parsed_title', 'text')
    .addColumn('parsed_year', 'integer')
    .addColumn('tmdb_id', 'integer')
    .addColumn('imdb_id', 'text')
    .addColumn('edition_label', 'text')
    .addColumn('analysis_status', 'text', (c) => c.notNull())
    .addColumn('capabilities_json', 'text')
    .addColumn('analysis_error', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('media_file_id', 'integer')
    .addColumn('match_movie_id', 'integer')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('staging_scan').on('staging_media_files').column('scan_id').execute();

  await idColumn(s.createTable('persons'), dialect)
    .addColumn('tmdb_id', 'integer', (c) => c.unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('profile_path', 'text')
    .execute();

  await idColumn(s.createTable('person_movie'), dialect)
    .addColumn('person_id', 'integer', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('character', 'text')
    .addColumn('job', 'text')
    .addColumn('department', 'text')
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .createIndex('person_movie_movie')
    .on('person_movie')
    .columns(['movie_id', 'role', 'sort_order'])
    .execute();
  await s.createIndex('person_movie_person').on('person_movie').column('person_id').execute();

  await idColumn(s.createTable('studios'), dialect)
    .addColumn('tmdb_id', 'integer', (c) => c.unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('movie_studio')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('studio_id', 'integer', (c) => c.notNull().references('studios.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('movie_studio_pk', ['movie_id', 'studio_id'])
    .execute();

  await s
    .createTable('movie_artwork_state')
    .addColumn('movie_id', 'integer', (c) => c.primaryKey().references('movies.id').onDelete('cascade'))
    .addColumn('poster_state', 'text', (c) => c.notNull())
    .addColumn('poster_source', 'text')
    .addColumn('poster_path', 'text')
    .addColumn('backdrop_state', 'text', (c) => c.notNull())
    .addColumn('backdrop_source', 'text')
    .addColumn('backdrop_path', 'text')
    .addColumn('fetched_at', timestamp)
    .addColumn('error', 'text')
    .execute();

  await s
    .createTable('movie_ratings')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('fetched_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_ratings_pk', ['movie_id', 'source'])
    .execute();

  await s
    .createTable('watch_state')
    .addColumn('media_file_id', 'integer', (c) =>
      c.primaryKey().references('media_files.id').onDelete('cascade'),
    )
    .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('set null'))
    .addColumn('position_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('watched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();

  await s
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('provider_cache')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('cache_key', 'text', (c) => c.notNull())
    .addColumn('body_json', 'text', (c) => c.notNull())
    .addColumn('fetched_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp)
    .addPrimaryKeyConstraint('provider_cache_pk', ['provider', 'cache_key'])
    .execute();
}
