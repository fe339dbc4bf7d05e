import type { LibraryMovieItem } from '@reelshelf/contract';
import { type Html, html, queryString, safeUrl } from './html.ts';
import { badge, badgeLabel } from './layout.ts';
import { BADGES, defaultSort, type LibraryQuery, type LibraryView, PAGE_SIZE } from './library-view.ts';

export interface DeviceChoice {
  id: string;
  name: string;
}

export interface LibraryPageData {
  view: LibraryView;
  device: string;
  devices: DeviceChoice[];
  healthSummary: string | null;
  systemWarning: string | null;
  /** The person's "continue watching" row, shown above the filters (null: nothing to resume). */
  continueRow?: Html | null;
}

const SORT_LABELS: Record<string, string> = {
  relevance: 'Best match',
  title: 'Title',
  year: 'Year (newest first)',
  recent: 'Recently added',
};

/**
 * The sort choices: the default order of the query (best match with a search, else title) is the
 * empty value, so a search typed on the plain page is ranked rather than sent as `sort=title`.
 */
function sortOptions(query: LibraryQuery): Html[] {
  const fallback = defaultSort(query.q);
  const selected = query.sort === fallback ? '' : query.sort;
  return Object.entries(SORT_LABELS)
    .filter(([value]) => value !== 'relevance' || query.q !== '')
    .map(([value, label]) => option(value === fallback ? '' : value, label, selected));
}

/** The URL of the library with the current filters and some of them changed. */
function libraryUrl(query: LibraryQuery, change: Partial<LibraryQuery>): string {
  const q = { ...query, ...change };
  return `/library${queryString({
    q: q.q,
    badge: q.badge,
    format: q.format,
    binder: q.binder,
    on_loan: q.on_loan ? '1' : '',
    sort: q.sort === defaultSort(q.q) ? '' : q.sort,
    page: q.page === 1 ? '' : q.page,
  })}`;
}

function option(value: string, label: string, selected: string): Html {
  return html`<option value="${value}" ${value === selected ? html`selected` : null}>${label}</option>`;
}

function card(item: LibraryMovieItem, index: number): Html {
  const poster = safeUrl(item.poster_url);
  const titleId = `card-title-${index}`;
  const image =
    poster === null
      ? html`<div class="poster poster-placeholder" aria-hidden="true"><span>${item.title}</span></div>`
      : html`<img
          class="poster"
          src="${poster}"
          alt="Poster: ${item.title}"
          loading="lazy"
          width="200"
          height="300"
        />`;
  const inner = html`${image}
    <h3 class="card-title" id="${titleId}">${item.title}</h3>`;
  // The link is named by the title alone, so a screen reader does not hear the title twice.
  return html`<li class="card">
    ${
      item.movie_id === null
        ? html`<div class="card-link card-link-static">${inner}</div>`
        : html`<a class="card-link" href="/movie/${item.movie_id}" aria-labelledby="${titleId}">${inner}</a>`
    }
    <p class="card-meta">
      <span class="year">${item.year ?? 'Year unknown'}</span>
      ${badge(item.badge)}
    </p>
  </li>`;
}

function pager(view: LibraryView): Html | null {
  if (view.pages <= 1) return null;
  const { page, pages, query } = view;
  const link = (p: number, label: string, rel?: string) =>
    html`<a href="${libraryUrl(query, { page: p })}" ${rel === undefined ? null : html`rel="${rel}"`}
      >${label}</a
    >`;
  const numbers: Html[] = [];
  for (let p = Math.max(1, page - 2); p <= Math.min(pages, page + 2); p++) {
    numbers.push(
      p === page
        ? html`<li><span aria-current="page" class="current">${p}</span></li>`
        : html`<li>${link(p, String(p))}</li>`,
    );
  }
  return html`<nav class="pager" aria-label="Pages">
    <p>Page ${page} of ${pages}</p>
    <ul>
      ${
        page > 1
          ? html`<li>${link(1, 'First')}</li>
              <li>${link(page - 1, 'Previous', 'prev')}</li>`
          : null
      }
      ${numbers}
      ${
        page < pages
          ? html`<li>${link(page + 1, 'Next', 'next')}</li>
              <li>${link(pages, 'Last')}</li>`
          : null
      }
    </ul>
  </nav>`;
}

/** GET /library (text/html): filters, the poster grid of one page, and the pager. */
export function libraryPage(data: LibraryPageData): Html {
  const { view } = data;
  const { query } = view;
  const first = (view.page - 1) * PAGE_SIZE + 1;
  const summary =
    view.matched === 0
      ? 'No movies match.'
      : `Showing ${first.toLocaleString('en')}–${(first + view.items.length - 1).toLocaleString('en')} of ${view.matched.toLocaleString('en')} movies${view.matched === view.total ? '' : ` (${view.total.toLocaleString('en')} in the library)`}.`;
  return html`<h1>Library</h1>
    ${data.healthSummary === null ? null : html`<p class="health">${data.healthSummary}</p>`}
    ${
      data.systemWarning === null
        ? null
        : html`<p class="warning" role="note"><strong>Note:</strong> ${data.systemWarning}</p>`
    }
    ${data.continueRow ?? null}
    <section class="filters" aria-labelledby="filters-heading">
      <h2 id="filters-heading" class="visually-hidden">Search and filters</h2>
      <form method="get" action="/library" role="search">
        <div class="field field-wide">
          <label for="q">Search title, cast or director</label>
          <input id="q" name="q" type="search" value="${query.q}" autocomplete="off" />
        </div>
        <div class="field">
          <label for="badge">Status</label>
          <select id="badge" name="badge">
            ${option('', 'Any status', query.badge)}
            ${BADGES.map((b) => option(b, badgeLabel(b), query.badge))}
          </select>
        </div>
        <div class="field">
          <label for="format">Disc format</label>
          <select id="format" name="format">
            ${option('', 'Any format', query.format)} ${view.formats.map((f) => option(f, f, query.format))}
          </select>
        </div>
        <div class="field">
          <label for="binder">Binder</label>
          <select id="binder" name="binder">
            ${option('', 'Any binder', query.binder)} ${view.binders.map((b) => option(b, b, query.binder))}
          </select>
        </div>
        <div class="field">
          <label for="on_loan">Loans</label>
          <select id="on_loan" name="on_loan">
            ${option('', 'Any', query.on_loan ? '1' : '')} ${option('1', 'On loan', query.on_loan ? '1' : '')}
          </select>
        </div>
        <div class="field">
          <label for="device">Playing on</label>
          <select id="device" name="device">
            ${data.devices.map((d) => option(d.id, d.name, data.device))}
          </select>
        </div>
        <div class="field">
          <label for="sort">Sort by</label>
          <select id="sort" name="sort">
            ${sortOptions(query)}
          </select>
        </div>
        <div class="field field-actions">
          <button type="submit">Apply</button>
          <a class="button-secondary" href="/library">Clear</a>
        </div>
      </form>
    </section>
    <section aria-labelledby="movies-heading">
      <h2 id="movies-heading">Movies</h2>
      <p class="result-summary" role="status">${summary}</p>
      <ul class="grid">
        ${view.items.map(card)}
      </ul>
      ${pager(view)}
    </section>`;
}
