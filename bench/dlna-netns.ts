// The inside of `npm run bench dlna` (bench/dlna.ts): runs ONLY in the private network namespace
// the bench creates (runInPrivateNetns) — minidlna and reelshelf's SSDP multicast — and refuses
// elsewhere. A 500-film tree (a folder per film, "Title (Year)/Title (Year).mp4", hard links of
// three short generated films), indexed by minidlna; the full walk of its tree as a control point
// does it (Browse of every container, 50 a page), timed over several rounds. Prints one JSON line
// per figure ({ "figure": … }) for the outside to print.
//
// The reelshelf side (the same files scanned into reelshelf, the same walk; Browse of a 100-item
// page at 10,000 films) runs when reelshelf's DLNA is merged (reelshelfDlnaMissing() is null);
// until then it prints that it is missing. HOOKS for the lead: `reelshelfWalk` and `reelshelfPage`.
import { linkSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFilm } from '../server/test/helpers/dlna-library.ts';
import { reelshelfDlnaMissing } from '../server/test/helpers/dlna-reelshelf-target.ts';
import { startMinidlna } from '../server/test/helpers/minidlna.ts';
import { NETNS_ADDRESSES, provePrivateNetns } from '../server/test/helpers/netns.ts';
import { startServerProcess } from '../server/test/helpers/server-process.ts';
import { ms, summarize } from './stats.ts';
import { seedMoviesWithCopies } from './seed.ts';
import { loadConfig } from '../server/src/config.ts';
import { openDatabase } from '../server/src/db/database.ts';

provePrivateNetns();

const quick = process.argv.includes('--quick');
const FILMS = quick ? 100 : 500;
const ROUNDS = quick ? 3 : 7;
const PAGE = 50;
const PAGE_FILMS = quick ? 2_000 : 10_000;
const PAGES = quick ? 50 : 200;
/** The content directory's All films container (services/dlna content tree). */
const ALL_FILMS = 'all';
const CDS = 'urn:schemas-upnp-org:service:ContentDirectory:1';

const ADJECTIVES = ['Dark', 'Silent', 'Golden', 'Last', 'Red', 'Iron', 'Lost', 'Blue', 'Wild', 'Hidden'];
const NOUNS = [
  'Empire',
  'Voyage',
  'Garden',
  'Harbor',
  'Kingdom',
  'Signal',
  'Winter',
  'Machine',
  'River',
  'Tower',
];
const PLACES = ['North', 'South', 'East', 'West', 'Sea'];

/** Distinct "Title (Year)" names: 10 × 10 × 5 titles, a year each. */
function filmName(i: number): string {
  const title = `The ${ADJECTIVES[i % 10]} ${NOUNS[Math.floor(i / 10) % 10]} of the ${PLACES[Math.floor(i / 100) % 5]}`;
  return `${title} (${1950 + (i % 70)})`;
}

/** One figure: its name, the line to print, the raw values (for whoever reads the JSON). */
function emit(figure: string, text: string, values: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ figure, text, ...values })}\n`);
}

/** One SOAP Browse, raw (no keep-alive): the answer's escaped Result, NumberReturned, TotalMatches. */
function browse(
  controlURL: string,
  objectId: string,
  start: number,
  count: number,
): Promise<{ result: string; returned: number; total: number }> {
  const body =
    '<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" ' +
    's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>' +
    `<u:Browse xmlns:u="${CDS}"><ObjectID>${objectId.replace(/&/g, '&amp;')}</ObjectID>` +
    '<BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter>' +
    `<StartingIndex>${start}</StartingIndex><RequestedCount>${count}</RequestedCount>` +
    '<SortCriteria></SortCriteria></u:Browse></s:Body></s:Envelope>';
  return new Promise((resolve, reject) => {
    const req = request(
      controlURL,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'text/xml; charset="utf-8"',
          soapaction: `"${CDS}#Browse"`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200)
            return reject(new Error(`Browse ${objectId}: ${res.statusCode} ${text}`));
          resolve({
            result: /<Result>([\s\S]*?)<\/Result>/.exec(text)?.[1] ?? '',
            returned: Number(/<NumberReturned>(\d+)</.exec(text)?.[1] ?? 'NaN'),
            total: Number(/<TotalMatches>(\d+)</.exec(text)?.[1] ?? 'NaN'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** The whole tree from 0, `PAGE` a page: what a TV's full browse costs. Counts what it found. */
async function walk(
  controlURL: string,
): Promise<{ ms: number; calls: number; containers: number; films: number }> {
  const started = performance.now();
  const queue = ['0'];
  const seen = new Set(queue);
  const canonical = new Set<string>();
  let calls = 0;
  while (queue.length > 0) {
    const id = queue.shift() ?? '0';
    for (let start = 0; ;) {
      const page = await browse(controlURL, id, start, PAGE);
      calls += 1;
      const didl = unescape(page.result);
      for (const [tag] of didl.matchAll(/<container\s[^>]*>/g)) {
        const child = unescape(attribute(tag, 'id') ?? '');
        if (!seen.has(child)) {
          seen.add(child);
          queue.push(child);
        }
      }
      for (const [tag] of didl.matchAll(/<item\s[^>]*>/g))
        canonical.add(attribute(tag, 'refID') ?? attribute(tag, 'id') ?? '');
      start += page.returned;
      if (page.returned === 0 || start >= page.total) break;
    }
  }
  return { ms: performance.now() - started, calls, containers: seen.size, films: canonical.size };
}

/** A warm-up walk, then `ROUNDS` timed ones; p50 and the counts of the last. */
async function timedWalks(name: string, controlURL: string): Promise<number> {
  const warm = await walk(controlURL);
  const times: number[] = [];
  let last = warm;
  for (let round = 0; round < ROUNDS; round++) {
    last = await walk(controlURL);
    times.push(last.ms);
  }
  const { median, p95, min } = summarize(times);
  emit(
    `${name}: full walk of the ${FILMS}-film tree (Browse ${PAGE} a page, ${ROUNDS} rounds)`,
    `p50 ${ms(median)}, p95 ${ms(p95)}, min ${ms(min)}; ${last.calls} Browse, ${last.containers} containers, ${last.films} films found`,
    { p50: median, p95, min, calls: last.calls, containers: last.containers, films: last.films },
  );
  return median;
}

/** The control URL of ContentDirectory in a device description. */
async function controlUrlOf(location: string): Promise<string> {
  const description = await (await fetch(location)).text();
  const service = [...description.matchAll(/<service>([\s\S]*?)<\/service>/g)]
    .map((m) => m[1] ?? '')
    .find((s) => s.includes(CDS));
  const path = /<controlURL>([^<]+)<\/controlURL>/.exec(service ?? '')?.[1];
  if (path === undefined) throw new Error(`no ContentDirectory controlURL in ${location}`);
  return new URL(path, location).href;
}

/**
 * HOOK (after the merge): the same 500 files scanned into reelshelf (its own process, DLNA on for a
 * member), the same walk. Returns reelshelf's p50, or null while its DLNA is not merged.
 */
async function reelshelfWalk(filmsRoot: string): Promise<number | null> {
  const missing = reelshelfDlnaMissing();
  if (missing !== null) {
    emit('reelshelf: full walk of the same tree', `not measured: ${missing}`);
    return null;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-dlna-'));
  try {
    const setup = await startServerProcess(dataDir, { REELSHELF_WATCH: 'off', REELSHELF_HOST: '0.0.0.0' });
    try {
      const api = async (path: string, method: string, body?: unknown) => {
        const res = await fetch(`${setup.url.replace('0.0.0.0', '127.0.0.1')}${path}`, {
          method,
          headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as Record<string, unknown>;
      };
      await api('/api/users', 'POST', { name: 'Bench', password: 'bench password 123', role: 'member' });
      const root = await api('/api/library-roots', 'POST', { path: filmsRoot });
      await api(`/api/library-roots/${String(root.id)}/scan?wait=true`, 'POST', {});
    } finally {
      await setup.stop();
    }
    const server = await startServerProcess(dataDir, {
      REELSHELF_WATCH: 'off',
      REELSHELF_HOST: '0.0.0.0',
      REELSHELF_DLNA: 'Bench',
      REELSHELF_DLNA_NAME: 'reelshelf bench',
    });
    try {
      const base = server.url.replace('0.0.0.0', '127.0.0.1');
      return await timedWalks('reelshelf', await controlUrlOf(`${base}/dlna/description.xml`));
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Browse of a 100-item page of "All films" at 10,000 films: one real film scanned and analysed,
 * its analysis given to 10,000 seeded films (bench/seed.ts, a file each), reelshelf started with
 * DLNA for the first admin; the first Browse builds the person's tree (printed apart), then
 * `PAGES` pages at spread starting indexes. Target p50 < 20 ms.
 */
async function reelshelfPage(seedFilm: string): Promise<void> {
  const figure = `reelshelf: Browse of a 100-item page at ${PAGE_FILMS} films (target p50 < 20 ms)`;
  const missing = reelshelfDlnaMissing();
  if (missing !== null) return emit(figure, `not measured: ${missing}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-dlna-page-'));
  const filmDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-dlna-one-'));
  try {
    linkSync(seedFilm, join(filmDir, 'Seed Film (2001).mp4'));
    const setup = await startServerProcess(dataDir, { REELSHELF_WATCH: 'off' });
    try {
      const headers = { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' };
      const created = await fetch(`${setup.url}/api/library-roots`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ path: filmDir }),
      });
      const root = (await created.json()) as { id: number };
      const scanned = await fetch(`${setup.url}/api/library-roots/${root.id}/scan?wait=true`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      if (scanned.status >= 300) throw new Error(`scan: ${scanned.status} ${await scanned.text()}`);
    } finally {
      await setup.stop();
    }
    const config = loadConfig({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
    });
    const opened = await openDatabase(config.databaseUrl);
    try {
      const analysed = await opened.db
        .selectFrom('media_files')
        .selectAll()
        .where('analysis_status', '=', 'analyzed')
        .executeTakeFirstOrThrow();
      await seedMoviesWithCopies(opened.db, PAGE_FILMS);
      const movies = await opened.db
        .selectFrom('movies')
        .select('id')
        .where('id', '!=', analysed.movie_id ?? 0)
        .execute();
      const now = new Date().toISOString();
      for (let startAt = 0; startAt < movies.length; startAt += 500) {
        await opened.db
          .insertInto('media_files')
          .values(
            movies.slice(startAt, startAt + 500).map((movie) => ({
              movie_id: movie.id,
              edition_id: null,
              library_root_id: analysed.library_root_id,
              relative_path: `seeded/${movie.id}.mp4`,
              size_bytes: analysed.size_bytes,
              mtime_ms: analysed.mtime_ms,
              fingerprint: null,
              edition_label: null,
              status: 'present',
              analysis_status: 'analyzed',
              capabilities_json: analysed.capabilities_json,
              analysis_error: null,
              analyzed_size_bytes: analysed.analyzed_size_bytes,
              analyzed_fingerprint: null,
              analyzed_at: now,
              missing_since: null,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      }
    } finally {
      await opened.close();
    }
    const server = await startServerProcess(dataDir, { REELSHELF_WATCH: 'off', REELSHELF_DLNA: 'admin' });
    try {
      const control = await controlUrlOf(`${server.url}/dlna/description.xml`);
      const built = performance.now();
      const first = await browse(control, ALL_FILMS, 0, 100);
      const buildMs = performance.now() - built;
      const times: number[] = [];
      for (let k = 0; k < PAGES; k++) {
        const startAt = ((k * 37) % Math.floor(first.total / 100)) * 100;
        const started = performance.now();
        const page = await browse(control, ALL_FILMS, startAt, 100);
        times.push(performance.now() - started);
        if (page.returned !== 100) throw new Error(`page at ${startAt}: ${page.returned} items`);
      }
      const { median, p95 } = summarize(times);
      emit(
        figure,
        `p50 ${ms(median)}, p95 ${ms(p95)} over ${PAGES} pages of ${first.total} (first Browse, building the tree: ${ms(buildMs)}) ${median < 20 ? '✓' : '✗'}`,
        { p50: median, p95, firstMs: buildMs, total: first.total },
      );
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(filmDir, { recursive: true, force: true });
  }
}

const filmsRoot = mkdtempSync(join(tmpdir(), 'reelshelf-bench-dlna-films-'));
// Beside the library (hard links need the same file system), not in it: only the 500 are films.
const seeds = mkdtempSync(join(tmpdir(), 'reelshelf-bench-dlna-seeds-'));
try {
  for (let s = 0; s < 3; s++) await makeFilm(join(seeds, `seed-${s}.mp4`), 2 + s, 'mp4');
  for (let i = 0; i < FILMS; i++) {
    const name = filmName(i);
    mkdirSync(join(filmsRoot, name));
    linkSync(join(seeds, `seed-${i % 3}.mp4`), join(filmsRoot, name, `${name}.mp4`));
  }
  const indexStarted = performance.now();
  const minidlna = await startMinidlna({
    mediaDir: filmsRoot,
    expectedFiles: FILMS,
    interfaces: ['lo', NETNS_ADDRESSES.ownLink],
    host: '127.0.0.1',
    readyTimeoutMs: 600_000,
  });
  const indexMs = performance.now() - indexStarted;
  emit(`minidlna: index ${minidlna.indexed} videos (start to ready)`, ms(indexMs), { ms: indexMs });
  let minidlnaP50: number;
  try {
    minidlnaP50 = await timedWalks('minidlna 1.3.0', await controlUrlOf(minidlna.location));
  } finally {
    await minidlna.stop();
  }
  const reelshelfP50 = await reelshelfWalk(filmsRoot);
  if (reelshelfP50 !== null) {
    const ratio = reelshelfP50 / minidlnaP50;
    emit(
      'reelshelf / minidlna, full walk p50',
      `${ratio.toFixed(2)} (target ≤ 1.0) ${ratio <= 1 ? '✓' : '✗'}`,
      {
        ratio,
      },
    );
  }
  await reelshelfPage(join(seeds, 'seed-0.mp4'));
} finally {
  rmSync(filmsRoot, { recursive: true, force: true });
  rmSync(seeds, { recursive: true, force: true });
}
