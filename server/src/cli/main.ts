import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { createServer, type ReelshelfServer } from '../server.ts';
import type { ImportRowError, ScanReport } from '@reelshelf/contract';
import { looksLikeJson } from '../services/import/import-export.service.ts';
import type { ScanDeps } from '../services/scan/scan.service.ts';
import { MIGRATE_USAGE, migrateDatabase } from './migrate-database.ts';
import { startCliProgress } from './progress.ts';

const USAGE = `usage: reelshelf <command> [options]

commands:
  scan <path>                              add <path> as a library root if needed, scan it, print a summary
  barcode <code> [--binder A] [--slot 12]  look a disc up and add it (movie, edition, copy in a binder slot)
  barcode - [--binder A]                   loop: read codes from stdin, one per line (a handheld scanner types
                                           digits and Enter); each goes into the next free slot
  import <file> [--dry-run] [--wishes]     import a collection CSV (CLZ, Letterboxd, our export…) or a JSON
                                           export; all or nothing; --dry-run only reports what would change;
                                           --wishes: every CSV row is a wish (a Letterboxd watchlist.csv)
  export [--format json|csv]               write the whole library to stdout (default json)
  user list                                the household's people (name, role, limit, PIN, password set)
  user add <name> --role admin|member|child [--max-certification PG] [--password-stdin | --password P]
                                           add a person; the password is read from stdin (a prompt on a
                                           terminal) unless --password gives it (visible in ps: avoid)
  user passwd <name> [--password-stdin]    set a new password (signs the person out everywhere);
                                           \`user passwd admin\` gives the first admin one
  user remove <name>                       remove a person with their sessions, keys, state, history
  ${MIGRATE_USAGE}

The CLI works on the same data dir as the server (REELSHELF_DATA_DIR, default ./data).`;

/** How often a scan's progress is read while it runs. */
const POLL_MS = 200;

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
  const progress = startCliProgress({ label: 'scanning', unit: 'files' });
  const started = Date.now();
  let report: ScanReport = await server.services.scans.report(scan_id);
  while (report.status === 'running') {
    progress.update(report.progress.done, report.progress.total);
    await new Promise((r) => setTimeout(r, POLL_MS));
    report = await server.services.scans.report(scan_id);
  }
  progress.update(report.progress.done, report.progress.total);
  progress.stop();
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

/** Reads `--name value` options; returns the options and the remaining words. */
function options(args: string[]): { words: string[]; opts: Record<string, string> } {
  const words: string[] = [];
  const opts: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      opts[name ?? ''] = inline ?? args[++i] ?? '';
    } else words.push(arg);
  }
  return { words, opts };
}

async function addDisc(
  server: ReelshelfServer,
  code: string,
  binder?: string,
  slot?: string,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<boolean> {
  try {
    const created = await server.services.barcodes.create(code, {
      ...(binder === undefined ? {} : { binder }),
      ...(slot === undefined ? {} : { slot }),
    });
    const edition = created.movie.editions.find((e) => e.id === created.edition_id);
    print(
      `✓ ${created.movie.title}${created.movie.year === null ? '' : ` (${created.movie.year})`} · ${edition?.format ?? 'disc'}` +
        `${edition?.label ? ` · ${edition.label}` : ''} → binder ${created.physical_copy.binder} · slot ${created.physical_copy.slot}`,
    );
    for (const w of created.warnings) print(`  ! ${w}`);
    return true;
  } catch (err) {
    if (err instanceof AppError) {
      print(`✗ ${code}: ${err.message}${err.hint === undefined ? '' : ` (${err.hint})`}`);
      return false;
    }
    throw err;
  }
}

async function barcode(server: ReelshelfServer, args: string[]): Promise<number> {
  const { words, opts } = options(args);
  const code = words[0];
  if (code === undefined) fail('barcode needs a code, or - to read codes from stdin', 2);
  if (code !== '-') return (await addDisc(server, code, opts.binder, opts.slot)) ? 0 : 1;
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let failures = 0;
  if (process.stdin.isTTY === true) {
    // A person (or a handheld scanner typing digits) at the keyboard: no total to show, one line per disc.
    for await (const line of lines) {
      const next = line.trim();
      if (next === '') continue;
      if (!(await addDisc(server, next, opts.binder))) failures++;
    }
    return failures === 0 ? 0 : 1;
  }
  // Codes piped from a file: the total is known, so the loop shows its progress.
  const codes: string[] = [];
  for await (const line of lines) if (line.trim() !== '') codes.push(line.trim());
  const progress = startCliProgress({ label: 'adding discs', unit: 'codes' });
  progress.update(0, codes.length);
  for (const [i, next] of codes.entries()) {
    if (!(await addDisc(server, next, opts.binder, undefined, (line) => progress.log(line)))) failures++;
    progress.update(i + 1, codes.length);
  }
  progress.stop();
  return failures === 0 ? 0 : 1;
}

/** `reelshelf import <file> [--dry-run] [--wishes]`: the same service as POST /api/import, with a progress bar. */
async function importCommand(server: ReelshelfServer, args: string[]): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const into = args.includes('--wishes') ? 'wishes' : 'library';
  const path = options(args.filter((a) => a !== '--dry-run' && a !== '--wishes')).words[0];
  if (path === undefined) fail('import needs a file: reelshelf import <file> [--dry-run]', 2);
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(path));
  } catch (err) {
    fail(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ext = extname(path).toLowerCase();
  const kind = ext === '.json' ? 'json' : ['.csv', '.tsv', '.txt'].includes(ext) ? 'csv' : null;
  const json = kind === 'json' || (kind === null && looksLikeJson(bytes));
  const started = Date.now();
  if (bytes.length > 1024 * 1024) {
    process.stderr.write(`checking ${path} (${(bytes.length / 1024 / 1024).toFixed(1)} MB)…\n`);
  }
  // Checking (parse, match, plan) has no count to show; the writes that follow do (none in a dry run).
  const progress = startCliProgress({ label: 'importing', unit: 'writes' });
  try {
    const r = await server.services.importExport.importFile(bytes, kind, {
      dryRun,
      into,
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.stop();
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const c = r.created;
    process.stdout.write(
      `${dryRun ? 'dry run (nothing written): would create' : 'imported: created'} ${c.movies} movies, ${c.editions} editions, ${c.copies} copies` +
        ` · updated ${r.updated.movies} · unchanged ${r.unchanged.movies} movies (${secs}s)\n`,
    );
    if (r.wishes !== undefined) {
      const w = r.wishes;
      process.stdout.write(
        `  wishes: ${w.created} new, ${w.unchanged} already wished, ${w.owned} owned (not wished), ${w.fulfilled} fulfilled\n`,
      );
    }
    for (const w of r.warnings.slice(0, 50)) process.stdout.write(`  ! ${w}\n`);
    return 0;
  } catch (err) {
    progress.stop();
    if (!(err instanceof AppError) || err.code !== 'import_invalid') throw err;
    const rows = Array.isArray(err.extra.rows) ? (err.extra.rows as ImportRowError[]) : [];
    process.stdout.write(`${err.message}\n`);
    for (const row of rows.slice(0, 200)) {
      const where = row.row === 0 ? 'file' : `${json ? 'movie item' : 'line'} ${row.row}`;
      process.stdout.write(`  ✗ ${where} · ${row.field}: ${row.message}\n`);
    }
    if (rows.length > 200) process.stdout.write(`  … and ${rows.length - 200} more\n`);
    return 1;
  }
}

/** `reelshelf export [--format json|csv]`: the export document (or CSV) on stdout. */
async function exportCommand(server: ReelshelfServer, args: string[]): Promise<number> {
  const format = options(args).opts.format ?? 'json';
  if (format !== 'json' && format !== 'csv') fail(`--format must be json or csv, not "${format}"`, 2);
  const out = await server.services.importExport.export(format);
  await new Promise<void>((done, reject) =>
    process.stdout.write(out.body, (err) => (err ? reject(err) : done())),
  );
  return 0;
}

/**
 * A secret from stdin: on a terminal, a prompt with the typing hidden; from a pipe, its first line.
 * Never echoed, never printed.
 */
async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY !== true) {
    const { createInterface } = await import('node:readline');
    const lines = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      lines.close();
      return line;
    }
    return '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolveSecret) => {
    let secret = '';
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          resolveSecret(secret);
          return;
        }
        if (ch === '\u0003') process.exit(130);
        secret = ch === '\u007f' ? secret.slice(0, -1) : secret + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** `reelshelf user list|add|passwd|remove`: the same service as /api/users; prints nothing secret. */
async function userCommand(server: ReelshelfServer, args: string[]): Promise<number> {
  const flags = new Set<string>(args.filter((a) => a === '--password-stdin'));
  const { words, opts } = options(args.filter((a) => !flags.has(a)));
  const [sub, name] = words;
  const users = server.services.users;
  const password = async (): Promise<string> =>
    opts.password ?? (await readSecret(`password for ${name ?? ''} (10 characters or more): `));
  const person = async () => {
    if (name === undefined) fail(`user ${sub ?? ''} needs a name`, 2);
    const found = await users.findByName(name);
    if (found === null) fail(`no person named "${name}"`);
    return found;
  };
  switch (sub) {
    case 'list': {
      for (const u of await users.list()) {
        const limit = u.max_certification === null ? '' : ` · up to ${u.max_certification}`;
        const unrated = u.role !== 'admin' && !u.allow_unrated ? ' · no unrated' : '';
        process.stdout.write(
          `${u.id}\t${u.name}\t${u.role}${limit}${unrated}${u.has_pin ? ' · PIN' : ''}${u.has_password ? '' : ' · no password (admin token)'}\n`,
        );
      }
      return 0;
    }
    case 'add': {
      if (name === undefined) fail('user add needs a name: reelshelf user add <name> --role member', 2);
      if (opts.role === undefined) fail('user add needs --role admin|member|child', 2);
      const created = await users.create({
        name,
        role: opts.role,
        password: await password(),
        ...(opts['max-certification'] === undefined ? {} : { max_certification: opts['max-certification'] }),
      });
      process.stdout.write(`added ${created.name} (${created.role}, id ${created.id})\n`);
      return 0;
    }
    case 'passwd': {
      const found = await person();
      await users.update(found.id, { password: await password() });
      process.stdout.write(`new password set for ${found.name}; their sessions are signed out\n`);
      return 0;
    }
    case 'remove': {
      const found = await person();
      await users.remove(found.id);
      process.stdout.write(`removed ${found.name}\n`);
      return 0;
    }
    default:
      fail('user needs a subcommand: list, add, passwd or remove', 2);
  }
}

/**
 * REELSHELF_TEST_SCAN_PAUSE_AFTER=N (tests only): a scan holds once N files are in the staging table,
 * says so on stderr and waits until it is cancelled, so that a test can kill the process at that known
 * state (staged, not committed) however fast the machine scans. Unset: no pause point at all.
 */
function testScanPause(env: NodeJS.ProcessEnv): ScanDeps['afterStagingWrite'] {
  const raw = env.REELSHELF_TEST_SCAN_PAUSE_AFTER?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw))
    fail(`REELSHELF_TEST_SCAN_PAUSE_AFTER=${raw} is not valid: expected a whole number`, 2);
  const after = Number(raw);
  let held = false;
  return (stagedFiles, signal) => {
    if (held || stagedFiles < after || signal.aborted) return Promise.resolve();
    held = true;
    process.stderr.write(`reelshelf: test pause: scan held with ${stagedFiles} files staged\n`);
    return new Promise((resume) => signal.addEventListener('abort', () => resume(), { once: true }));
  };
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
  // Works on two databases of its own, not on a server: no services, no background jobs.
  if (command === 'migrate-database') return migrateDatabase(config, args);
  const server = await createServer(config, { afterStagingWrite: testScanPause(process.env) });
  try {
    switch (command) {
      case 'scan': {
        const path = args[0];
        if (path === undefined) fail('scan needs a folder: reelshelf scan <path>', 2);
        return await scan(server, path);
      }
      case 'barcode':
        return await barcode(server, args);
      case 'import':
        return await importCommand(server, args);
      case 'export':
        return await exportCommand(server, args);
      case 'user':
        return await userCommand(server, args);
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
