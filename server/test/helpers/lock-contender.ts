/**
 * A process that contends for the data-dir lock (process-lock.test.ts starts two of these). Each
 * stdin line `go <epoch ms> <data dir>` waits, spinning, until that instant — both processes then
 * try at the same moment — and answers `won <pid>` or `lost <pid>`; `release` gives the lock up and
 * answers `released`. It exits when stdin closes, so it never outlives the test.
 */
import { createInterface } from 'node:readline';
import { ProcessLock } from '../../src/adapters/process-lock.ts';

let lock: ProcessLock | null = null;
const now = () => performance.timeOrigin + performance.now();

for await (const line of createInterface({ input: process.stdin })) {
  const [command, at, dataDir] = line.split(' ');
  if (command === 'go' && at !== undefined && dataDir !== undefined) {
    lock = new ProcessLock(dataDir);
    const start = Number(at);
    while (now() < start) {
      // spin: a timer would wake the two processes milliseconds apart
    }
    process.stdout.write(`${lock.acquire() ? 'won' : 'lost'} ${process.pid}\n`);
  } else if (command === 'release') {
    lock?.release();
    lock = null;
    process.stdout.write('released\n');
  }
}
