import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { Wish, WishInput } from '../../services/collector/wish.service.ts';
import { principalOf } from '../principal.ts';
import { type Html, html } from './html.ts';
import type { PageRenderer } from './people.pages.ts';
import { csrfInput, formField, positiveId } from './forms.ts';

type WishPageServices = Pick<Services, 'wishes'>;

const field = (body: unknown, name: string): string => formField(body, name).trim();

/** A whole number in range from a form field; null when empty. */
function whole(raw: string, what: string, min: number, max: number): number | null {
  if (raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError('validation_failed', { message: `${what} is a whole number from ${min} to ${max}.` });
  }
  return n;
}

/** The add form's fields as the API's body (the service checks that a film is named). */
export function wishInputFromForm(body: unknown): WishInput {
  const title = field(body, 'title');
  const note = field(body, 'note');
  const year = whole(field(body, 'year'), 'The year', 1870, 2100);
  const tmdbId = whole(field(body, 'tmdb_id'), 'The TMDb id', 1, 2147483647);
  if (title.length > 500)
    throw new AppError('validation_failed', { message: 'A title has at most 500 characters.' });
  if (note.length > 2000)
    throw new AppError('validation_failed', { message: 'A note has at most 2000 characters.' });
  return {
    ...(title === '' ? {} : { title }),
    ...(year === null ? {} : { year }),
    ...(tmdbId === null ? {} : { tmdb_id: tmdbId }),
    ...(note === '' ? {} : { note }),
  };
}

interface WishPageOptions {
  items: Wish[];
  /** Members and admins add and remove; children read. */
  collector: boolean;
  csrf: string;
  error: string | null;
}

function wishRow(o: WishPageOptions, w: Wish): Html {
  return html`<tr id="wish-${w.id}" data-wish="${w.id}">
    <td>${w.title}</td>
    <td>${w.year ?? ''}</td>
    <td>
      ${w.tmdb_id === null ? '' : html`<a href="https://www.themoviedb.org/movie/${w.tmdb_id}">${w.tmdb_id}</a>`}
    </td>
    <td>${w.note ?? ''}</td>
    <td>${w.created_at.slice(0, 10)}</td>
    ${
      o.collector
        ? html`<td>
            <form method="post" action="/wishes/${w.id}/remove">
              ${csrfInput(o.csrf)}
              <button type="submit" aria-label="Remove ${w.title} from the wish list">Remove</button>
            </form>
          </td>`
        : null
    }
  </tr>`;
}

/** GET /wishes: the list, and (for collectors) the add form. */
export function wishesPage(o: WishPageOptions): Html {
  return html`<h1>Wish list</h1>
    <p class="help">
      Films the household wants and does not own. Scanning a wished film's barcode, or importing it with a
      disc, takes it off the list.
    </p>
    ${o.error === null ? null : html`<p class="error" role="alert">${o.error}</p>`}
    ${
      o.items.length === 0
        ? html`<p class="help">The wish list is empty.</p>`
        : html`<table class="wish-list">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Year</th>
                <th scope="col">TMDb</th>
                <th scope="col">Note</th>
                <th scope="col">Added</th>
                ${o.collector ? html`<th scope="col"><span class="visually-hidden">Remove</span></th>` : null}
              </tr>
            </thead>
            <tbody>
              ${o.items.map((w) => wishRow(o, w))}
            </tbody>
          </table>`
    }
    ${
      o.collector
        ? html`<section class="wish-add">
            <h2>Add a wish</h2>
            <form method="post" action="/wishes" class="stacked">
              ${csrfInput(o.csrf)}
              <label for="wish-title">Title</label>
              <input id="wish-title" name="title" maxlength="500" />
              <label for="wish-year">Year</label>
              <input id="wish-year" name="year" type="number" min="1870" max="2100" />
              <label for="wish-tmdb">or TMDb id</label>
              <input id="wish-tmdb" name="tmdb_id" type="number" min="1" />
              <label for="wish-note">Note</label>
              <input id="wish-note" name="note" maxlength="2000" />
              <button type="submit">Add to the wish list</button>
            </form>
          </section>`
        : null
    }`;
}

/** The wish list's page (issue 27 item 5): list, add form, remove buttons. */
export function registerWishPages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: WishPageServices,
): void {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    error: { message: string; status: number } | null,
  ) => {
    const { items } = await services.wishes.list();
    return pages.page(request, reply, {
      status: error?.status ?? 200,
      title: 'Wish list',
      current: 'wishes',
      body: wishesPage({
        items,
        collector: principalOf(request).role !== 'child',
        csrf: pages.csrf(request),
        error: error?.message ?? null,
      }),
    });
  };

  app.get('/wishes', (request, reply) => show(request, reply, null));

  /** Runs a form's write; a refusal (409 already wished or owned, 400) shows the list with the reason. */
  const act = async (request: FastifyRequest, reply: FastifyReply, write: () => Promise<string>) => {
    try {
      return reply.redirect(await write(), 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const message = err.hint === undefined ? err.message : `${err.message} ${err.hint}`;
      return show(request, reply, { message, status: err.status });
    }
  };

  app.post('/wishes', (request, reply) =>
    act(request, reply, async () => {
      const added = await services.wishes.add(wishInputFromForm(request.body));
      return `/wishes#wish-${added.id}`;
    }),
  );

  app.post<{ Params: { id: string } }>('/wishes/:id/remove', (request, reply) =>
    act(request, reply, async () => {
      const id = positiveId(request.params.id);
      if (id === null) throw new AppError('not_found', { message: 'No such wish.' });
      await services.wishes.remove(id);
      return '/wishes';
    }),
  );
}
