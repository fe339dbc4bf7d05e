import type { Db } from '../db/database.ts';

/**
 * What a provider client needs from its cache: text bodies keyed by (provider, key), with expiry.
 * Tests may pass an in-memory implementation.
 */
export interface ProviderCache {
  /** The cached body, or null when absent or expired at `now`. */
  get(provider: string, key: string, now: Date): Promise<string | null>;
  /** Stores (or replaces) a body; `ttlMs` null keeps it forever. */
  put(provider: string, key: string, bodyJson: string, now: Date, ttlMs: number | null): Promise<void>;
}

/** The `provider_cache` table: one query per method, no business rules. Timestamps are ISO-8601 UTC. */
export class ProviderCacheRepository implements ProviderCache {
  constructor(private readonly db: Db) {}

  async get(provider: string, key: string, now: Date): Promise<string | null> {
    const row = await this.db
      .selectFrom('provider_cache')
      .select(['body_json', 'expires_at'])
      .where('provider', '=', provider)
      .where('cache_key', '=', key)
      .executeTakeFirst();
    if (row === undefined) return null;
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) return null;
    return row.body_json;
  }

  async put(provider: string, key: string, bodyJson: string, now: Date, ttlMs: number | null): Promise<void> {
    const fetchedAt = now.toISOString();
    const expiresAt = ttlMs === null ? null : new Date(now.getTime() + ttlMs).toISOString();
    await this.db
      .insertInto('provider_cache')
      .values({ provider, cache_key: key, body_json: bodyJson, fetched_at: fetchedAt, expires_at: expiresAt })
      .onConflict((oc) =>
        oc
          .columns(['provider', 'cache_key'])
          .doUpdateSet({ body_json: bodyJson, fetched_at: fetchedAt, expires_at: expiresAt }),
      )
      .execute();
  }

  async delete(provider: string, key: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('provider_cache')
      .where('provider', '=', provider)
      .where('cache_key', '=', key)
      .executeTakeFirst();
    return res.numDeletedRows > 0n;
  }

  /** Removes every entry that has expired at `now`; returns how many. */
  async purgeExpired(now: Date): Promise<number> {
    const res = await this.db
      .deleteFrom('provider_cache')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now.toISOString())
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}

/** A ProviderCache in memory, for tests and for running without a database. */
export class MemoryProviderCache implements ProviderCache {
  private readonly entries = new Map<string, { body: string; expiresAt: number | null }>();

  async get(provider: string, key: string, now: Date): Promise<string | null> {
    const entry = this.entries.get(`${provider}\u0000${key}`);
    if (entry === undefined) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= now.getTime()) return null;
    return entry.body;
  }

  async put(provider: string, key: string, bodyJson: string, now: Date, ttlMs: number | null): Promise<void> {
    this.entries.set(`${provider}\u0000${key}`, {
      body: bodyJson,
      expiresAt: ttlMs === null ? null : now.getTime() + ttlMs,
    });
  }

  get size(): number {
    return this.entries.size;
  }
}
