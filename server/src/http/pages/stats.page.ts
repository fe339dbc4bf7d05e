import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { StatsOverview, YearView } from '../../services/collector/stats.service.ts';
import { monthLabel } from '../../domain/stats/rip-queue-series.ts';
import { PALETTE, barChart, lineChart, stackedBars } from '../../domain/stats/svg-charts.ts';
import { principalOf } from '../principal.ts';
import { type Html, html, raw } from './html.ts';
import type { PageRenderer } from './people.pages.ts';

type StatsPageServices = Pick<Services, 'stats'>;

/** 12.3 TB, 1.2 GB, 340 MB: disk space as a person reads it. */
export function spaceText(bytes: number): string {
  if (bytes >= 1e12) return `${(bytes / 1e12).toFixed(1)} TB`;
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  if (bytes > 0) return `${Math.max(1, Math.round(bytes / 1e3))} KB`;
  return '0';
}

const SHARE_SERIES = [
  { name: 'Direct', colour: PALETTE[2] },
  { name: 'Converted', colour: PALETTE[0] },
  { name: 'Not playable', colour: PALETTE[5] },
  { name: 'Not analysed', colour: PALETTE[4] },
];

const FILM_SERIES = [
  { name: 'With a file', colour: PALETTE[2] },
  { name: 'On disc only', colour: PALETTE[1] },
  { name: 'Neither', colour: PALETTE[4] },
];

function figure(title: string, chart: string, note: Html | null = null): Html {
  return html`<figure class="stats-card">
    <figcaption>${title}</figcaption>
    ${raw(chart)} ${note === null ? null : html`<p class="help">${note}</p>`}
  </figure>`;
}

/** GET /stats: six charts, each an SVG drawn on the server; the most telling two first (a TV shows four at once). */
export function statsPage(o: StatsOverview): Html {
  const films = o.films_by_files;
  const queue = o.rip_queue[o.rip_queue.length - 1]?.discs ?? 0;
  return html`<h1>The shelf in pictures</h1>
    <p class="no-print">
      <a href="/stats/year">Your year</a> · the figures as JSON: <a href="/api/stats">/api/stats</a>
    </p>
    <div class="stats-grid">
      ${figure(
        'Playback per device',
        stackedBars(
          o.playback_share.map((d) => ({
            label: d.name,
            values: [d.counts.direct, d.counts.converted, d.counts.not_playable, d.counts.unknown],
          })),
          SHARE_SERIES,
          { id: 'chart-playback', title: 'How the files play on each device', percent: true },
        ),
        html`Each file as the library decides it for that device: direct, converted on the fly (remux, audio
        or video), or not playable.`,
      )}
      ${figure(
        'The rip queue over time',
        lineChart(
          o.rip_queue.map((p) => ({ label: monthLabel(p.month), value: p.discs })),
          { id: 'chart-rip-queue', title: 'Discs waiting to be ripped, month by month' },
        ),
        html`${queue} ${queue === 1 ? 'disc waits' : 'discs wait'} now. Rebuilt from when each disc was added
        and when the first file of its film that is here today was added.`,
      )}
      ${figure(
        'Discs by format',
        barChart(
          o.discs_by_format.map((d) => ({ label: d.label, value: d.discs })),
          { id: 'chart-format', title: 'Discs by format' },
        ),
      )}
      ${figure(
        'Films with and without files',
        stackedBars(
          [{ label: 'Films', values: [films.with_file, films.disc_only, films.neither] }],
          FILM_SERIES,
          { id: 'chart-files', title: 'Films with and without files', percent: true },
        ),
        html`${films.with_file} with a file, ${films.disc_only} on disc only (to rip), ${films.neither} with
        neither.`,
      )}
      ${figure(
        'Discs by decade',
        barChart(
          o.discs_by_decade.map((d) => ({ label: d.label, value: d.discs })),
          { id: 'chart-decade', title: 'Discs by decade of the film' },
          PALETTE[3],
        ),
      )}
      ${figure(
        'Disk space by library root',
        barChart(
          o.space_by_root.map((r) => ({ label: r.name, value: r.bytes })),
          { id: 'chart-space', title: 'Disk space by library root', format: spaceText },
          PALETTE[0],
        ),
      )}
    </div>`;
}

function personPicker(v: YearView): Html | null {
  if (v.people.length < 2) return null;
  return html`<form method="get" action="/stats/year" class="inline-form no-print">
    <label for="year-person">Person</label>
    <select id="year-person" name="person">
      ${v.people.map(
        (p) =>
          html`<option value="${p.id}" ${p.id === v.person.id ? raw('selected') : null}>${p.name}</option>`,
      )}
    </select>
    <label for="year-year">Year</label>
    <input id="year-year" name="year" type="number" min="1900" max="9998" value="${v.year}" />
    <button type="submit">Show</button>
  </form>`;
}

function filmLink(f: { movie_id: number | null; title: string } | null): Html | string {
  if (f === null) return '—';
  return f.movie_id === null ? f.title : html`<a href="/movie/${f.movie_id}">${f.title}</a>`;
}

/** GET /stats/year: one person's year of plays. */
export function yearPage(v: YearView): Html {
  const query = (year: number) =>
    `/stats/year?${v.people.length > 0 ? `person=${v.person.id}&` : ''}year=${year}`;
  return html`<h1>${v.person.name}’s ${v.year}</h1>
    <p class="no-print">
      <a href="${query(v.year - 1)}">← ${v.year - 1}</a> ·
      <a href="${query(v.year + 1)}">${v.year + 1} →</a> ·
      <a href="/stats">The shelf in pictures</a>
    </p>
    ${personPicker(v)}
    <dl class="year-facts">
      <div>
        <dt>Films watched</dt>
        <dd>${v.films}</dd>
      </div>
      <div>
        <dt>Hours watched</dt>
        <dd>${v.hours}</dd>
      </div>
      <div>
        <dt>Plays</dt>
        <dd>${v.plays}</dd>
      </div>
      <div>
        <dt>Most-used device</dt>
        <dd>${v.devices[0]?.device ?? '—'}</dd>
      </div>
      <div>
        <dt>First film of the year</dt>
        <dd>${filmLink(v.first)}</dd>
      </div>
      <div>
        <dt>Last film of the year</dt>
        <dd>${filmLink(v.last)}</dd>
      </div>
    </dl>
    <div class="stats-grid">
      ${figure(
        'Plays by month',
        barChart(
          // The year is in the heading: a month's short name is its label.
          v.months.map((m) => ({ label: monthLabel(`${v.year}-${m.month}`).slice(0, 3), value: m.plays })),
          { id: 'chart-months', title: `Plays by month in ${v.year}` },
        ),
      )}
      ${figure(
        'Top genres',
        barChart(
          v.genres.map((g) => ({ label: g.name, value: g.films })),
          { id: 'chart-genres', title: `Top genres in ${v.year} (films)` },
          PALETTE[3],
        ),
      )}
    </div>`;
}

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new AppError('validation_failed', { message: 'A person and a year are whole numbers.' });
  }
  return n;
}

/** /stats and /stats/year (issue 27 item 6); the JSON of the same figures is GET /api/stats. */
export function registerStatsPages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: StatsPageServices,
): void {
  app.get('/stats', async (request, reply) => {
    const overview = await services.stats.overview(principalOf(request));
    return pages.page(request, reply, { title: 'Stats', current: 'stats', body: statsPage(overview) });
  });

  app.get<{ Querystring: { person?: string; year?: string } }>('/stats/year', async (request, reply) => {
    let view: YearView;
    try {
      const person = positiveInt(request.query.person);
      const year = positiveInt(request.query.year);
      view = await services.stats.year(principalOf(request), {
        ...(person === undefined ? {} : { person }),
        ...(year === undefined ? {} : { year }),
      });
    } catch (err) {
      // A refusal (400 not a year, 403 another's year, 404 no such person) is a page with its reason.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return pages.page(request, reply, {
        status: err.status,
        title: 'Stats',
        current: 'stats',
        body: html`<h1>Your year</h1>
          <p class="error" role="alert">${err.message}</p>
          <p><a href="/stats/year">This year</a> · <a href="/stats">Stats</a></p>`,
      });
    }
    return pages.page(request, reply, {
      title: `${view.person.name}’s ${view.year}`,
      current: 'stats',
      body: yearPage(view),
    });
  });
}
