import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../server/src/config.ts';
import { openDatabase } from '../server/src/db/database.ts';
import { type ServerProcess, startServerProcess } from '../server/test/helpers/server-process.ts';
import { seedMoviesWithCopies } from './seed.ts';
import { ms, summarize } from './stats.ts';

/**
 * The Jellyfin facade's browsing at 10,000 movies (issue 23): a page of `/Items?Limit=100` as the
 * apps' library screen asks it, and the whole-library sync (Infuse, Swiftfin: every movie with its
 * fields, no limit) side by side with the cached `GET /library` of the same run.
 */
export async function benchJellyfin(): Promise<void> {
  const quick = process.argv.includes('--quick');
  await benchScale(quick ? 2_000 : 10_000);
}

const agent = new Agent({ connections: 4 });

async function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  const res = await request(url, { headers, dispatcher: agent });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${body.toString().slice(0, 200)}`);
  return { status: res.statusCode, body };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function line(label: string, value: string, target?: string, ok?: boolean): void {
  const verdict = ok === undefined ? '' : ok ? '  ✓' : '  ✗';
  console.log(`  ${label}: ${value}${target === undefined ? '' : ` (target ${target})`}${verdict}`);
}

const GENRES = ['Action', 'Drama', 'Comedy', 'Science Fiction', 'Thriller', 'Animation', 'Horror'];

async function benchScale(movies: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-jellyfin-'));
  let server: ServerProcess | undefined;
  try {
    const config = loadConfig({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_LOG_LEVEL: 'warn',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
    });
    const opened = await openDatabase(config.databaseUrl);
    await seedMoviesWithCopies(opened.db, movies);
    // Two genres and a certification each, so the DTOs carry what enriched films carry.
    for (let g = 0; g < GENRES.length; g++) {
      const pair = JSON.stringify([GENRES[g], GENRES[(g + 3) % GENRES.length]]);
      await sql`update movies set genres_json = ${pair}, certification = 'PG-13' where id % ${GENRES.length} = ${g}`.execute(
        opened.db,
      );
    }
    await opened.close();
    console.log(`\n${movies} movies:`);
    server = await startServerProcess(dataDir, { REELSHELF_WATCH: 'off' });
    const client = 'MediaBrowser Client="Bench", Device="bench", DeviceId="bench-1", Version="1.0"';
    const signIn = await request(`${server.url}/jellyfin/Users/AuthenticateByName`, {
      method: 'POST',
      headers: { authorization: client, 'content-type': 'application/json' },
      body: JSON.stringify({ Username: 'admin', Pw: server.token }),
      dispatcher: agent,
    });
    const signedIn = (await signIn.body.json()) as { AccessToken?: string };
    if (signIn.statusCode !== 200 || signedIn.AccessToken === undefined) {
      throw new Error(`AuthenticateByName: ${signIn.statusCode}`);
    }
    // The apps' HTTP stacks (OkHttp, URLSession) ask for gzip, as the browser does for /library.
    const jf = { authorization: `${client}, Token="${signedIn.AccessToken}"`, 'accept-encoding': 'gzip' };
    const views = JSON.parse((await get(`${server.url}/jellyfin/UserViews`, jf)).body.toString()) as {
      Items: { Id: string }[];
    };
    const parent = views.Items[0]?.Id ?? '';
    const page = `${server.url}/jellyfin/Items?ParentId=${parent}&Recursive=true&IncludeItemTypes=Movie&SortBy=SortName&SortOrder=Ascending&StartIndex=0&Limit=100&Fields=PrimaryImageAspectRatio,Genres&EnableUserData=true`;
    const sync = `${server.url}/jellyfin/Items?Recursive=true&IncludeItemTypes=Movie&Fields=Overview,Genres,MediaSources,People,Studios,DateCreated,ProviderIds,SortName&EnableUserData=true`;
    const library = `${server.url}/library`;
    const libraryHeaders = { authorization: `Bearer ${server.token}`, 'accept-encoding': 'gzip' };

    const cold = await timed(() => get(page, jf));
    line('first /Items?Limit=100 (builds the catalogue)', ms(cold));
    await get(library, libraryHeaders);

    const pages: number[] = [];
    for (let i = 0; i < 200; i++) pages.push(await timed(() => get(page, jf)));
    const filtered: number[] = [];
    const filteredUrl = `${page}&Genres=Drama&Years=1999,2004&SortBy=CommunityRating,SortName`;
    for (let i = 0; i < 50; i++) filtered.push(await timed(() => get(filteredUrl, jf)));

    const firstSync = await timed(() => get(sync, jf));
    // Side by side: the sync and the cached /library alternate, so both see the same machine state.
    const syncs: number[] = [];
    const listings: number[] = [];
    let syncBytes = 0;
    let listingBytes = 0;
    for (let i = 0; i < 100; i++) {
      syncs.push(
        await timed(async () => {
          syncBytes = (await get(sync, jf)).body.length;
        }),
      );
      listings.push(
        await timed(async () => {
          listingBytes = (await get(library, libraryHeaders)).body.length;
        }),
      );
    }
    // A person's own change (what a playing app's progress report every 10 s, or a favourite, is):
    // the next page and the next sync after it. The seeded films are disc-only (no file to report
    // progress on), so a favourite toggled on one film stands for it: both change that one item.
    const afterChangePages: number[] = [];
    const afterChangeSyncs: number[] = [];
    for (let i = 0; i < 10; i++) {
      const film = JSON.parse(
        (
          await get(`${page}&StartIndex=${i * 7}&Limit=1`, { authorization: jf.authorization })
        ).body.toString(),
      ) as {
        Items: { Id: string }[];
      };
      const favourite = `${server.url}/jellyfin/UserFavoriteItems/${film.Items[0]?.Id ?? ''}`;
      await request(favourite, {
        method: i % 2 === 0 ? 'POST' : 'DELETE',
        headers: jf,
        dispatcher: agent,
      }).then((r) => r.body.dump());
      afterChangePages.push(await timed(() => get(page, jf)));
      await request(favourite, {
        method: i % 2 === 0 ? 'DELETE' : 'POST',
        headers: jf,
        dispatcher: agent,
      }).then((r) => r.body.dump());
      afterChangeSyncs.push(await timed(() => get(sync, jf)));
    }

    const p = summarize(pages);
    const f = summarize(filtered);
    const s = summarize(syncs);
    const l = summarize(listings);
    line('/Items?Limit=100', `p50 ${ms(p.median)}, p95 ${ms(p.p95)}`, 'p50 < 10 ms', p.median < 10);
    line(
      '/Items?Limit=100 with Genres, Years, SortBy=CommunityRating',
      `p50 ${ms(f.median)}, p95 ${ms(f.p95)}`,
    );
    line(
      'cached GET /library (gzip)',
      `p50 ${ms(l.median)} (${(listingBytes / 1e6).toFixed(2)} MB on the wire)`,
    );
    line('first whole-library sync of this catalogue (made, kept, gzipped)', ms(firstSync));
    const cp = summarize(afterChangePages);
    const cs = summarize(afterChangeSyncs);
    line(
      'first /Items?Limit=100 after one change of the person (a favourite)',
      `p50 ${ms(cp.median)}, max ${ms(Math.max(...afterChangePages))}`,
    );
    line(
      'first whole-library sync after one change of the person',
      `p50 ${ms(cs.median)}, max ${ms(Math.max(...afterChangeSyncs))}`,
    );
    line(
      'whole-library sync /Items (no limit, Fields=Overview,Genres,MediaSources,People,…)',
      `p50 ${ms(s.median)} (${(syncBytes / 1e6).toFixed(2)} MB on the wire); ratio to the cached /library ${(s.median / l.median).toFixed(2)}`,
      '≤ 2',
      s.median / l.median <= 2,
    );
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
