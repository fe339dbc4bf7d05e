import type { LoanList, LoanView } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import { borrowerName, dayOf, isCalendarDate, isOverdue, MAX_BORROWER_LENGTH } from '../../domain/loans.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import { AppError, validationFailed } from '../../errors.ts';
import type { LoanRepository, LoanRow } from '../../repositories/loan.repository.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';

export type { LoanList, LoanView };

type LoanReads = Pick<LoanRepository, 'list' | 'ofMovie'>;
type LoanWrites = Pick<LoanRepository, 'open' | 'byId' | 'copyExists' | 'lend' | 'giveBack'>;

export interface LoanDeps {
  reads: LoanReads;
  /** Lends and returns: one transaction each, one at a time cluster-wide. */
  store: UnitOfWork<{ loans: LoanWrites }>;
  clock: Clock;
}

export interface LoanQuery {
  /** Returned loans too (the history), not only the open ones. */
  history?: boolean;
  /** Only the overdue ones. */
  overdue?: boolean;
}

/**
 * Loans of discs (issue 27 item 4, docs/collector.md "Loans"): lend, return, the list with what is
 * overdue today. A copy is lent to one person at a time: the check reads the open loan to name it
 * in the 409, and the database's partial unique index decides all the same. Reads go through the
 * viewer's visibility filter; writes are the admin's (http/route-access.ts).
 */
export class LoanService {
  constructor(private readonly deps: LoanDeps) {}

  async list(filter: CertificationFilter | null, query: LoanQuery = {}): Promise<LoanList> {
    const today = this.today();
    const items = (await this.deps.reads.list(filter, query.history === true)).map((r) => view(r, today));
    return { items: query.overdue === true ? items.filter((l) => l.overdue) : items };
  }

  /** Every loan of a movie's copies, newest first (its page). */
  async ofMovie(movieId: number, filter: CertificationFilter | null): Promise<LoanView[]> {
    const today = this.today();
    return (await this.deps.reads.ofMovie(movieId, filter)).map((r) => view(r, today));
  }

  /** Lends the copy; 409 `already_on_loan` naming to whom and since when when it is out already. */
  async lend(copyId: number, input: { to: string; due?: string | null }): Promise<LoanView> {
    const to = borrowerName(input.to);
    if (to === '') throw validationFailed('to', 'A loan names who has the disc.');
    if (to.length > MAX_BORROWER_LENGTH) {
      throw validationFailed('to', `At most ${MAX_BORROWER_LENGTH} characters.`);
    }
    const due = input.due ?? null;
    if (due !== null && !isCalendarDate(due)) {
      throw validationFailed('due', 'A due date is a calendar day, YYYY-MM-DD.', 'For example 2026-03-15.');
    }
    const now = isoNow(this.deps.clock);
    return this.deps.store.transaction(async ({ loans }) => {
      if (!(await loans.copyExists(copyId))) throw noCopy(copyId);
      const open = await loans.open(copyId);
      if (open !== undefined) throw alreadyOut(open);
      const id = await loans.lend(copyId, to, due, now);
      const made = await loans.byId(id);
      if (made === undefined) throw noCopy(copyId);
      return view(made, this.today());
    });
  }

  /**
   * Ends the copy's loan (kept as history) and returns it; 404 no copy, 409 `not_on_loan`. Never
   * back before it left: a node whose clock is a moment behind the lending one returns it at the
   * lend time (an export's loans import only when returned_at is not before lent_at).
   */
  async giveBack(copyId: number): Promise<LoanView> {
    const now = isoNow(this.deps.clock);
    return this.deps.store.transaction(async ({ loans }) => {
      if (!(await loans.copyExists(copyId))) throw noCopy(copyId);
      const open = await loans.open(copyId);
      const id =
        open === undefined
          ? undefined
          : await loans.giveBack(copyId, open.lent_at > now ? open.lent_at : now);
      if (id === undefined) {
        throw new AppError('not_on_loan', {
          message: `Copy ${copyId} is not lent out.`,
          hint: 'Lend it with POST /api/physical-copies/{id}/loan.',
        });
      }
      const closed = await loans.byId(id);
      if (closed === undefined) throw noCopy(copyId);
      return view(closed, this.today());
    });
  }

  private today(): string {
    return dayOf(this.deps.clock.now());
  }
}

function view(row: LoanRow, today: string): LoanView {
  return { ...row, overdue: isOverdue(row, today) };
}

function noCopy(id: number): AppError {
  return new AppError('not_found', { message: `No physical copy with id ${id}.` });
}

function alreadyOut(open: LoanRow): AppError {
  const due = open.due === null ? '' : `, due back ${open.due}`;
  return new AppError('already_on_loan', {
    message: `${open.title} (copy ${open.copy_id}) is on loan to ${open.to} since ${open.lent_at.slice(0, 10)}${due}.`,
    hint: `Return it first (DELETE /api/physical-copies/${open.copy_id}/loan).`,
    extra: { loan: { id: open.id, to: open.to, lent_at: open.lent_at, due: open.due } },
  });
}
