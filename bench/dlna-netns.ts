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

provePrivateNetns();

const quick = process.argv.includes('--quick');
const FILMS = quick ? 100 : 500;
const ROUNDS = quick ? 3 : 7;
const PAGE = 50;
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
      await api(`/api/library-roots/${String(root.id)}/scan?wait=true`, 'POST');
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
 * HOOK (after the merge): Browse of a 100-item page of "All films" at 10,000 films (seed them with
 * bench/seed.ts seedMoviesWithCopies into a data dir, start reelshelf with REELSHELF_DLNA, find the
 * All films container under 0, time 200 × Browse StartingIndex k·100, RequestedCount 100;
 * target p50 < 20 ms). Left to the lead with the merged tree's container ids.
 */
function reelshelfPage(): void {
  emit(
    'reelshelf: Browse of a 100-item page at 10,000 films (target p50 < 20 ms)',
    `not measured: ${reelshelfDlnaMissing() ?? 'to be written at the merge (hook reelshelfPage in bench/dlna-netns.ts)'}`,
  );
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
  reelshelfPage();
} finally {
  rmSync(filmsRoot, { recursive: true, force: true });
  rmSync(seeds, { recursive: true, force: true });
}
