import { type UpgradeFile, upgradeFileFacts } from '../../domain/collector/upgrades.ts';
import type { CollectorRepository } from '../../repositories/collector.repository.ts';

type Reads = Pick<CollectorRepository, 'upgradeFileStamps' | 'capabilitiesOf'>;

/**
 * What the upgrades compare of each present file (width, height, HDR, duration), read from its
 * analysis record once per analysis and kept in memory: parsing 10,000 records of ~3 KB took
 * 250–400 ms a request, and PostgreSQL's jsonb as long. An entry is keyed by the file's stamp
 * (times, fingerprint, record length), so a new analysis is read again; entries of files that are
 * gone are dropped. Each node keeps its own: the stamps come from the shared database.
 */
export class UpgradeFileFacts {
  private readonly known = new Map<number, { stamp: string; facts: UpgradeFile }>();

  constructor(private readonly reads: Reads) {}

  /** The facts of every present file of a film with a disc, with its movie id. */
  async all(): Promise<{ movie_id: number; facts: UpgradeFile }[]> {
    const stamps = await this.reads.upgradeFileStamps();
    const stale = stamps.filter((s) => this.known.get(s.file_id)?.stamp !== s.stamp);
    if (stale.length > 0) {
      const stampOf = new Map(stale.map((s) => [s.file_id, s.stamp]));
      for (const row of await this.reads.capabilitiesOf(stale.map((s) => s.file_id))) {
        const stamp = stampOf.get(row.id);
        if (stamp !== undefined) {
          this.known.set(row.id, { stamp, facts: upgradeFileFacts(row.id, row.capabilities_json) });
        }
      }
    }
    if (this.known.size > stamps.length) {
      const present = new Set(stamps.map((s) => s.file_id));
      for (const id of this.known.keys()) if (!present.has(id)) this.known.delete(id);
    }
    return stamps.flatMap((s) => {
      const entry = this.known.get(s.file_id);
      return entry === undefined ? [] : [{ movie_id: s.movie_id, facts: entry.facts }];
    });
  }
}
