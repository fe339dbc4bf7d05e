import { existsSync } from 'node:fs';
import { hasNoTables } from '../adapters/postgres-probe.ts';
import type { Config } from '../config.ts';
import { openDatabase, type OpenedDatabase } from '../db/database.ts';
import { checkTargetUrl, redactUrl, withoutPassword } from '../domain/database-copy/target-url.ts';
import { PostgresCopyTarget, SqliteCopySource } from '../repositories/database-copy.repository.ts';
import {
  DatabaseMigrationError,
  DatabaseMigrationService,
  type MigrationProgress,
  type MigrationReport,
} from '../services/system/database-migration.service.ts';
import { type CliProgress, startCliProgress } from './progress.ts';

export const MIGRATE_USAGE = `migrate-database --to postgres://user:password@host:5432/database
                                           copy this library (SQLite) into an empty PostgreSQL database:
                                           every table, ids kept; row counts and checksums verified`;

export interface CommandOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const STD: CommandOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** `--to X` or `--to=X`; anything else is a usage error. */
function parseArgs(args: readonly string[]): { to: string | undefined } | { error: string } {
  let to: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--to') to = args[++i];
    else if (arg.startsWith('--to=')) to = arg.slice('--to='.length);
    else return { error: `migrate-database takes only --to, not "${arg.replace(/\/\/.*$/s, '//…')}"` };
  }
  return { to };
}

function summary(report: MigrationReport, seconds: number): string {
  const width = Math.max(5, ...report.tables.map((t) => t.table.length));
  const lines = [
    `${'table'.padEnd(width)}  ${'rows'.padStart(8)}  checksum (sha-256)     next id`,
    ...report.tables.map((t) =>
      `${t.table.padEnd(width)}  ${String(t.rows).padStart(8)}  ok ${t.sha256.slice(0, 16)}…  ${t.nextId === null ? '' : t.nextId}`.trimEnd(),
    ),
  ];
  const rows = report.tables.reduce((n, t) => n + t.rows, 0);
  lines.push(`not copied (derived or engine-specific): ${report.skipped.join(', ') || 'none'}`);
  lines.push(
    report.searchRebuilt
      ? 'search index rebuilt on the target (reelshelf_rebuild_search)'
      : 'the target has no reelshelf_rebuild_search(): its search index is built by the server',
  );
  lines.push(
    `moved ${rows} rows in ${report.tables.length} tables in ${seconds.toFixed(1)} s; every count and checksum matches`,
  );
  return `${lines.join('\n')}\n`;
}

/** One progress line per phase (copying, then verifying), on stderr. */
function phasedProgress(): { update(p: MigrationProgress): void; stop(): void } {
  let phase: MigrationProgress['phase'] | null = null;
  let line: CliProgress | null = null;
  return {
    update(p) {
      if (p.phase !== phase || line === null) {
        line?.stop();
        line = startCliProgress({ label: p.phase, unit: 'rows' });
        phase = p.phase;
      }
      line.update(p.done, p.total);
    },
    stop() {
      line?.stop();
      line = null;
    },
  };
}

/**
 * `reelshelf migrate-database --to postgres://…`: moves the configured SQLite library into an empty
 * PostgreSQL database (DatabaseMigrationService), with progress on stderr and a per-table summary on
 * stdout. Exit 0 when every table copied and verified; 1 when refused or failed (the target then
 * holds nothing of the library); 2 for a usage error. The target's password is never printed.
 */
export async function migrateDatabase(
  config: Config,
  args: readonly string[],
  io: CommandOutput = STD,
): Promise<number> {
  const fail = (message: string, hint: string | undefined, code: number): number => {
    io.err(`reelshelf: ${message}\n${hint === undefined ? '' : `  hint: ${hint}\n`}`);
    return code;
  };
  const parsed = parseArgs(args);
  if ('error' in parsed) return fail(parsed.error, MIGRATE_USAGE.split('\n')[0], 2);
  const target = checkTargetUrl(parsed.to);
  if (!target.ok) return fail(target.message, target.hint, 2);
  if (!config.databaseUrl.startsWith('sqlite:')) {
    return fail(
      `the library's database (REELSHELF_DATABASE_URL=${redactUrl(config.databaseUrl)}) is not SQLite: migrate-database moves a SQLite library`,
      'unset REELSHELF_DATABASE_URL (or point it at the sqlite: file) to name the library to move',
      2,
    );
  }
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:' || !existsSync(file)) {
    return fail(
      `no library at ${file}: nothing to migrate`,
      'set REELSHELF_DATA_DIR (or REELSHELF_DATABASE_URL=sqlite:<file>) to the library to move',
      1,
    );
  }
  const scrub = (error: unknown) =>
    withoutPassword(error instanceof Error ? error.message : String(error), target.url);
  let source: OpenedDatabase | undefined;
  let destination: OpenedDatabase | undefined;
  const progress = phasedProgress();
  try {
    source = await openDatabase(config.databaseUrl);
    io.err(`moving ${file} → ${target.shown}\n`);
    let freshlyMigrated: boolean;
    try {
      // Asked before openDatabase migrates it: every row in a database that had no table was put
      // there by the migrations (a seeded admin…), and the library brings its own.
      freshlyMigrated = await hasNoTables(target.url).catch((error: unknown) => {
        throw new Error(`cannot reach PostgreSQL: ${error instanceof Error ? error.message : String(error)}`);
      });
      destination = await openDatabase(target.url, { pool: 2 });
    } catch (error) {
      return fail(
        `cannot open the target ${target.shown}: ${scrub(error)}`,
        'check that PostgreSQL runs there, the database exists and the user may create tables in it',
        1,
      );
    }
    const service = new DatabaseMigrationService(
      new SqliteCopySource(source.db),
      new PostgresCopyTarget(destination.db, freshlyMigrated),
    );
    const started = Date.now();
    const report = await service.migrate((p) => progress.update(p));
    progress.stop();
    io.out(summary(report, (Date.now() - started) / 1000));
    return 0;
  } catch (error) {
    progress.stop();
    if (error instanceof DatabaseMigrationError) return fail(scrub(error), error.hint, 1);
    return fail(
      `migrate-database failed: ${scrub(error)}; the target was rolled back`,
      'the library is unchanged; fix the cause and run the command again',
      1,
    );
  } finally {
    await destination?.close();
    await source?.close();
  }
}
