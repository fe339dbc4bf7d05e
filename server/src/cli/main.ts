import { resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { createServer, type ReelshelfServer } from '../server.ts';
import type { ScanReport } from '@reelshelf/contract';

const USAGE = `usage: reelshelf <command> [options]

commands:
  scan <path>     add <path> as a library root if needed, scan it, print a summary

The CLI works on the same data dir as the server (REELSHELF_DATA_DIR, default ./data).`;

function fail(message: string, code = 1): never {
  process.stderr.write(`reelshelf: ${message}\n`);
  process.exit(code);
}

async function scan(server: ReelshelfServer, path: string): Promise<number> {
  const absolute = resolve(path);
  const root =
    (await server.services.roots.findByPath(absolute)) ??
    (await server.services.roots.create({ path: absolute }));
  const { scan_id } = await server.services.scans.start(root.id);
  const bar = new SingleBar({
    format: 'scanning [{bar}] {value}/{total} files | {rate} files/s | ETA {eta_formatted}',
    noTTYOutput: true,
    notTTYSchedule: 2000,
    hideCursor: true,
  });
  const started = Date.now();
  let barStarted = false;
  let report: ScanReport = await server.services.scans.report(scan_id);
  while (report.status === 'running') {
    await new Promise((r) => setTimeout(r, 200));
    report = await server.services.scans.report(scan_id);
    const { done, total } = report.progress;
    const rate = (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1);
    if (!barStarted && total > 0) {
      bar.start(total, done, { rate });
      barStarted = true;
    } else if (barStarted) {
      bar.setTotal(total);
      bar.update(done, { rate });
    }
  }
  if (barStarted) bar.stop();
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const c = report.counts;
  process.stdout.write(
    `scan ${report.id} of ${root.path}: ${report.status} in ${secs}s\n` +
      `  found ${c.found} · new ${c.new} · changed ${c.changed} · moved ${c.moved} · unchanged ${c.unchanged} · missing ${c.missing} · errors ${c.errors}\n`,
  );
  for (const e of report.errors.slice(0, 20)) process.stdout.write(`  ! ${e.path}: ${e.error}\n`);
  if (report.message !== undefined) process.stdout.write(`  ${report.message}\n`);
  return report.status === 'committed' ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  let config;
  try {
    config = loadConfig({ ...process.env, REELSHELF_LOG_LEVEL: process.env.REELSHELF_LOG_LEVEL ?? 'warn' });
  } catch (err) {
    if (err instanceof ConfigError) fail(`configuration error: ${err.message}`, 2);
    throw err;
  }
  const server = await createServer(config);
  try {
    switch (command) {
      case 'scan': {
        const path = args[0];
        if (path === undefined) fail('scan needs a folder: reelshelf scan <path>', 2);
        return await scan(server, path);
      }
      default:
        fail(`unknown command "${command}"\n${USAGE}`, 2);
    }
  } catch (err) {
    if (err instanceof AppError) fail(`${err.message}${err.hint === undefined ? '' : ` (${err.hint})`}`);
    throw err;
  } finally {
    await server.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => fail(err instanceof Error ? err.message : String(err)),
);
