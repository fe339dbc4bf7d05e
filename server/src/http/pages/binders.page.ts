import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { BinderSummary, BinderView, SlotCopy } from '../../services/collector/binder.service.ts';
import { principalOf } from '../principal.ts';
import { type Html, html, safeUrl } from './html.ts';
import type { PageRenderer } from './people.pages.ts';
import { csrfInput, formField as field, positiveId } from './forms.ts';

type BinderPageServices = Pick<Services, 'binders' | 'visibility'>;

const binderHref = (name: string): string => `/binders/${encodeURIComponent(name)}`;

/** "Blu-ray · Steelbook" (empty parts left out). */
function describe(copy: SlotCopy): string {
  return [copy.format, copy.edition].filter((p): p is string => p !== null && p !== '').join(' · ');
}

/** GET /binders: every binder, with a link to its pages and to the printable index. */
function listPage(items: BinderSummary[]): Html {
  return html`<h1>Binders</h1>
    <p class="no-print"><a href="/binders?print">Printable index</a> (one line per slot, binder by binder)</p>
    ${
      items.length === 0
        ? html`<p class="help">No binders yet: a disc added with a binder name makes one.</p>`
        : html`<ul class="binder-list">
            ${items.map(
              (b) =>
                html`<li>
                  <a href="${binderHref(b.name)}">${b.name}</a>
                  <span class="help"
                    >${b.copies} ${b.copies === 1 ? 'disc' : 'discs'} · ${b.slots_per_page} per page</span
                  >
                </li>`,
            )}
          </ul>`
    }`;
}

/** GET /binders?print: one line per slot, binder by binder (what a printed index shows). */
function printIndex(binders: BinderView[]): Html {
  return html`<h1>Binder index</h1>
    <p class="no-print help">Print this page (Ctrl+P): the navigation is left out on paper.</p>
    ${binders.map(
      (b) =>
        html`<section class="print-binder">
          <h2>${b.name}</h2>
          <table class="print-index">
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col">Slot</th>
                <th scope="col">Title</th>
                <th scope="col">Format</th>
              </tr>
            </thead>
            <tbody>
              ${b.pages.flatMap((p) =>
                p.slots.map(
                  (s) =>
                    html`<tr>
                      <td>${p.number}</td>
                      <td>${s.slot}</td>
                      <td>${s.copy === null ? html`<span class="help">empty</span>` : s.copy.title}</td>
                      <td>${s.copy === null ? '' : describe(s.copy)}</td>
                    </tr>`,
                ),
              )}
            </tbody>
          </table>
        </section>`,
    )}`;
}

interface BinderPageOptions {
  view: BinderView;
  posters: Map<number, string>;
  admin: boolean;
  csrf: string;
  error: string | null;
}

function slotCell(o: BinderPageOptions, slot: string, copy: SlotCopy | null): Html {
  if (copy === null) {
    return html`<li class="slot slot-empty" data-slot="${slot}">
      <span class="slot-number">${slot}</span>
      <span class="slot-empty-label">Empty</span>
    </li>`;
  }
  const poster = safeUrl(o.posters.get(copy.movie_id));
  const image =
    poster === null
      ? html`<div class="poster poster-placeholder" aria-hidden="true"><span>${copy.title}</span></div>`
      : html`<img class="poster" src="${poster}" alt="" loading="lazy" width="200" height="300" />`;
  const id = `copy-${copy.id}`;
  return html`<li class="slot" data-slot="${slot}" data-copy="${copy.id}">
    <span class="slot-number">${slot}</span>
    <a class="slot-link" href="/movie/${copy.movie_id}"
      >${image}<span class="slot-title">${copy.title}</span></a
    >
    <span class="slot-meta">${describe(copy)}</span>
    ${copy.on_loan ? html`<a class="slot-loan" href="/loans">On loan</a>` : null}
    ${
      o.admin
        ? html`<details class="slot-move no-print">
            <summary>Move</summary>
            <form method="post" action="${binderHref(o.view.name)}/move" class="stacked">
              ${csrfInput(o.csrf)}
              <input type="hidden" name="copy" value="${copy.id}" />
              <label for="${id}-binder">Binder</label>
              <input id="${id}-binder" name="binder" value="${o.view.name}" required maxlength="100" />
              <label for="${id}-slot">Slot</label>
              <input id="${id}-slot" name="slot" value="${slot}" required maxlength="20" />
              <button type="submit">Move disc</button>
            </form>
          </details>`
        : null
    }
  </li>`;
}

/**
 * Columns of a drawn page: one row of the binder's sleeve page (8 → 2 rows of 4, 9 → 3 of 3,
 * 10 → 2 of 5); at most 6, so a slot stays readable on a 1080p TV.
 */
export function pageColumns(slotsPerPage: number): number {
  if (slotsPerPage <= 4) return Math.max(1, slotsPerPage);
  for (const cols of [4, 3, 5, 6]) if (slotsPerPage % cols === 0) return cols;
  return slotsPerPage <= 6 ? slotsPerPage : 4;
}

/** GET /binders/{name}: the binder drawn as its pages, each a grid of slots. */
function binderPage(o: BinderPageOptions): Html {
  const { view } = o;
  return html`<h1>Binder ${view.name}</h1>
    <p class="no-print"><a href="/binders">All binders</a> · <a href="/binders?print">Printable index</a></p>
    ${o.error === null ? null : html`<p class="error" role="alert">${o.error}</p>`}
    ${view.pages.length === 0 ? html`<p class="help">This binder holds no disc.</p>` : null}
    ${view.pages.map(
      (p) =>
        html`<section class="binder-page" aria-label="Page ${p.number}">
          <h2>Page ${p.number}</h2>
          <ol class="binder-slots binder-cols-${pageColumns(view.slots_per_page)}">
            ${p.slots.map((s) => slotCell(o, s.slot, s.copy))}
          </ol>
        </section>`,
    )}
    ${
      o.admin
        ? html`<section class="binder-settings no-print">
            <h2>Rename</h2>
            <form method="post" action="${binderHref(view.name)}/rename" class="stacked">
              ${csrfInput(o.csrf)}
              <label for="binder-name">Name</label>
              <input id="binder-name" name="name" value="${view.name}" required maxlength="100" />
              <label for="binder-per-page">Slots per page</label>
              <input
                id="binder-per-page"
                name="slots_per_page"
                type="number"
                min="1"
                max="100"
                value="${view.slots_per_page}"
              />
              <button type="submit">Save</button>
            </form>
          </section>`
        : null
    }`;
}

/** The binders' pages (issue 27 item 1): list, one binder, printable index, move and rename forms. */
export function registerBinderPages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: BinderPageServices,
): void {
  app.get<{ Querystring: Record<string, string | undefined> }>('/binders', async (request, reply) => {
    const filter = services.visibility.filter(principalOf(request));
    const { items } = await services.binders.list(filter);
    if (request.query.print === undefined) {
      return pages.page(request, reply, { title: 'Binders', current: 'binders', body: listPage(items) });
    }
    const views: BinderView[] = [];
    for (const b of items) views.push(await services.binders.get(b.name, filter));
    return pages.page(request, reply, { title: 'Binder index', current: 'binders', body: printIndex(views) });
  });

  const show = async (
    request: FastifyRequest<{ Params: { name: string } }>,
    reply: FastifyReply,
    error: { message: string; status: number } | null,
  ) => {
    const { view, posters } = await services.binders.page(
      request.params.name,
      services.visibility.filter(principalOf(request)),
    );
    return pages.page(request, reply, {
      status: error?.status ?? 200,
      title: `Binder ${view.name}`,
      current: 'binders',
      body: binderPage({
        view,
        posters,
        admin: principalOf(request).role === 'admin',
        csrf: pages.csrf(request),
        error: error?.message ?? null,
      }),
    });
  };

  app.get<{ Params: { name: string } }>('/binders/:name', (request, reply) => show(request, reply, null));

  /** Runs a form's write; a refusal (409 slot taken, …) shows the binder again with the reason. */
  const act = async (
    request: FastifyRequest<{ Params: { name: string } }>,
    reply: FastifyReply,
    write: () => Promise<string>,
  ) => {
    try {
      return reply.redirect(await write(), 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const message = err.hint === undefined ? err.message : `${err.message} ${err.hint}`;
      return show(request, reply, { message, status: err.status });
    }
  };

  app.post<{ Params: { name: string } }>('/binders/:name/move', (request, reply) =>
    act(request, reply, async () => {
      const copy = positiveId(field(request.body, 'copy'));
      if (copy === null) throw new AppError('validation_failed', { message: 'No disc named.' });
      const moved = await services.binders.move(
        copy,
        field(request.body, 'binder'),
        field(request.body, 'slot'),
      );
      return `${binderHref(moved.binder)}#slot-${encodeURIComponent(moved.slot)}`;
    }),
  );

  app.post<{ Params: { name: string } }>('/binders/:name/rename', (request, reply) =>
    act(request, reply, async () => {
      const perPage = field(request.body, 'slots_per_page').trim();
      const n = Number(perPage);
      if (perPage !== '' && (!Number.isInteger(n) || n < 1 || n > 100)) {
        throw new AppError('validation_failed', { message: 'Slots per page is a number from 1 to 100.' });
      }
      const name = field(request.body, 'name').trim();
      if (name.length > 100)
        throw new AppError('validation_failed', { message: 'A name has at most 100 characters.' });
      const updated = await services.binders.update(request.params.name, {
        ...(name === '' ? {} : { name }),
        ...(perPage === '' ? {} : { slots_per_page: n }),
      });
      return binderHref(updated.name);
    }),
  );
}
