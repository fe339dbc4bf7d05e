import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { RipCandidate } from '../domain/collector/rip-queue.ts';
import type { CertificationFilter } from '../domain/people/visibility.ts';
import { movieVisible } from './visibility.repository.ts';
import { filmHasPresentFile } from './rip-queue.predicate.ts';

/** A disc of a film, with what the upgrades compare against its files. */
export interface UpgradeCopyRow {
  copy_id: number;
  movie_id: number;
  title: string;
  runtime_minutes: number | null;
  format: string | null;
  edition: string | null;
}

/** A present media file of a film that has a disc, and what changes when its analysis changes. */
export interface UpgradeFileStampRow {
  file_id: number;
  movie_id: number;
  /** Changes with every new analysis of the file (its times, fingerprint and record length). */
  stamp: string;
}

/** Ids per statement: well under SQLite's limit of bound parameters. */
const ID_CHUNK = 500;

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
      .leftJoin('loans as l', (j) =>
        j.onRef('l.physical_copy_id', '=', 'pc.id').on('l.returned_at', 'is', null),
      )
      .select([
        'l.id as loan_id',
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
      // The rip queue's rule, shared with /stats' chart (rip-queue.predicate.ts): the copy is a disc.
      .where(({ not }) => not(filmHasPresentFile('m.id')))
      .execute();
    return rows.map(({ loan_id, ...r }) => ({
      ...r,
      slot: r.binder === null ? null : r.slot,
      on_loan: loan_id !== null,
    }));
  }

  /**
   * The discs of the films the filter lets through that can have a reason: a present file to
   * compare with, or a second disc (a film with one disc and no file is the rip queue's, and at
   * 10,000 such films reading them all was most of the time).
   */
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
      .where(({ or, exists, selectFrom }) =>
        or([
          filmHasPresentFile('pc.movie_id'),
          exists(
            selectFrom('physical_copies as other')
              .select(sql<number>`1`.as('one'))
              .whereRef('other.movie_id', '=', 'pc.movie_id')
              .whereRef('other.id', '<>', 'pc.id'),
          ),
        ]),
      )
      .orderBy('pc.id')
      .execute();
  }

  /** The present files of every film that has a disc (the filter applies through the copies). */
  async upgradeFileStamps(): Promise<UpgradeFileStampRow[]> {
    const rows = await this.db
      .selectFrom('media_files as f')
      .select([
        'f.id as file_id',
        'f.movie_id',
        'f.updated_at',
        'f.analyzed_at',
        'f.analyzed_fingerprint',
        sql<number | string | null>`length(f.capabilities_json)`.as('record_length'),
      ])
      .where('f.status', '=', 'present')
      .where('f.movie_id', 'in', (eb) => eb.selectFrom('physical_copies as pc').select('pc.movie_id'))
      .orderBy('f.id')
      .execute();
    return rows.flatMap((r) =>
      r.movie_id === null
        ? []
        : [
            {
              file_id: r.file_id,
              movie_id: r.movie_id,
              stamp: `${r.updated_at}|${r.analyzed_at ?? ''}|${r.analyzed_fingerprint ?? ''}|${String(r.record_length)}`,
            },
          ],
    );
  }

  /** The stored analysis records (capabilities_json) of these files. */
  async capabilitiesOf(ids: readonly number[]): Promise<{ id: number; capabilities_json: string | null }[]> {
    const out: { id: number; capabilities_json: string | null }[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const chunk = ids.slice(i, i + ID_CHUNK);
      out.push(
        ...(await this.db
          .selectFrom('media_files')
          .select(['id', 'capabilities_json'])
          .where('id', 'in', chunk)
          .execute()),
      );
    }
    return out;
  }
}
