import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { RipCandidate } from '../domain/collector/rip-queue.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';

/** A disc of a film, with what the upgrades compare against its files. */
export interface UpgradeCopyRow {
  copy_id: number;
  movie_id: number;
  title: string;
  runtime_minutes: number | null;
  format: string | null;
  edition: string | null;
}

/** A present media file of a film that has a disc, with its stored analysis. */
export interface UpgradeFileRow {
  file_id: number;
  movie_id: number;
  capabilities_json: string | null;
}

/**
 * The collector's reports over discs and files (issue 27 items 2 and 3): the rip queue's candidates
 * and the upgrades' copies and files, each through the viewer's visibility filter. Read-only.
 */
export class CollectorRepository {
  constructor(private readonly db: Db) {}

  /**
   * Every disc of a film the filter lets through that has no present media file (a missing file
   * does not count as ripped), with its binder place and the film's TMDb runtime.
   */
  async ripCandidates(filter: CertificationFilter | null): Promise<RipCandidate[]> {
    const rows = await this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('disc_editions as e', 'e.id', 'pc.edition_id')
      .leftJoin('binders as b', 'b.id', 'pc.binder_id')
      .select([
        'pc.id as copy_id',
        'pc.movie_id',
        'm.title',
        'm.year',
        'e.format',
        'e.label as edition',
        'b.name as binder',
        'pc.slot',
        'm.runtime_minutes',
      ])
      .where(movieVisible(filter, 'm.certification'))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('media_files as f')
              .select(sql<number>`1`.as('one'))
              .whereRef('f.movie_id', '=', 'm.id')
              .where('f.status', '=', 'present'),
          ),
        ),
      )
      .execute();
    return rows.map((r) => ({ ...r, slot: r.binder === null ? null : r.slot }));
  }

  /** Every disc of a film the filter lets through, with the film's title and runtime. */
  upgradeCopies(filter: CertificationFilter | null): Promise<UpgradeCopyRow[]> {
    return this.db
      .selectFrom('physical_copies as pc')
      .innerJoin('movies as m', 'm.id', 'pc.movie_id')
      .leftJoin('disc_editions as e', 'e.id', 'pc.edition_id')
      .select([
        'pc.id as copy_id',
        'pc.movie_id',
        'm.title',
        'm.runtime_minutes',
        'e.format',
        'e.label as edition',
      ])
      .where(movieVisible(filter, 'm.certification'))
      .orderBy('pc.id')
      .execute();
  }

  /** The present files of every film that has a disc (the filter applies through the copies). */
  upgradeFiles(): Promise<UpgradeFileRow[]> {
    return this.db
      .selectFrom('media_files as f')
      .select(['f.id as file_id', 'f.movie_id', 'f.capabilities_json'])
      .where('f.status', '=', 'present')
      .where('f.movie_id', 'in', (eb) => eb.selectFrom('physical_copies as pc').select('pc.movie_id'))
      .orderBy('f.id')
      .execute()
      .then((rows) => rows.flatMap((r) => (r.movie_id === null ? [] : [{ ...r, movie_id: r.movie_id }])));
  }
}
