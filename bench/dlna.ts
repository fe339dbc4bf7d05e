import { cannotMakeNetns, runInPrivateNetns } from '../server/test/helpers/netns.ts';
import { minidlnaMissing } from '../server/test/helpers/minidlna.ts';

/**
 * `npm run bench dlna` (issue 24): a full walk of a 500-film tree, minidlna 1.3.0 against
 * reelshelf indexing the same files (target: reelshelf ≤ 1.0× minidlna's time), and Browse of a
 * 100-item page at 10,000 films (target p50 < 20 ms). Both servers multicast SSDP, so everything
 * runs inside a private network namespace made for it (bench/dlna-netns.ts, through
 * runInPrivateNetns); where none can be made, the bench says why and measures nothing.
 */
export async function benchDlna(): Promise<void> {
  const reason = cannotMakeNetns() ?? minidlnaMissing();
  if (reason !== null) {
    console.log(`  skipped: ${reason}`);
    return;
  }
  const args = process.argv.includes('--quick') ? ['--quick'] : [];
  const run = await runInPrivateNetns(['node', '--import', 'tsx', 'bench/dlna-netns.ts', ...args], {
    timeoutMs: 1_800_000,
  });
  for (const line of run.json) {
    if (typeof line.refused === 'string') throw new Error(`bench dlna refused: ${line.refused}`);
    if (typeof line.figure === 'string') console.log(`  ${line.figure}: ${String(line.text)}`);
  }
  if (run.code !== 0) throw new Error(`bench dlna failed (exit ${run.code}):\n${run.out.slice(-4000)}`);
}
