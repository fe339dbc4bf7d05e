import type { FastifyInstance } from 'fastify';
import { formatMinutes } from '../../domain/format-duration.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { RipQueueResponse, UpgradesResponse } from '../../services/collector/shelf-reports.service.ts';
import { principalOf } from '../principal.ts';
import { type Html, html, raw } from './html.ts';
import type { PageRenderer } from './people.pages.ts';

type ShelfReportPageServices = Pick<Services, 'shelfReports' | 'visibility'>;

/** The formats the rip queue's filter offers: the discs a collector rips (VHS and LaserDisc are not). */
const RIP_FORMATS = ['4K UHD', 'Blu-ray', '3D Blu-ray', 'HD DVD', 'DVD'] as const;

const binderHref = (name: string): string => `/binders/${encodeURIComponent(name)}`;

/** The `format` query as a list (one key, a repeated key, or none). */
function formatsOf(query: unknown): string[] {
  const value: unknown =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>).format : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Lines on one page of /rip-queue: a screenful or two on a TV, and quick at 10,000 films. */
export const RIP_PAGE_SIZE = 100;

/** The offset query: a whole number, else 0. */
function offsetOf(query: unknown): number {
  const value: unknown =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>).offset : undefined;
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : 0;
}

/** /rip-queue with these formats, from `offset`. */
function ripHref(chosen: readonly string[], offset: number): string {
  const query = new URLSearchParams(chosen.map((f) => ['format', f]));
  if (offset > 0) query.set('offset', String(offset));
  const text = query.toString();
  return text === '' ? '/rip-queue' : `/rip-queue?${text}`;
}

/** GET /rip-queue: the filter, the total estimate and one line per film in binder/slot order. */
function ripQueuePage(
  queue: RipQueueResponse,
  chosen: readonly string[],
  offset: number,
  error: string | null,
): Html {
  const total = formatMinutes(queue.total_runtime_minutes) ?? '0 min';
  const films = `${queue.total} ${queue.total === 1 ? 'film' : 'films'}`;
  const more = offset + queue.items.length < queue.total;
  return html`<h1>Rip queue</h1>
    <p class="help">Films on disc with no media file, in the order they stand in the binders.</p>
    <form method="get" action="/rip-queue" class="rip-filter" aria-label="Filter by format">
      <fieldset>
        <legend>Formats</legend>
        ${RIP_FORMATS.map(
          (f) =>
            html`<label class="rip-format"
              ><input
                type="checkbox"
                name="format"
                value="${f}"
                ${chosen.includes(f) ? raw('checked') : null}
              />
              ${f}</label
            >`,
        )}
        <button type="submit">Show</button>
        ${chosen.length === 0 ? null : html`<a href="/rip-queue">All formats</a>`}
      </fieldset>
    </form>
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    <p class="rip-total" data-total-minutes="${queue.total_runtime_minutes}">
      <strong>${films}</strong> · about <strong>${total}</strong> of discs to rip (TMDb’s runtimes)
    </p>
    ${
      queue.items.length === 0
        ? html`<p class="help">Nothing to rip: every film on disc has a file.</p>`
        : html`<table class="rip-queue">
            <thead>
              <tr>
                <th scope="col">Binder</th>
                <th scope="col">Slot</th>
                <th scope="col">Film</th>
                <th scope="col">Disc</th>
                <th scope="col" class="num">Runtime</th>
              </tr>
            </thead>
            <tbody>
              ${queue.items.map(
                (i) =>
                  html`<tr data-copy="${i.copy_id}">
                    <td>
                      ${i.binder === null ? html`<span class="help">No binder</span>` : html`<a href="${binderHref(i.binder)}">${i.binder}</a>`}
                    </td>
                    <td>${i.slot ?? ''}</td>
                    <td>
                      <a href="/movie/${i.movie_id}">${i.title}</a>${i.year === null ? '' : ` (${i.year})`}
                    </td>
                    <td>
                      ${[i.format, i.edition].filter((p) => p !== null && p !== '').join(' · ')}
                      ${i.on_loan ? html`<a class="rip-loan" href="/loans">On loan</a>` : null}
                    </td>
                    <td class="num">${formatMinutes(i.runtime_minutes) ?? '—'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${
      offset === 0 && !more
        ? null
        : html`<nav class="pager" aria-label="Pages">
            <p class="help">Films ${offset + 1}–${offset + queue.items.length} of ${queue.total}</p>
            <ul>
              ${
                offset > 0
                  ? html`<li>
                      <a href="${ripHref(chosen, Math.max(0, offset - RIP_PAGE_SIZE))}" rel="prev"
                        >Previous</a
                      >
                    </li>`
                  : null
              }
              ${more ? html`<li><a href="${ripHref(chosen, offset + RIP_PAGE_SIZE)}" rel="next">Next</a></li>` : null}
            </ul>
          </nav>`
    }`;
}

const REASON_LABELS: Record<string, string> = {
  uhd_disc_hd_file: '4K disc, HD file',
  bluray_disc_dvd_file: 'Blu-ray, DVD file',
  hdr_disc_sdr_file: 'HDR disc, SDR file',
  file_short: 'File too short',
  duplicate_edition: 'Owned twice',
};

/** GET /upgrades: one block per film, each reason a line saying why. */
function upgradesPage(upgrades: UpgradesResponse): Html {
  return html`<h1>Upgrades and doubles</h1>
    <p class="help">Discs better than their best file, rips that stopped early, and editions owned twice.</p>
    ${
      upgrades.items.length === 0
        ? html`<p class="help">Nothing to upgrade: every file is as good as its disc.</p>`
        : html`<ul class="upgrade-list">
            ${upgrades.items.map(
              (u) =>
                html`<li class="upgrade" data-movie="${u.movie_id}">
                  <a class="upgrade-title" href="/movie/${u.movie_id}">${u.title}</a>
                  <ul class="upgrade-reasons">
                    ${u.reasons.map(
                      (r) =>
                        html`<li data-code="${r.code}">
                          <span class="reason-label">${REASON_LABELS[r.code] ?? r.code}</span>
                          ${r.message}
                        </li>`,
                    )}
                  </ul>
                </li>`,
            )}
          </ul>`
    }`;
}

/** The rip queue and upgrades pages (issue 27 items 2 and 3), through the person's visibility. */
export function registerShelfReportPages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: ShelfReportPageServices,
): void {
  app.get('/rip-queue', async (request, reply) => {
    const filter = services.visibility.filter(principalOf(request));
    const chosen = formatsOf(request.query);
    const offset = offsetOf(request.query);
    try {
      const queue = await services.shelfReports.ripQueue(filter, chosen, { limit: RIP_PAGE_SIZE, offset });
      return pages.page(request, reply, {
        title: 'Rip queue',
        current: 'rip-queue',
        body: ripQueuePage(queue, chosen, offset, null),
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // A format the filter does not know: say so above the queue's first page.
      const queue = await services.shelfReports.ripQueue(filter, [], { limit: RIP_PAGE_SIZE });
      const message = err.hint === undefined ? err.message : `${err.message}. ${err.hint}`;
      return pages.page(request, reply, {
        status: err.status,
        title: 'Rip queue',
        current: 'rip-queue',
        body: ripQueuePage(queue, [], 0, message),
      });
    }
  });

  app.get('/upgrades', async (request, reply) => {
    const upgrades = await services.shelfReports.upgrades(services.visibility.filter(principalOf(request)));
    return pages.page(request, reply, {
      title: 'Upgrades',
      current: 'upgrades',
      body: upgradesPage(upgrades),
    });
  });
}
