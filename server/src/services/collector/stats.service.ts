import type { StatsOverview, StatsYear } from '@reelshelf/contract';
import { type Clock } from '../../adapters/clock.ts';
import type { Principal } from '../../domain/people/principal.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import { ripQueueSeries } from '../../domain/stats/rip-queue-series.ts';
import { monthsOfYear, summariseYear } from '../../domain/stats/your-year.ts';
import { AppError } from '../../errors.ts';
import type { CountRow, StatsRepository } from '../../repositories/stats.repository.ts';
import type { DeviceShare, PlaybackShareIndex } from './playback-share.ts';

export type { DeviceShare };

// The shapes of the API (contract/src/api.ts), one definition: the pages draw the same views.
export type { StatsOverview };
export type YearView = StatsYear;

type StatsReads = Pick<
  StatsRepository,
  | 'discsByFormat'
  | 'discsByDecade'
  | 'filmsByFiles'
  | 'spaceByRoot'
  | 'ripQueueGroups'
  | 'yearFilms'
  | 'yearMonths'
  | 'yearDevices'
  | 'people'
>;

export interface StatsVisibility {
  filter(viewer: Viewer | null): CertificationFilter | null;
  visibleMovieIds(viewer: Viewer | null): Promise<ReadonlySet<number> | null>;
  seesUnmatched(viewer: Viewer | null): boolean;
}

export interface StatsDeps {
  reads: StatsReads;
  share: Pick<PlaybackShareIndex, 'share'>;
  visibility: StatsVisibility;
  clock: Clock;
}

/** Format names as written by people and imports ("blu-ray", "Blu-Ray ") grouped as one. */
function byFormat(rows: readonly CountRow[]): { label: string; discs: number }[] {
  const merged = new Map<string, { label: string; discs: number }>();
  for (const r of rows) {
    const label = r.key === null || r.key.trim() === '' ? 'Unknown' : r.key.trim();
    const key = label.toLowerCase();
    const kept = merged.get(key);
    if (kept === undefined) merged.set(key, { label, discs: r.count });
    else kept.discs += r.count;
  }
  return [...merged.values()].sort((a, b) => b.discs - a.discs || a.label.localeCompare(b.label));
}

function byDecade(rows: readonly CountRow[]): { label: string; discs: number }[] {
  const known = rows
    .filter((r) => r.key !== null)
    .map((r) => ({ decade: Number(r.key), discs: r.count }))
    .sort((a, b) => a.decade - b.decade)
    .map((r) => ({ label: `${r.decade}s`, discs: r.discs }));
  const unknown = rows.filter((r) => r.key === null).reduce((sum, r) => sum + r.count, 0);
  return unknown > 0 ? [...known, { label: 'Unknown', discs: unknown }] : known;
}

/**
 * /stats (issue 27 item 6, docs/collector.md "Stats"): the shelf in figures, each a grouped read
 * through the viewer's visibility rule, and "your year" from a person's play history.
 */
export class StatsService {
  constructor(private readonly deps: StatsDeps) {}

  async overview(viewer: Viewer | null): Promise<StatsOverview> {
    const { reads, visibility } = this.deps;
    const filter = visibility.filter(viewer);
    const unmatched = visibility.seesUnmatched(viewer);
    const [formats, decades, films, roots, rip, share] = await Promise.all([
      reads.discsByFormat(filter),
      reads.discsByDecade(filter),
      reads.filmsByFiles(filter),
      reads.spaceByRoot(filter, unmatched),
      reads.ripQueueGroups(filter),
      visibility.visibleMovieIds(viewer).then((visible) => this.deps.share.share(visible, unmatched)),
    ]);
    const kind = (key: string) => films.find((r) => r.key === key)?.count ?? 0;
    return {
      discs_by_format: byFormat(formats),
      discs_by_decade: byDecade(decades),
      films_by_files: { with_file: kind('file'), disc_only: kind('disc'), neither: kind('none') },
      playback_share: share,
      space_by_root: roots,
      rip_queue: ripQueueSeries(rip, this.deps.clock.now()),
    };
  }

  /**
   * A person's year of plays (`year` default: this year). Anyone sees their own; an admin may ask
   * for anyone's (404 for no such person); another person's is 403. What is counted and named goes
   * through the asker's visibility rule.
   */
  async year(asker: Principal, options: { person?: number; year?: number } = {}): Promise<YearView> {
    const { reads, visibility } = this.deps;
    const admin = asker.role === 'admin';
    const personId = options.person ?? asker.userId;
    if (personId !== asker.userId && !admin) {
      throw new AppError('forbidden', { message: 'Only an admin may see another person’s year.' });
    }
    const people = await reads.people();
    const person = people.find((p) => p.id === personId);
    if (person === undefined) throw new AppError('not_found', { message: `No person with id ${personId}.` });
    const year = options.year ?? this.deps.clock.now().getUTCFullYear();
    if (!Number.isInteger(year) || year < 1900 || year > 9998) {
      throw new AppError('validation_failed', { message: 'A year is a number such as 2026.' });
    }
    const from = `${String(year).padStart(4, '0')}-01-01T00:00:00.000Z`;
    const to = `${String(year + 1).padStart(4, '0')}-01-01T00:00:00.000Z`;
    const filter = visibility.filter(asker);
    const unmatched = visibility.seesUnmatched(asker);
    const [films, months, devices] = await Promise.all([
      reads.yearFilms(personId, from, to, filter, unmatched),
      reads.yearMonths(personId, from, to, filter, unmatched),
      reads.yearDevices(personId, from, to, filter, unmatched),
    ]);
    return {
      person,
      year,
      ...summariseYear(films),
      months: monthsOfYear(months),
      devices: devices
        .map((d) => ({ device: d.key ?? 'unknown', plays: d.count }))
        .sort((a, b) => b.plays - a.plays || a.device.localeCompare(b.device)),
      people: admin ? people : [],
    };
  }
}
