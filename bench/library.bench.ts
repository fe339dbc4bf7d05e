import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { loadConfig } from '../server/src/config.ts';
import { createServer } from '../server/src/server.ts';
import { seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

const MOVIES = 10_000;
const RUNS = 20;

/** GET /library at 10,000 movies over real HTTP, against the floor of JSON.stringify + gzip. */
export async function benchLibrary(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-'));
  const config = loadConfig({
    REELSHELF_DATA_DIR: dataDir,
    REELSHELF_HOST: '127.0.0.1',
    REELSHELF_PORT: '0',
    REELSHELF_LOG_LEVEL: 'warn',
  });
  const server = await createServer(config);
  try {
    const seedStart = performance.now();
    await seedMoviesWithCopies(server.database.db, MOVIES);
    console.log(`seeded ${MOVIES} movies with copies in ${ms(performance.now() - seedStart)}`);
    const url = await server.listen();
    const headers = { authorization: `Bearer ${server.apiToken}`, 'accept-encoding': 'gzip' };
    // undici's request() does not decompress, so the byte count is what crossed the wire.
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      bytes = (await (await request(`${url}/library`, { headers })).body.arrayBuffer()).byteLength;
    }
    const http: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await request(`${url}/library`, { headers });
      await res.body.arrayBuffer();
      http.push(performance.now() - t0);
    }
    const response = await server.services.library.getLibrary('web');
    const floor: number[] = [];
    let gzBytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      gzBytes = gzipSync(JSON.stringify(response)).byteLength;
      floor.push(performance.now() - t0);
    }
    const h = summarize(http);
    const f = summarize(floor);
    console.log(
      `GET /library, ${MOVIES} movies, ${RUNS} requests: p50 ${ms(h.median)}, p95 ${ms(h.p95)} (${(bytes / 1e6).toFixed(2)} MB gzipped on the wire)`,
    );
    console.log(
      `floor JSON.stringify+gzip of the same object: p50 ${ms(f.median)}, p95 ${ms(f.p95)} (${(gzBytes / 1e6).toFixed(2)} MB gzipped)`,
    );
    console.log(`ratio /library p50 ÷ floor p50: ${(h.median / f.median).toFixed(2)}`);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
