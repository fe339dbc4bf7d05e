import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` until it returns a value other than false/undefined/null and returns that value.
 * Every wait in a test has a deadline: past it this throws with `describe()`'s text (evaluated then,
 * so it can show the state that was waited on), so a test that cannot reach its state fails, never hangs.
 */
export async function waitFor<T>(
  condition: () => T | false | undefined | null | Promise<T | false | undefined | null>,
  describe: () => string,
  { timeoutMs = 30_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== false && value !== undefined && value !== null) return value;
    if (Date.now() >= deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${describe()}`);
    await sleep(intervalMs);
  }
}

/** Resolves as `promise` does, or throws with `describe()`'s text after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, describe: () => string): Promise<T> {
  const controller = new AbortController();
  const expired = sleep(timeoutMs, undefined, { signal: controller.signal }).then(() => {
    throw new Error(`gave up after ${timeoutMs} ms waiting for ${describe()}`);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    controller.abort();
    expired.catch(() => undefined);
  }
}
