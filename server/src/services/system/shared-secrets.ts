import { randomBytes } from 'node:crypto';
import { type Clock, isoNow } from '../../adapters/clock.ts';

/** Where the shared secrets are kept (the database: every node reads the same row). */
export interface SharedSecretRecords {
  get(name: string): Promise<string | undefined>;
  insertIfAbsent(name: string, value: string, now: string): Promise<void>;
}

/** A secret this data dir kept as a file before the database held it (read once, to take it over). */
export type LegacySecretFile = (name: string) => string | undefined;

/**
 * The secrets every node must agree on (the playback-token signing key, the Jellyfin id key), kept
 * in the database: a token signed on node A verifies on node B. The first node to need one makes it
 * (or takes over the data dir's file of that name, so what was handed out before stays valid);
 * nodes racing to make it agree on whichever row was stored first.
 */
export class SharedSecrets {
  constructor(
    private readonly records: SharedSecretRecords,
    private readonly legacy: LegacySecretFile,
    private readonly clock: Clock,
  ) {}

  /** The secret `name`; made from `bytes` random bytes (base64url) when no node has one yet. */
  async getOrCreate(name: string, bytes = 32): Promise<string> {
    const kept = await this.records.get(name);
    if (kept !== undefined) return kept;
    const value = this.legacy(name) ?? randomBytes(bytes).toString('base64url');
    await this.records.insertIfAbsent(name, value, isoNow(this.clock));
    const stored = await this.records.get(name);
    if (stored === undefined) throw new Error(`the shared secret ${name} was not stored`);
    return stored;
  }
}
