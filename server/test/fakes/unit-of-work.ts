import type { UnitOfWork } from '../../src/repositories/unit-of-work.ts';

/** What a fake store can save and put back, so a fake transaction rolls back like SQLite's. */
export interface Restorable {
  save(): () => void;
}

/**
 * A transaction over in-memory fakes: `work` gets the same repositories, and when it throws the
 * tables are put back as they were before it ran.
 */
export function fakeUnitOfWork<R>(store: Restorable, repos: R): UnitOfWork<R> {
  return {
    async transaction(work) {
      const restore = store.save();
      try {
        return await work(repos);
      } catch (err) {
        restore();
        throw err;
      }
    },
  };
}
