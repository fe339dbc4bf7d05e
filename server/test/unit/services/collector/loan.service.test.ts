// LoanService.giveBack: a loan never comes back before it left. Two nodes' clocks may differ by a
// moment (a lend on one, the return on another behind it); returned_at before lent_at was stored as
// read, and the library's own JSON export then did not import (a return before the lend is refused).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../../../src/adapters/clock.ts';
import type { LoanRow } from '../../../../src/repositories/loan.repository.ts';
import { LoanService } from '../../../../src/services/collector/loan.service.ts';

function service(clock: Clock) {
  const rows: LoanRow[] = [];
  const loans = {
    open: async (copyId: number) => rows.find((r) => r.copy_id === copyId && r.returned_at === null),
    byId: async (id: number) => rows.find((r) => r.id === id),
    copyExists: async (copyId: number) => copyId === 7,
    lend: async (copyId: number, to: string, due: string | null, now: string) => {
      const id = rows.length + 1;
      rows.push({
        id,
        copy_id: copyId,
        movie_id: 1,
        title: 'Heat',
        format: null,
        binder: null,
        slot: null,
        to,
        lent_at: now,
        due,
        returned_at: null,
      });
      return id;
    },
    giveBack: async (copyId: number, now: string) => {
      const open = rows.find((r) => r.copy_id === copyId && r.returned_at === null);
      if (open === undefined) return undefined;
      open.returned_at = now;
      return open.id;
    },
  };
  return new LoanService({
    reads: { list: async () => rows, ofMovie: async () => rows },
    store: { transaction: (work) => work({ loans }) },
    clock,
  });
}

describe('LoanService.giveBack', () => {
  it('returns at the lend time when this node’s clock is behind the lending one', async () => {
    let now = new Date('2026-03-10T12:00:00.500Z');
    const loans = service({ now: () => now });
    const lent = await loans.lend(7, { to: 'Sam' });
    now = new Date('2026-03-10T12:00:00.200Z');
    const back = await loans.giveBack(7);
    assert.equal(back.returned_at, lent.lent_at);
  });

  it('returns at the clock’s time otherwise', async () => {
    let now = new Date('2026-03-10T12:00:00.000Z');
    const loans = service({ now: () => now });
    await loans.lend(7, { to: 'Sam' });
    now = new Date('2026-03-12T08:00:00.000Z');
    assert.equal((await loans.giveBack(7)).returned_at, '2026-03-12T08:00:00.000Z');
  });
});
