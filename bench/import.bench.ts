import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportResult } from '@reelshelf/contract';
import { gtinCheckDigit } from '../server/src/domain/barcode.ts';
import { createServer } from '../server/src/server.ts';
import { type BenchEngine, benchConfig, benchDatabaseUrl, benchEngines, recordFigure } from './engines.ts';
import { ms } from './stats.ts';

const ROWS = 10_000;
const TARGET_MS = 5_000;
const FORMATS = ['DVD', 'Blu-ray', '4K UHD'];

/** A CLZ-like collection: one disc per row, every one with a barcode, a binder slot and an IMDb id. */
function collectionCsv(rows: number): string {
  const lines = ['Title,Year,Format,Edition,Barcode,Binder,Slot,IMDb ID,Watched'];
  for (let i = 0; i < rows; i++) {
    const body = `50000${String(i).padStart(7, '0')}`;
    const title = i % 10 === 0 ? `"Movie ${i + 1}, Part ""${i % 7}"""` : `Movie ${i + 1} – Été`;
    lines.push(
      [
        title,
        1950 + (i % 70),
        FORMATS[i % FORMATS.length],
        i % 4 === 0 ? 'Special Edition' : '',
        `${body}${gtinCheckDigit(body)}`,
        `Binder ${Math.floor(i / 100) + 1}`,
        (i % 100) + 1,
        `tt${String(1_000_000 + i).padStart(7, '0')}`,
        i % 3 === 0 ? 'yes' : 'no',
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** POST /api/import of 10,000 CSV rows over real HTTP (target under 5 s), then both exports; per engine. */
export async function benchImport(): Promise<void> {
  let json = '';
  for (const engine of benchEngines()) {
    console.log(`\n### ${engine}`);
    json = await benchImportOn(engine);
  }
  await importsIntoEmptyLibraries(json);
}

/** Fresh libraries a figure is measured in, per engine, engines taking turns. */
const EMPTY_LIBRARY_ROUNDS = 3;

/**
 * The two imports into an empty library (the CSV, and the JSON export), each into a new library
 * EMPTY_LIBRARY_ROUNDS times, the engines taking turns (the first of each round alternating), the
 * median recorded: one import is a single sample of a second or two, and a load that comes and goes
 * on the machine would otherwise weigh on one engine only (issue 26 asks for the ratio).
 */
async function importsIntoEmptyLibraries(json: string): Promise<void> {
  const engines = benchEngines();
  const csv = collectionCsv(ROWS);
  const samples = new Map<string, number[]>();
  const add = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
  console.log(
    `\n### ${engines.join(' and ')}: imports into an empty library, ${EMPTY_LIBRARY_ROUNDS} rounds, engines taking turns`,
  );
  for (let round = 0; round < EMPTY_LIBRARY_ROUNDS; round++) {
    const order = round % 2 === 0 ? engines : [...engines].reverse();
    for (const engine of order) {
      add(`${engine} csv`, await importIntoEmpty(engine, 'text/csv', csv));
      add(`${engine} json`, await importIntoEmpty(engine, 'application/json', json));
    }
  }
  for (const engine of engines) {
    for (const [kind, figure] of [
      ['csv', `import of ${ROWS} CSV rows`],
      ['json', 'import of the JSON export into an empty library'],
    ] as const) {
      const list = samples.get(`${engine} ${kind}`) ?? [];
      const median = [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
      recordFigure('import', figure, engine, median);
      console.log(`  ${engine}: ${figure}: median ${ms(median)} (${list.map((v) => ms(v)).join(', ')})`);
    }
  }
}

/** POSTs `body` to a new, empty library on `engine`; the time of the request. */
async function importIntoEmpty(engine: BenchEngine, type: string, body: string): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const server = await createServer(benchConfig(await benchDatabaseUrl(engine, dataDir), dataDir));
  try {
    const url = await server.listen();
    const t0 = performance.now();
    const res = await fetch(`${url}/api/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiToken}`, 'content-type': type },
      body,
    });
    const text = await res.text();
    const took = performance.now() - t0;
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${text.slice(0, 500)}`);
    return took;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The benchmarks of one engine on one library; the JSON export it made. */
async function benchImportOn(engine: BenchEngine): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const otherDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const record = (figure: string, value: number) => recordFigure('import', figure, engine, value);
  const config = benchConfig(await benchDatabaseUrl(engine, dataDir), dataDir);
  const server = await createServer(config);
  try {
    const url = await server.listen();
    const auth = { authorization: `Bearer ${server.apiToken}` };
    const csv = collectionCsv(ROWS);
    const post = async (query: string): Promise<{ ms: number; result: ImportResult }> => {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/import${query}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'text/csv' },
        body: csv,
      });
      const result = (await res.json()) as ImportResult;
      if (res.status !== 200) throw new Error(`import answered ${res.status}: ${JSON.stringify(result)}`);
      return { ms: performance.now() - t0, result };
    };
    const mb = (Buffer.byteLength(csv) / 1e6).toFixed(2);
    const dry = await post('?dry_run=true');
    console.log(`dry run, ${ROWS} CSV rows (${mb} MB): ${ms(dry.ms)}`);
    record(`dry run of ${ROWS} CSV rows`, dry.ms);
    const first = await post('');
    const c = first.result.created;
    console.log(
      `import, ${ROWS} CSV rows into an empty library: ${ms(first.ms)} (target < ${ms(TARGET_MS)}: ${first.ms < TARGET_MS ? 'met' : 'MISSED'}) — created ${c.movies} movies, ${c.editions} editions, ${c.copies} copies`,
    );
    const again = await post('');
    record('re-import of the same file', again.ms);
    console.log(
      `re-import of the same file: ${ms(again.ms)} — created ${again.result.created.movies}, unchanged ${again.result.unchanged.movies}`,
    );
    let json = '';
    for (const format of ['json', 'csv'] as const) {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}/api/export?format=${format}`, { headers: auth });
        const text = await res.text();
        times.push(performance.now() - t0);
        if (format === 'json') json = text;
        if (i === 2) {
          record(`export ${format}`, Math.min(...times));
          console.log(
            `export ${format}, ${ROWS} movies: best of 3 ${ms(Math.min(...times))} (${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB)`,
          );
        }
      }
    }
    // The JSON export restored into a second, empty library.
    const other = await createServer({
      ...config,
      dataDir: otherDir,
      databaseUrl: await benchDatabaseUrl(engine, otherDir),
    });
    try {
      const otherUrl = await other.listen();
      const t0 = performance.now();
      const res = await fetch(`${otherUrl}/api/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.apiToken}`, 'content-type': 'application/json' },
        body: json,
      });
      const result = (await res.json()) as ImportResult;
      if (res.status !== 200)
        throw new Error(`JSON import answered ${res.status}: ${JSON.stringify(result)}`);
      console.log(
        `import of that JSON export into an empty library: ${ms(performance.now() - t0)} — created ${result.created.movies} movies`,
      );
    } finally {
      await other.close();
    }
    return json;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
}
