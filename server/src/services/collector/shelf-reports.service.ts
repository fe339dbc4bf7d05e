import type { RipQueueResponse, UpgradesResponse } from '@reelshelf/contract';
import { buildRipQueue } from '../../domain/collector/rip-queue.ts';
import {
  type UpgradeDisc,
  type UpgradeFile,
  type UpgradeFilm,
  upgradeReasons,
} from '../../domain/collector/upgrades.ts';
import { parseFormat } from '../../domain/import-export/fields.ts';
import { DISC_FORMATS } from '../../domain/import-export/types.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import { validationFailed } from '../../errors.ts';
import type { CollectorRepository } from '../../repositories/collector.repository.ts';
import type { UpgradeFileFacts } from './upgrade-file-facts.ts';

export type { RipQueueResponse, UpgradesResponse };

type Reads = Pick<CollectorRepository, 'ripCandidates' | 'upgradeCopies'>;

/**
 * The rip queue and the upgrades (issue 27 items 2 and 3, docs/collector.md): what to rip next, in
 * the order the discs stand in their binders, and where a disc beats its file. Every film through
 * the viewer's visibility filter.
 */
export class ShelfReportService {
  constructor(
    private readonly reads: Reads,
    private readonly files: Pick<UpgradeFileFacts, 'all'>,
  ) {}

  /**
   * Films on disc with no present file. `formats` as people write them ("4K Ultra HD", "bluray"),
   * normalised like an import's; one that names no disc format is a 400. `page` slices the queue;
   * the totals stay the whole queue's.
   */
  async ripQueue(
    filter: CertificationFilter | null,
    formats: readonly string[] = [],
    page: { limit?: number; offset?: number } = {},
  ): Promise<RipQueueResponse> {
    const wanted = formats
      .flatMap((f) => f.split(','))
      .map((f) => f.trim())
      .filter((f) => f !== '');
    const normalised = wanted.map((text) => {
      const parsed = parseFormat(text);
      if (!parsed.ok || parsed.value === null || !parsed.value.known) {
        throw validationFailed(
          'format',
          `"${text}" is not a disc format`,
          `One of: ${DISC_FORMATS.join(', ')}.`,
        );
      }
      return parsed.value.format;
    });
    const queue = buildRipQueue(
      await this.reads.ripCandidates(filter),
      normalised.length === 0 ? null : normalised,
    );
    // The order is decided over every disc (binder/slot, best format per film): a page is a slice of it.
    const offset = page.offset ?? 0;
    const items =
      page.limit === undefined ? queue.items.slice(offset) : queue.items.slice(offset, offset + page.limit);
    return { ...queue, items };
  }

  /** Films whose disc beats their best file, whose file stopped early, or owned twice; by title. */
  async upgrades(filter: CertificationFilter | null): Promise<UpgradesResponse> {
    const [copies, files] = await Promise.all([this.reads.upgradeCopies(filter), this.files.all()]);
    // Mutable lists while the rows are gathered; upgradeReasons only reads them.
    const films = new Map<number, UpgradeFilm & { discs: UpgradeDisc[]; files: UpgradeFile[] }>();
    for (const c of copies) {
      let film = films.get(c.movie_id);
      if (film === undefined) {
        film = {
          movie_id: c.movie_id,
          title: c.title,
          runtime_minutes: c.runtime_minutes,
          discs: [],
          files: [],
        };
        films.set(c.movie_id, film);
      }
      film.discs.push({ copy_id: c.copy_id, format: c.format, edition: c.edition });
    }
    // Files of films the filter hides have no film here: they are dropped with it.
    for (const f of files) films.get(f.movie_id)?.files.push(f.facts);
    const items = [...films.values()].flatMap((film) => {
      const item = upgradeReasons(film);
      return item === null ? [] : [item];
    });
    items.sort((a, b) => byTitle.compare(a.title, b.title) || a.movie_id - b.movie_id);
    return { items };
  }
}

const byTitle = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
