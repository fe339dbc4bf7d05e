/**
 * Loans of discs (issue 27 item 4, docs/collector.md "Loans"): the pure decisions. A loan is open
 * while `returned_at` is null; it is overdue from the day after its due date (a disc due today is
 * not late yet), judged by the server's calendar day in UTC, the same day every node sees.
 */

/** `YYYY-MM-DD` of a real calendar day (2026-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The calendar day (`YYYY-MM-DD`, UTC) of an instant: what "today" is for due dates. */
export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Whether a loan is overdue on `today`: still out and its due day has passed. No due date: never.
 * `YYYY-MM-DD` strings compare as the days they name.
 */
export function isOverdue(loan: { due: string | null; returned_at: string | null }, today: string): boolean {
  return loan.returned_at === null && loan.due !== null && loan.due < today;
}

/** The longest borrower name kept (a name, not a letter). */
export const MAX_BORROWER_LENGTH = 200;

/** A borrower as stored: trimmed, inner runs of white space made one space; '' when there is none. */
export function borrowerName(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ');
}

/** "On loan to Sam since 2026-03-01 (due 2026-03-15)": one line for overviews and slots. */
export function loanLine(loan: { to: string; lent_at: string; due: string | null }): string {
  const due = loan.due === null ? '' : ` (due ${loan.due})`;
  return `On loan to ${loan.to} since ${loan.lent_at.slice(0, 10)}${due}`;
}

/** A loan as an import compares them: who, since when, back when (null: out). */
interface LoanKey {
  to: string;
  lent_at: string;
  returned_at: string | null;
}

/**
 * Which of a file's loans an import adds to a stored copy: those it lacks (a loan is the same loan
 * when its borrower and start are), in the file's order, never a second open one (one loan at a time,
 * the partial unique index `loans_one_open_per_copy`). `refused` is the file's open loan left out
 * because the copy is out already: the import says so (a warning), it does not fail.
 */
export function loansToAdd<T extends LoanKey>(
  stored: readonly LoanKey[],
  incoming: readonly T[],
): { add: T[]; refused: { loan: T; out: LoanKey } | null } {
  const key = (l: LoanKey) => `${l.to}\u0000${l.lent_at}`;
  const known = new Set(stored.map(key));
  let out: LoanKey | undefined = stored.find((l) => l.returned_at === null);
  const add: T[] = [];
  let refused: { loan: T; out: LoanKey } | null = null;
  for (const l of incoming) {
    if (known.has(key(l))) continue;
    if (l.returned_at === null) {
      if (out !== undefined) {
        refused ??= { loan: l, out };
        continue;
      }
      out = l;
    }
    add.push(l);
  }
  return { add, refused };
}
