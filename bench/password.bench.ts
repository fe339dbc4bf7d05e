import { availableParallelism, loadavg } from 'node:os';
import { Argon2PasswordHasher } from '../server/src/adapters/password-hasher.ts';
import { ms, summarize } from './stats.ts';

/**
 * `npm run bench password`: what a sign-in costs with the production hasher (Argon2id, m = 19 MiB,
 * t = 2, p = 1): one verify alone (the time a person waits), and sign-ins per second with as many
 * verifies at once as there are cores (what a guesser gets from the server, or a household at 8 pm).
 */
export async function benchPassword(): Promise<void> {
  const hasher = new Argon2PasswordHasher();
  const phc = await hasher.hash('correct horse battery staple');
  for (let i = 0; i < 3; i++) await hasher.verify(phc, 'warm-up');
  const one: number[] = [];
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    await hasher.verify(phc, 'correct horse battery staple');
    one.push(performance.now() - started);
  }
  const s = summarize(one);
  console.log(
    `verify, one at a time: median ${ms(s.median)} · p95 ${ms(s.p95)} · min ${ms(s.min)} (30 runs)`,
  );
  const cores = availableParallelism();
  const total = 40;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: cores }, async () => {
      while (next < total) {
        next++;
        await hasher.verify(phc, 'wrong guess');
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `verify, ${cores} at once: ${(total / seconds).toFixed(1)} per second on ${cores} cores (load average ${loadavg()[0]?.toFixed(1) ?? '?'})`,
  );
}
