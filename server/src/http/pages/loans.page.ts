import type { LoanView } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import { principalOf } from '../principal.ts';
import { type Html, html } from './html.ts';
import type { PageRenderer } from './people.pages.ts';
import { csrfInput, formField as field, positiveId } from './forms.ts';

type LoanPageServices = Pick<Services, 'loans' | 'visibility'>;

/** "Binder A · slot 3 · Blu-ray" of the loan's disc. */
export function loanPlace(loan: LoanView): string {
  const parts = [loan.binder ?? '', loan.slot === null ? '' : `slot ${loan.slot}`, loan.format ?? ''];
  return parts.filter((p) => p !== '').join(' · ') || 'Location not recorded';
}

const day = (iso: string): string => iso.slice(0, 10);

/** "to Sam since 2026-03-10, due 2026-03-20" (and "back 2026-03-12" once returned). */
export function loanSummary(loan: LoanView): string {
  const due = loan.due === null ? '' : `, due ${loan.due}`;
  const back = loan.returned_at === null ? '' : `, back ${day(loan.returned_at)}`;
  return `to ${loan.to} since ${day(loan.lent_at)}${due}${back}`;
}

/** A return button (admins): the form posts the copy and where to come back to. */
export function returnForm(loan: LoanView, csrf: string, back: string): Html {
  return html`<form method="post" action="/loans/return" class="inline-form no-print">
    ${csrfInput(csrf)}
    <input type="hidden" name="copy" value="${loan.copy_id}" />
    <input type="hidden" name="back" value="${back}" />
    <button type="submit">Returned</button>
  </form>`;
}

/** A lend form for one copy (admins): to whom, and the day it is due back if any. */
export function lendForm(copyId: number, csrf: string, back: string): Html {
  const id = `lend-${copyId}`;
  return html`<form method="post" action="/loans/lend" class="inline-form no-print">
    ${csrfInput(csrf)}
    <input type="hidden" name="copy" value="${copyId}" />
    <input type="hidden" name="back" value="${back}" />
    <label for="${id}-to">Lend to</label>
    <input id="${id}-to" name="to" required maxlength="200" />
    <label for="${id}-due">Due</label>
    <input id="${id}-due" name="due" type="date" />
    <button type="submit">Lend</button>
  </form>`;
}

interface LoansPageOptions {
  loans: LoanView[];
  history: boolean;
  admin: boolean;
  csrf: string;
  error: string | null;
}

function loanItem(loan: LoanView, o: LoansPageOptions): Html {
  return html`<li class="${loan.overdue ? 'loan loan-overdue' : 'loan'}" data-copy="${loan.copy_id}">
    <a href="/movie/${loan.movie_id}">${loan.title}</a>
    <span class="help">${loanPlace(loan)}</span>
    <span>${loanSummary(loan)}</span>
    ${loan.overdue ? html`<strong class="overdue-label">Overdue</strong>` : null}
    ${o.admin && loan.returned_at === null ? returnForm(loan, o.csrf, '/loans') : null}
  </li>`;
}

/** GET /loans: the overdue discs first, then the others out; `?history=1` adds the returned ones. */
function loansPage(o: LoansPageOptions): Html {
  const out = o.loans.filter((l) => l.returned_at === null);
  const overdue = out.filter((l) => l.overdue);
  const onTime = out.filter((l) => !l.overdue);
  const returned = o.loans.filter((l) => l.returned_at !== null).reverse();
  const list = (items: LoanView[], empty: string) =>
    items.length === 0
      ? html`<p class="help">${empty}</p>`
      : html`<ul class="loan-list">
          ${items.map((l) => loanItem(l, o))}
        </ul>`;
  return html`<h1>Loans</h1>
    ${o.error === null ? null : html`<p class="error" role="alert">${o.error}</p>`}
    <section aria-labelledby="overdue-heading">
      <h2 id="overdue-heading">Overdue</h2>
      ${list(overdue, 'Nothing is overdue.')}
    </section>
    <section aria-labelledby="out-heading">
      <h2 id="out-heading">Lent out</h2>
      ${list(onTime, overdue.length === 0 ? 'Every disc is home.' : 'No other disc is out.')}
    </section>
    ${
      o.history
        ? html`<section aria-labelledby="returned-heading">
            <h2 id="returned-heading">Returned</h2>
            ${list(returned, 'No disc has come back yet.')}
          </section>`
        : html`<p><a href="/loans?history=1">Show the returned loans too</a></p>`
    }`;
}

/** Where a form may send the browser back to: a page of this server, never another site. */
function backTo(body: unknown): string {
  const back = field(body, 'back');
  return /^\/(movie\/\d+|loans)(#[a-z-]*)?$/.test(back) ? back : '/loans';
}

/** The loans page and the lend and return forms (issue 27 item 4; docs/collector.md "Loans"). */
export function registerLoanPages(
  app: FastifyInstance,
  pages: PageRenderer,
  services: LoanPageServices,
): void {
  const show = async (request: FastifyRequest, reply: FastifyReply, error: AppError | null) => {
    const history = (request.query as Record<string, unknown> | undefined)?.history !== undefined;
    const filter = services.visibility.filter(principalOf(request));
    const { items } = await services.loans.list(filter, { history });
    return pages.page(request, reply, {
      status: error?.status ?? 200,
      title: 'Loans',
      current: 'loans',
      body: loansPage({
        loans: items,
        history,
        admin: principalOf(request).role === 'admin',
        csrf: pages.csrf(request),
        error:
          error === null ? null : error.hint === undefined ? error.message : `${error.message} ${error.hint}`,
      }),
    });
  };

  app.get('/loans', (request, reply) => show(request, reply, null));

  /** Runs a form's write; a refusal (409 already on loan, a bad date…) shows the loans page with it. */
  const act = async (
    request: FastifyRequest,
    reply: FastifyReply,
    write: (copy: number) => Promise<unknown>,
  ) => {
    try {
      const copy = positiveId(field(request.body, 'copy'));
      if (copy === null) throw new AppError('validation_failed', { message: 'No disc named.' });
      await write(copy);
      return reply.redirect(backTo(request.body), 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return show(request, reply, err);
    }
  };

  app.post('/loans/lend', (request, reply) =>
    act(request, reply, (copy) => {
      const due = field(request.body, 'due').trim();
      return services.loans.lend(copy, { to: field(request.body, 'to'), due: due === '' ? null : due });
    }),
  );

  app.post('/loans/return', (request, reply) => act(request, reply, (copy) => services.loans.giveBack(copy)));
}
