// A node:test reporter (scripts/run-tests.mjs) that writes where a run's time went: each test file's
// top-level tests and suites summed, slowest first, one `seconds  file` line each. Files run in
// parallel, so the sum is more than the run's wall time; a file's own share is what it costs.
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const name = relative(root, file);
    byFile.set(name, (byFile.get(name) ?? 0) + (details?.duration_ms ?? 0));
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(7)}  ${file}\n`;
  yield `${(total / 1000).toFixed(1).padStart(7)}  (all files)\n`;
}
