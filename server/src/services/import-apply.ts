/**
 * @module services/import-apply
 * Runs a plan's writes, in order, on the write repository of one transaction (the caller opens it:
 * the plan is made inside the same transaction, so nothing changes the library between the two).
 */
import type { ImportWriter } from '../repositories/import-write.repository.ts';
import type { Op } from './import-plan.ts';

/** How many writes run between two progress reports (and between two yields to the event loop). */
export const PROGRESS_EVERY = 500;

/**
 * @param onProgress called every {@link PROGRESS_EVERY} writes and once at the end (done of total)
 */
export async function applyPlan(
  ops: readonly Op[],
  writer: ImportWriter,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const total = ops.length;
  for (let i = 0; i < total; i++) {
    await ops[i]?.(writer);
    if ((i + 1) % PROGRESS_EVERY === 0) {
      onProgress?.(i + 1, total);
      // Let requests that need no database (health, assets) through during a long import.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  onProgress?.(total, total);
}
