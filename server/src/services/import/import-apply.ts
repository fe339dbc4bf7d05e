/**
 * @module services/import-apply
 * Runs a plan's writes, in order, on the write repository of one transaction (the caller opens it:
 * the plan is made inside the same transaction, so nothing changes the library between the two).
 */
import type { Op } from '../../domain/import-export/import-plan.ts';
import type { ImportWriter } from '../../domain/import-export/import-writer.ts';

/**
 * The longest the writes hold the event loop before letting other requests through (health, assets,
 * a page reading this import's progress). Database queries still wait: the transaction holds it.
 */
export const YIELD_AFTER_MS = 20;

/**
 * @param onProgress called after every write (done of total; a write may be a batch of 500 rows, so
 *   a large import has few of them) — readers throttle it; a promise it returns is awaited
 */
export async function applyPlan(
  ops: readonly Op[],
  writer: ImportWriter,
  onProgress?: (done: number, total: number) => void | Promise<void>,
): Promise<void> {
  const total = ops.length;
  let lastYield = Date.now();
  for (let i = 0; i < total; i++) {
    await ops[i]?.(writer);
    if (i + 1 < total) await onProgress?.(i + 1, total);
    if (Date.now() - lastYield >= YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = Date.now();
    }
  }
  await onProgress?.(total, total);
}
