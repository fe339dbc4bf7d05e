import type { Kysely } from 'kysely';
import { type Dialect, timestamp } from './helpers.ts';

/**
 * Secrets every node must share (issue 26: "the signing key of playback tokens … lives in the
 * database"): the playback-token signing key and the Jellyfin id key. A token signed on one node
 * verifies on every other. On first start an install's data-dir files of the same name are taken
 * over, so tokens and ids handed out before stay valid (services/shared-secrets.ts).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
}
