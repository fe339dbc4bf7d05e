import { type Kysely, sql } from 'kysely';
import { type Dialect, idColumn } from './helpers.ts';

/** The channel of these tables' NOTIFYs (postgres-change-capture.ts STATE_CHANNEL, kept equal by a test). */
export const STATE_CHANNEL = 'reelshelf_state';

/**
 * The state a request needs that used to live in one process's memory (issue 26 item 3,
 * docs/cluster.md "Shared node state"):
 * - `playback_stops`: an admin's stop of a play ends the tokens of (credential, file) up to an
 *   expiry (`until_s`, Unix seconds), on every node;
 * - `active_plays`: the plays each node streams now, refreshed by that node (`last_seen_ms`), with
 *   the admin's stop request for the node that streams;
 * - `auth_failures`: failed sign-ins per address and per account in their one-minute window;
 * - `node_leases`: named leases one node holds at a time (the library roots' watcher).
 * On PostgreSQL, row triggers NOTIFY the changes every node keeps a copy of (`<topic> <json>`),
 * and the ready artifacts too (whose copy is the listing's ReadyArtifactIndex).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('playback_stops')
    /** user|credential kind|credential id|media file (PlaybackTokenService). */
    .addColumn('stop_key', 'text', (c) => c.primaryKey())
    .addColumn('until_s', 'bigint', (c) => c.notNull())
    .execute();

  await idColumn(db.schema.createTable('active_plays'), dialect)
    .addColumn('play_key', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('media_file_id', 'integer', (c) => c.notNull())
    /** The ActivePlay the admin sees, as the streaming node last wrote it. */
    .addColumn('view_json', 'text', (c) => c.notNull())
    .addColumn('last_seen_ms', 'bigint', (c) => c.notNull())
    .addColumn('stop_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('active_plays_node').on('active_plays').columns(['node_id']).execute();

  await db.schema
    .createTable('auth_failures')
    /** `address:<ip>` or `account:<name key>`. */
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start_ms', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    /** JSON array of the addresses that failed on an account key in the window (at most 1000). */
    .addColumn('addresses_json', 'text', (c) => c.notNull())
    .addColumn('last_address', 'text')
    .execute();

  await db.schema
    .createTable('node_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('until_ms', 'bigint', (c) => c.notNull())
    .execute();

  if (dialect === 'postgres') {
    // Row triggers: these tables change a few rows at a time (a stop, a failure, a build's end).
    await sql
      .raw(
        `CREATE FUNCTION reelshelf_state_notify(topic text, data json) RETURNS void LANGUAGE sql AS $$
           SELECT pg_notify('${STATE_CHANNEL}', topic || ' ' || data::text) $$;

         CREATE FUNCTION reelshelf_stop_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           PERFORM reelshelf_state_notify('stop', json_build_object('k', NEW.stop_key, 'u', NEW.until_s));
           RETURN NULL;
         END $$;
         CREATE TRIGGER reelshelf_stop_notify AFTER INSERT OR UPDATE ON playback_stops
           FOR EACH ROW EXECUTE FUNCTION reelshelf_stop_notify();

         CREATE FUNCTION reelshelf_play_stop_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.stop_requested = 1 AND OLD.stop_requested = 0 THEN
             PERFORM reelshelf_state_notify('play-stop', json_build_object('id', NEW.id, 'n', NEW.node_id));
           END IF;
           RETURN NULL;
         END $$;
         CREATE TRIGGER reelshelf_play_stop_notify AFTER UPDATE OF stop_requested ON active_plays
           FOR EACH ROW EXECUTE FUNCTION reelshelf_play_stop_notify();

         CREATE FUNCTION reelshelf_auth_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           PERFORM reelshelf_state_notify('auth', json_build_object(
             'k', NEW.key, 's', NEW.window_start_ms, 'c', NEW.count, 'a', NEW.last_address));
           RETURN NULL;
         END $$;
         CREATE TRIGGER reelshelf_auth_notify AFTER INSERT OR UPDATE ON auth_failures
           FOR EACH ROW EXECUTE FUNCTION reelshelf_auth_notify();

         CREATE FUNCTION reelshelf_artifact_notify() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE was boolean; now_ready boolean;
         BEGIN
           was := TG_OP <> 'INSERT' AND OLD.status = 'ready';
           now_ready := TG_OP <> 'DELETE' AND NEW.status = 'ready';
           IF was IS DISTINCT FROM now_ready THEN
             IF now_ready THEN
               PERFORM reelshelf_state_notify('artifact', json_build_object(
                 'f', NEW.media_file_id, 'd', NEW.device, 's', NEW.source_fingerprint, 'r', true));
             ELSE
               PERFORM reelshelf_state_notify('artifact', json_build_object(
                 'f', OLD.media_file_id, 'd', OLD.device, 's', OLD.source_fingerprint, 'r', false));
             END IF;
           END IF;
           RETURN NULL;
         END $$;
         CREATE TRIGGER reelshelf_artifact_notify AFTER INSERT OR UPDATE OF status OR DELETE ON artifacts
           FOR EACH ROW EXECUTE FUNCTION reelshelf_artifact_notify();`,
      )
      .execute(db);
  }
}
