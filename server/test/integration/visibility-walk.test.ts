// Issue 22 §3: a child with limit PG walks EVERY route of the app (read from Fastify's route table as
// the app registers it, so a route added later is walked by default) with the ids of the films above
// the limit (an R film, an unrated film, a file matched to no movie) in its params, and fails on any
// answer that names or serves one of them, on a 2xx for a hidden id, on an answer that differs from
// the answer for a missing id, and on counts that disagree with what is listed. Real SQLite, real
// HTTP on loopback, real media made by ffmpeg.
// The Jellyfin facade's routes (`/jellyfin/…`, and the same at the root of the Jellyfin port) are
// walked as a Jellyfin app calls them: the child signs in through AuthenticateByName and sends its
// token in the MediaBrowser header (on media and image routes also as `ApiKey`), with the hidden
// films' Jellyfin ids (movie and media-source ids, an adult's image tag) in paths, queries and
// bodies. A hidden id must answer exactly as an id naming nothing (404 JSON); no 2xx may carry a
// hidden film's title, Jellyfin ids or bytes; reports and writes for a hidden id change nothing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse, MovieDetail } from '@reelshelf/contract';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.ts';
import { JELLYFIN_MEDIA_ROUTES } from '../../src/http/jellyfin/credentials.ts';
import { JELLYFIN_IMAGE_ROUTES } from '../../src/http/jellyfin/images.routes.ts';
import { createServer, type ReelshelfServer } from '../../src/server.ts';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { testDatabaseEnv } from '../helpers/test-database.ts';

interface Film {
  key: 'g' | 'pg' | 'r' | 'unrated';
  title: string;
  certification: string | null;
  fixture: 'h264_aac.mp4' | 'h264_dts.mkv' | 'h264_dts_long.mkv';
  seconds?: number;
}

// Registered in this order, so the visible films hold the low ids (1, 2) of both movies and files
// and every hidden id names a hidden thing (or nothing) whichever table a route reads it from.
const FILMS: Film[] = [
  { key: 'g', title: 'Gentle Meadow', certification: 'G', fixture: 'h264_aac.mp4' },
  // 400 s: the child stops in it early and it is to continue (the resume rule: films of 5 minutes or more).
  { key: 'pg', title: 'Puppy Parade', certification: 'PG', fixture: 'h264_dts_long.mkv', seconds: 400 },
  { key: 'r', title: 'Razorwire Nocturne', certification: 'R', fixture: 'h264_dts.mkv' },
  { key: 'unrated', title: 'Unmarked Basement Tape', certification: null, fixture: 'h264_aac.mp4' },
];
const ORPHAN_NAME = 'Orphaned Midnight Reel';
const MISSING_ID = 987654;

interface Route {
  method: string;
  url: string;
}

/** The header a Jellyfin app sends (the token is added per request). */
const JELLYFIN_CLIENT = 'MediaBrowser Client="Walk", Device="Kid tablet", DeviceId="walk-1", Version="1.0"';
/** Routes that take the token in the query too (players fetch them without headers). */
const QUERY_TOKEN_ROUTES = new Set<string>([...JELLYFIN_MEDIA_ROUTES, ...JELLYFIN_IMAGE_ROUTES]);
/** What a Jellyfin URL's item and media-source params are filled with. */
interface IdPair {
  item: string;
  source: string;
}
/** Jellyfin route params that are not item ids: their samples (anything else is an item id). */
const JELLYFIN_SAMPLES: Record<string, string[]> = {
  id: ['usersettings'],
  type: ['Primary', 'Backdrop'],
  index: ['0'],
  container: ['mkv'],
  rendition: ['v', 'a0', 's0'],
  segment: ['init.mp4', '0.m4s', '0.ts', '0.vtt'],
  format: ['vtt', 'srt'],
  startticks: ['0'],
  '*': ['x'],
};
/** What an app posts (PlaybackInfo, progress reports): every member that names an item. */
function jellyfinBody(pair: IdPair): string {
  return JSON.stringify({
    ItemId: pair.item,
    MediaSourceId: pair.source,
    PositionTicks: 600_000_000,
    PlayMethod: 'DirectPlay',
    DeviceProfile: {
      DirectPlayProfiles: [{ Container: 'mp4,mkv', Type: 'Video' }],
      TranscodingProfiles: [
        { Container: 'ts', Type: 'Video', Protocol: 'hls', VideoCodec: 'h264', AudioCodec: 'aac' },
      ],
    },
  });
}

describe('visibility: a child walks every route', () => {
  let childKey = '';
  let server: ReelshelfServer;
  let base: string;
  let dataDir: string;
  let root: string;
  const routes: Route[] = [];
  const ids: Record<Film['key'], { movieId: number; fileId: number }> = {} as never;
  let orphanFileId = 0;
  const hiddenMovieIds: number[] = [];
  const hiddenFileIds: number[] = [];
  /** Byte samples of everything hidden: media files and posters. */
  const hiddenBytes: Buffer[] = [];
  const hiddenTexts: string[] = [];
  /** The child and an adult signed in as Jellyfin apps (the child's token is renewed after a logout). */
  let kid = { token: '', userId: '' };
  let grown = { token: '', userId: '' };
  /** The Jellyfin port's root (REELSHELF_JELLYFIN_PORT on an ephemeral port). */
  let jellyfinRoot = '';
  /** The hidden films as the adult's Jellyfin listing names them, with the adult's poster tag. */
  const jfHidden: (IdPair & { tag: string | null })[] = [];
  let jfVisible: IdPair = { item: '', source: '' };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-walk-media-'));
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-walk-data-'));
    const files: Record<string, string> = {};
    for (const film of FILMS) {
      const ext = film.fixture.slice(film.fixture.lastIndexOf('.'));
      files[film.key] = await makeFixture(film.fixture, join(root, `${film.title}${ext}`), film.seconds);
    }
    const orphanPath = await makeFixture('h264_aac.mp4', join(root, 'loose', `${ORPHAN_NAME}.mp4`), 3);

    const config = loadConfig({
      REELSHELF_HOST: '127.0.0.1',
      REELSHELF_PORT: '0',
      REELSHELF_LOG_LEVEL: 'silent',
      REELSHELF_WATCH: 'off',
      // The facade at the root of its own port is walked too (a free port; never Jellyfin's 8096).
      REELSHELF_JELLYFIN_PORT: '0',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_DLNA_SSDP_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
      // DLNA on for the child: its public /dlna routes (description, SCPDs, icons, control, GENA)
      // answer the walk from loopback, a LAN address, and must not tell of a hidden film either.
      REELSHELF_DLNA: 'Kid',
      REELSHELF_DATA_DIR: dataDir,
      ...testDatabaseEnv(dataDir),
    });
    server = await createServer(config);
    // Every route the app registers, as Fastify registers it (the plugins run at listen).
    server.app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    });
    const db = server.database.db;
    const registered = await registerFiles(db, root, files);
    for (const film of FILMS) {
      const found = registered[film.key];
      assert.ok(found !== undefined);
      ids[film.key] = found;
      await db
        .updateTable('movies')
        .set({ title: film.title, certification: film.certification, overview: `${film.title} overview.` })
        .where('id', '=', found.movieId)
        .execute();
      // A poster beside the media, served by /artwork (distinct bytes per film).
      const posterPath = join(root, 'posters', `${film.key}.jpg`);
      mkdirSync(join(root, 'posters'), { recursive: true });
      const shade = 40 * (FILMS.indexOf(film) + 1);
      writeFileSync(
        posterPath,
        await sharp({
          create: { width: 64, height: 96, channels: 3, background: { r: shade, g: 10, b: 200 - shade } },
        })
          .jpeg()
          .toBuffer(),
      );
      await db
        .insertInto('movie_artwork_state')
        .values({
          movie_id: found.movieId,
          poster_state: 'ready',
          poster_source: 'local',
          poster_path: posterPath,
          backdrop_state: 'none',
          backdrop_source: null,
          backdrop_path: null,
          fetched_at: null,
          error: null,
        })
        .execute();
      if (film.key === 'r' || film.key === 'unrated') {
        hiddenMovieIds.push(found.movieId);
        hiddenFileIds.push(found.fileId);
        hiddenTexts.push(film.title, `${film.title} overview.`);
        hiddenBytes.push(sample(readFileSync(files[film.key] ?? '')), readFileSync(posterPath));
      }
    }
    // A file matched to no movie: unrated, so hidden from the child too.
    const rootRow = await db.selectFrom('library_roots').select('id').executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const orphan = await db
      .insertInto('media_files')
      .values({
        library_root_id: rootRow.id,
        relative_path: `loose/${ORPHAN_NAME}.mp4`,
        size_bytes: readFileSync(orphanPath).length,
        mtime_ms: 0,
        fingerprint: null,
        movie_id: null,
        edition_label: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    orphanFileId = orphan.id;
    hiddenFileIds.push(orphanFileId);
    hiddenTexts.push(ORPHAN_NAME);
    hiddenBytes.push(sample(readFileSync(orphanPath)));
    await server.services.analysis.analyzePending();

    base = await server.listen();
    // The child: limit PG, unrated hidden, made through the people API; signs in with a playback
    // key an admin made for them.
    const admin = { authorization: `Bearer ${server.apiToken}`, 'content-type': 'application/json' };
    const made = await fetch(`${base}/api/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: 'Kid',
        password: 'kid-password-long',
        role: 'child',
        max_certification: 'PG',
        allow_unrated: false,
      }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const child = (await made.json()) as { id: number };
    const key = await fetch(`${base}/api/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'walk', scope: 'playback', user: child.id }),
    });
    assert.equal(key.status, 201, await key.clone().text());
    childKey = ((await key.json()) as { key: string }).key;

    // The same child, and an adult who sees everything, signed in as Jellyfin apps are.
    const adult = await fetch(`${base}/api/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Grown', password: 'grown-password-long', role: 'member' }),
    });
    assert.equal(adult.status, 201, await adult.clone().text());
    kid = await jellyfinSignIn('Kid', 'kid-password-long');
    grown = await jellyfinSignIn('Grown', 'grown-password-long');
    jellyfinRoot = server.jellyfin.url ?? '';
    assert.match(jellyfinRoot, /^http:\/\/127\.0\.0\.1:\d+$/);
    // The hidden films' Jellyfin ids and poster tags, as the adult's listing gives them.
    const listing = await fetch(`${base}/jellyfin/Items?Recursive=true&Fields=MediaSources`, {
      headers: { authorization: jellyfinAuth(grown.token) },
    });
    assert.equal(listing.status, 200, await listing.clone().text());
    const { Items } = (await listing.json()) as {
      Items: {
        Name: string;
        Id: string;
        MediaSources?: { Id: string }[];
        ImageTags?: { Primary?: string };
      }[];
    };
    for (const item of Items) {
      const source = item.MediaSources?.[0]?.Id ?? '';
      if (hiddenTexts.includes(item.Name)) {
        jfHidden.push({ item: item.Id, source, tag: item.ImageTags?.Primary ?? null });
      } else if (item.Name === 'Gentle Meadow') jfVisible = { item: item.Id, source };
    }
    assert.equal(jfHidden.length, 3, JSON.stringify(Items.map((i) => i.Name)));
    assert.ok(jfHidden.every((h) => /^[0-9a-f]{32}$/.test(h.item) && /^[0-9a-f]{32}$/.test(h.source)));
    assert.ok(
      jfHidden.some((h) => h.tag !== null),
      'the adult is given a poster tag of a hidden film',
    );
    assert.notEqual(jfVisible.item, '');
  });

  const jellyfinAuth = (token: string) => `${JELLYFIN_CLIENT}, Token="${token}"`;

  async function jellyfinSignIn(name: string, password: string): Promise<{ token: string; userId: string }> {
    const res = await fetch(`${base}/jellyfin/Users/AuthenticateByName`, {
      method: 'POST',
      headers: { authorization: JELLYFIN_CLIENT, 'content-type': 'application/json' },
      body: JSON.stringify({ Username: name, Pw: password }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { AccessToken: string; User: { Id: string } };
    return { token: body.AccessToken, userId: body.User.Id };
  }

  after(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const as = (who: 'child' | 'admin', path: string, init: RequestInit & { accept?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${who === 'child' ? childKey : server.apiToken}`);
    if (init.accept !== undefined) headers.set('accept', init.accept);
    return fetch(`${base}${path}`, { ...init, headers, redirect: 'manual' });
  };

  /** What in an answer would tell of a hidden film: its title, its file's name, a URL with its id, its bytes. */
  function leaks(body: Buffer): string[] {
    const text = body.toString('latin1');
    const found: string[] = [];
    for (const t of hiddenTexts) if (text.includes(t)) found.push(`names "${t}"`);
    for (const id of hiddenMovieIds) {
      for (const re of [
        new RegExp(`/movie/${id}(?![0-9])`),
        new RegExp(`/artwork/${id}/`),
        new RegExp(`/api/movies/${id}(?![0-9])`),
        new RegExp(`"(movie_id|id)":${id}[,}]`),
      ]) {
        if (re.test(text)) found.push(`links movie ${id} (${re.source})`);
      }
    }
    for (const id of hiddenFileIds) {
      for (const re of [
        new RegExp(`/stream/media_file/${id}(?![0-9])`),
        new RegExp(`/api/media-file/${id}(?![0-9])`),
        new RegExp(`"media_file_id":${id}[,}]`),
      ]) {
        if (re.test(text)) found.push(`links file ${id} (${re.source})`);
      }
    }
    for (const bytes of hiddenBytes) if (body.includes(bytes)) found.push('serves hidden bytes');
    return found;
  }

  /** Values for the params a URL pattern has: every hidden id in each id-like param, a sample otherwise. */
  function expansions(url: string): { path: string; hidden: number | null }[] {
    const names = [...url.matchAll(/:([A-Za-z_]+)|\*/g)].map((m) => m[1] ?? '*');
    const samples: Record<string, string[]> = {
      kind: ['poster', 'backdrop'],
      // Jellyfin images (/jellyfin/items/:itemid/images/:type[/:index]).
      type: ['Primary', 'Backdrop'],
      index: ['0'],
      rendition: ['v', 'a0', 's0'],
      segment: ['init.mp4', '0.m4s', '0.ts', '0.vtt', 'index.m3u8'],
      track: ['0.vtt'],
      code: ['036000291452'],
      name: ['Shelf A', 'app.css'],
      '*': ['x'],
    };
    const idNames = names.filter((n) => samples[n] === undefined);
    const out: { path: string; hidden: number | null }[] = [];
    const hiddenIds = [...new Set([...hiddenMovieIds, ...hiddenFileIds])];
    const fill = (id: number, pick: (name: string) => string): string =>
      url.replace(/:([A-Za-z_]+)|\*/g, (_m, name: string | undefined) => {
        const key = name ?? '*';
        return samples[key] === undefined ? String(id) : pick(key);
      });
    if (idNames.length === 0) {
      const combos =
        names.length === 0 ? [url] : (samples[names[0] ?? ''] ?? ['x']).map((v) => fill(0, () => v));
      return combos.map((path) => ({ path, hidden: null }));
    }
    for (const id of [...hiddenIds, MISSING_ID]) {
      const variable = names.find((n) => samples[n] !== undefined);
      const values = variable === undefined ? [''] : (samples[variable] ?? ['']);
      for (const v of values) {
        out.push({ path: fill(id, (n) => (n === variable ? v : (samples[n]?.[0] ?? 'x'))), hidden: id });
      }
    }
    return out;
  }

  it('reads the route table: every route is walked, the by-id ones with hidden ids', () => {
    assert.ok(routes.length > 30, `routes seen: ${routes.length}`);
    for (const expected of [
      '/api/movies/:id',
      '/movie/:id',
      '/artwork/:movieId/:kind',
      '/stream/media_file/:id',
    ]) {
      assert.ok(
        routes.some((r) => r.url === expected),
        `${expected} is in the route table`,
      );
    }
  });

  it('the hidden films exist (the admin sees them), so a 404 for the child is the limit, not a missing row', async () => {
    for (const id of hiddenMovieIds) assert.equal((await as('admin', `/api/movies/${id}`)).status, 200);
    for (const id of hiddenFileIds) {
      assert.equal((await as('admin', `/api/media-file/${id}/playback`)).status, 200);
    }
    const all = (await (await as('admin', '/library')).json()) as LibraryResponse;
    assert.equal(all.items.length, 5);
  });

  it('no route names or serves a hidden film; a hidden id answers exactly as a missing one', async () => {
    const failures: string[] = [];
    const walked = new Set<string>();
    for (const route of routes) {
      // The facade's routes take Jellyfin tokens and ids: walked by the next test.
      if (route.method === 'OPTIONS' || isJellyfinRoute(route)) continue;
      for (const { path, hidden } of expansions(route.url)) {
        if (hidden === MISSING_ID) continue;
        const variants: { query: string; accept?: string }[] = [{ query: '' }];
        if (route.method === 'GET' && hidden === null) {
          variants.push(
            { query: '?q=Razorwire' },
            { query: '?q=Unmarked' },
            { query: '?q=Orphaned' },
            { query: '?q=Razorwire', accept: 'text/html' },
            { query: '', accept: 'text/html' },
            { query: '?badge=playable&q=tape', accept: 'text/html' },
          );
        }
        for (const v of variants) {
          const init: RequestInit & { accept?: string } = { method: route.method };
          if (v.accept !== undefined) init.accept = v.accept;
          if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
            init.headers = { 'content-type': 'application/json' };
            init.body = route.url.includes('progress') ? '{"position_seconds":1}' : '{}';
          }
          const res = await as('child', `${path}${v.query}`, init);
          const body = Buffer.from(await res.arrayBuffer());
          const label = `${route.method} ${path}${v.query}${v.accept === undefined ? '' : ` (${v.accept})`} → ${res.status}`;
          walked.add(`${route.method} ${route.url}`);
          for (const leak of leaks(body)) failures.push(`${label}: ${leak}`);
          const location = res.headers.get('location') ?? '';
          for (const leak of leaks(Buffer.from(location))) failures.push(`${label}: Location ${leak}`);
          if (hidden === null) continue;
          if (res.status >= 200 && res.status < 300) failures.push(`${label}: 2xx for a hidden id`);
          // Hidden means absent: the same answer as for an id that names nothing.
          const missingPath = path.replace(new RegExp(`(?<=/)${hidden}(?=/|$)`, 'g'), String(MISSING_ID));
          const missing = await as('child', `${missingPath}${v.query}`, init);
          const missingBody = Buffer.from(await missing.arrayBuffer()).toString('utf8');
          const same = (s: string, id: number) =>
            s.replace(new RegExp(`(?<![0-9A-Za-z])${id}(?![0-9A-Za-z])`, 'g'), '<id>');
          if (
            missing.status !== res.status ||
            same(missingBody, MISSING_ID) !== same(body.toString('utf8'), hidden)
          ) {
            failures.push(
              `${label}: differs from a missing id (${missing.status} ${missingBody.slice(0, 120)} vs ${body.toString('utf8').slice(0, 120)})`,
            );
          }
        }
      }
    }
    assert.deepEqual(failures, []);
    // Every route was asked at least once (HEAD follows GET and is walked too).
    for (const r of routes)
      if (r.method !== 'OPTIONS' && !isJellyfinRoute(r))
        assert.ok(walked.has(`${r.method} ${r.url}`), `${r.method} ${r.url} walked`);
  });

  it('the Jellyfin facade, on both ports: no route tells of a hidden film; a hidden id answers as a missing one; writes for it change nothing', async () => {
    const jfIds = server.services.jellyfin.ids;
    const missing: IdPair = {
      item: jfIds.encode('movie', MISSING_ID),
      source: jfIds.encode('media-source', MISSING_ID),
    };
    const hiddenIds = jfHidden.flatMap((h) => [h.item, h.source]);
    const withMovie = jfHidden.find((h) => h.item !== h.source);
    assert.ok(withMovie !== undefined);
    // Each hidden film as an app names it: by its movie id, by its media-source id (an unmatched file
    // has only that); and a visible film asked for with a hidden film's media source.
    const pairs: { hidden: IdPair; missing: IdPair; sourceOnly: boolean }[] = [];
    for (const h of jfHidden) {
      if (h.item !== h.source) pairs.push({ hidden: h, missing, sourceOnly: false });
      pairs.push({
        hidden: { item: h.source, source: h.source },
        missing: { item: missing.source, source: missing.source },
        sourceOnly: false,
      });
    }
    pairs.push({
      hidden: { item: jfVisible.item, source: withMovie.source },
      missing: { item: jfVisible.item, source: missing.source },
      sourceOnly: true,
    });
    const tagOf = (pair: IdPair) =>
      jfHidden.find((h) => h.item === pair.item || h.source === pair.source)?.tag ?? withMovie.tag ?? '';
    const view = server.services.jellyfin.moviesViewId;
    const listQueries = [
      '?Recursive=true&IncludeItemTypes=Movie&Fields=Overview,Genres,People,Studios,MediaSources',
      '?Recursive=true&SearchTerm=Razorwire',
      '?Recursive=true&SearchTerm=Unmarked',
      '?Recursive=true&SearchTerm=Orphaned',
      `?ParentId=${view}&Recursive=true&SortBy=DateCreated&SortOrder=Descending&Filters=IsResumable`,
      '?Recursive=true&Filters=IsFavorite',
      '?Recursive=true&IsPlayed=true&Limit=1000',
    ];
    /** The route reads MediaSourceId from its query or body (so a visible item with a hidden source is a hidden call). */
    const readsSource = (url: string) =>
      /\/playbackinfo$/.test(url) || url.startsWith('/jellyfin/videos/') || url.includes('/playingitems/');

    const failures: string[] = [];
    const walked = new Set<string>();
    const reached = new Set<string>();
    const idsIn = (text: string) => {
      const lower = text.toLowerCase();
      return hiddenIds.filter((id) => lower.includes(id) || lower.includes(dashed(id)));
    };
    const normalise = (text: string, pair: IdPair) => {
      let out = text.toLowerCase();
      for (const id of [pair.item, pair.source]) out = out.replaceAll(id, '<id>');
      return out;
    };

    for (const route of routes.filter((r) => isJellyfinRoute(r) && r.method !== 'OPTIONS')) {
      const key = `${route.method} ${route.url}`;
      const names = [...route.url.matchAll(/:([A-Za-z_]+)|\*/g)].map((m) => m[1] ?? '*');
      const takesId = names.some((n) => n !== 'userid' && JELLYFIN_SAMPLES[n] === undefined);
      const takesSource = names.includes('mediasourceid');
      const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method);
      const variable = names.find((n) => JELLYFIN_SAMPLES[n] !== undefined);
      const values = variable === undefined ? [''] : (JELLYFIN_SAMPLES[variable] ?? ['']);
      const fill = (pair: IdPair, value: string) =>
        route.url
          .replace(/:([A-Za-z_]+)|\*/g, (_m, name: string | undefined) => {
            const param = name ?? '*';
            if (param === 'userid') return kid.userId;
            if (param === 'mediasourceid') return pair.source;
            const samples = JELLYFIN_SAMPLES[param];
            if (samples === undefined) return pair.item;
            return param === variable ? value : (samples[0] ?? 'x');
          })
          .slice('/jellyfin'.length);
      type Variant = {
        query: (pair: IdPair, hidden: IdPair) => string;
        auth: 'header' | 'query';
        source: boolean;
      };
      const variants: Variant[] = [
        { query: () => '', auth: 'header', source: false },
        {
          query: (p) => `?MediaSourceId=${p.source}&static=true&PositionTicks=600000000`,
          auth: 'header',
          source: true,
        },
      ];
      if (QUERY_TOKEN_ROUTES.has(route.url)) {
        variants.push({
          query: (p) => `?ApiKey=${kid.token}&MediaSourceId=${p.source}`,
          auth: 'query',
          source: true,
        });
      }
      if ((JELLYFIN_IMAGE_ROUTES as readonly string[]).includes(route.url)) {
        // A tag the adult was given: with the child's token it opens nothing hidden.
        variants.push({ query: (_p, h) => `?tag=${tagOf(h)}&maxWidth=300`, auth: 'header', source: false });
        variants.push({
          query: (_p, h) => `?tag=${tagOf(h)}&ApiKey=${kid.token}`,
          auth: 'query',
          source: false,
        });
      }

      // A call: the hidden pair (null: a list, nothing hidden asked), and how the missing one is made.
      const calls: { hidden: IdPair | null; missing: IdPair; variants: Variant[] }[] = [];
      if (takesId || writes) {
        for (const pair of pairs) {
          if (!pair.sourceOnly || takesSource || !takesId) calls.push({ ...pair, variants });
          else if (readsSource(route.url))
            calls.push({ ...pair, variants: variants.filter((v) => v.source) });
        }
      }
      if (!takesId && route.method !== 'DELETE') {
        calls.push({
          hidden: null,
          missing,
          variants: [
            { query: () => '', auth: 'header', source: false },
            ...(route.method === 'GET'
              ? listQueries.map((q) => ({ query: () => q, auth: 'header' as const, source: false }))
              : []),
          ],
        });
      }

      const ask = async (root: string, pair: IdPair, hidden: IdPair, value: string, v: Variant) => {
        const headers: Record<string, string> = {};
        if (v.auth === 'header') headers.authorization = jellyfinAuth(kid.token);
        const init: RequestInit = { method: route.method, headers, redirect: 'manual' };
        if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
          headers['content-type'] = 'application/json';
          init.body = jellyfinBody(pair);
        }
        const path = `${fill(pair, value)}${v.query(pair, hidden)}`;
        const res = await fetch(`${root}${path}`, init);
        const body = Buffer.from(await res.arrayBuffer());
        // Signing out ends the token: the walk goes on with a new one.
        if (route.url === '/jellyfin/sessions/logout') kid = await jellyfinSignIn('Kid', 'kid-password-long');
        walked.add(key);
        if (res.status !== 401 && v.auth === 'header') reached.add(key);
        const label = `${route.method} ${root === jellyfinRoot ? '[port] ' : '/jellyfin'}${path} → ${res.status}`;
        return { res, body, label };
      };

      for (const call of calls) {
        const askedFor = call.hidden ?? missing;
        for (const value of values) {
          for (const v of call.variants) {
            for (const root of [`${base}/jellyfin`, jellyfinRoot]) {
              const { res, body, label } = await ask(root, askedFor, askedFor, value, v);
              for (const leak of leaks(body)) failures.push(`${label}: ${leak}`);
              const ok = res.status >= 200 && res.status < 300;
              if (ok)
                for (const id of idsIn(body.toString('latin1')))
                  failures.push(`${label}: carries hidden id ${id}`);
              for (const id of idsIn(res.headers.get('location') ?? ''))
                failures.push(`${label}: Location carries ${id}`);
              const json = /^application\/json/.test(res.headers.get('content-type') ?? '');
              if (res.status >= 400 && route.method !== 'HEAD' && !json)
                failures.push(`${label}: an error that is not JSON`);
              if (call.hidden === null) continue;
              // A report is never refused (204, nothing told); anything else 2xx for an item of the
              // path would serve the film. (A body-only call answers as it would for a missing id.)
              if (takesId && ok && !(res.status === 204 && body.length === 0))
                failures.push(`${label}: 2xx for a hidden id`);
              if (res.status === 404 && route.method !== 'HEAD') {
                const error = (JSON.parse(body.toString('utf8')) as { error?: string }).error;
                if (error !== 'not_found') failures.push(`${label}: 404 without error not_found`);
              }
              const other = await ask(root, call.missing, call.hidden, value, v);
              if (
                other.res.status !== res.status ||
                normalise(other.body.toString('utf8'), call.missing) !==
                  normalise(body.toString('utf8'), call.hidden)
              ) {
                failures.push(
                  `${label}: differs from a missing id (${other.res.status} ${other.body.toString('utf8').slice(0, 120)} vs ${body.toString('utf8').slice(0, 120)})`,
                );
              }
            }
          }
        }
      }
    }
    assert.deepEqual(failures, []);
    const jellyfinRoutes = routes.filter((r) => isJellyfinRoute(r) && r.method !== 'OPTIONS');
    assert.ok(jellyfinRoutes.length > 60, `Jellyfin routes seen: ${jellyfinRoutes.length}`);
    for (const r of jellyfinRoutes) {
      const key = `${r.method} ${r.url}`;
      assert.ok(walked.has(key), `${key} walked`);
      // The child's token got past the auth hook: the route's own answer was judged, not a 401.
      assert.ok(reached.has(key), `${key} answered the child's Jellyfin token with more than 401`);
    }

    // Reports, played and favourite writes named hidden films hundreds of times: nothing was kept.
    const db = server.database.db;
    const child = await db
      .selectFrom('users')
      .select('id')
      .where('name_key', '=', 'kid')
      .executeTakeFirstOrThrow();
    const kept = {
      watch: await db
        .selectFrom('watch_state')
        .select('media_file_id')
        .where('user_id', '=', child.id)
        .where('media_file_id', 'in', hiddenFileIds)
        .execute(),
      history: await db
        .selectFrom('play_history')
        .select('media_file_id')
        .where('user_id', '=', child.id)
        .where('media_file_id', 'in', hiddenFileIds)
        .execute(),
      favourites: await db
        .selectFrom('favourites')
        .select('movie_id')
        .where('user_id', '=', child.id)
        .where('movie_id', 'in', hiddenMovieIds)
        .execute(),
    };
    assert.deepEqual(kept, { watch: [], history: [], favourites: [] });
    const playing = Buffer.from(await (await as('admin', '/api/sessions/active')).arrayBuffer());
    assert.deepEqual(leaks(playing), []);
    // The same writes do reach a visible film (so "nothing kept" above is the rule, not a dead route).
    const favourite = await fetch(`${base}/jellyfin/UserFavoriteItems/${jfVisible.item}`, {
      method: 'POST',
      headers: { authorization: jellyfinAuth(kid.token) },
    });
    assert.equal(favourite.status, 200, await favourite.clone().text());
    const made = await db
      .selectFrom('favourites')
      .select('movie_id')
      .where('user_id', '=', child.id)
      .execute();
    assert.deepEqual(made, [{ movie_id: ids.g.movieId }]);
    const undone = await fetch(`${base}/jellyfin/UserFavoriteItems/${jfVisible.item}`, {
      method: 'DELETE',
      headers: { authorization: jellyfinAuth(kid.token) },
    });
    assert.equal(undone.status, 200);
  });

  it('lists and counts agree with what the child is shown; the G and PG films are there', async () => {
    const res = await as('child', '/library');
    assert.equal(res.status, 200);
    const library = (await res.json()) as LibraryResponse;
    assert.deepEqual(library.items.map((i) => i.title).sort(), ['Gentle Meadow', 'Puppy Parade']);
    assert.equal(res.headers.get('x-total-count'), '2');
    const counts = /^(\d+) playable · (\d+) need review · (\d+) not playable$/.exec(
      library.health_summary ?? '',
    );
    assert.ok(counts !== null, library.health_summary ?? '');
    assert.equal(Number(counts[1]) + Number(counts[2]) + Number(counts[3]), 2, library.health_summary ?? '');

    const paged = await as('child', '/library?limit=1&offset=1');
    assert.equal(paged.headers.get('x-total-count'), '2');
    assert.equal(((await paged.json()) as LibraryResponse).items.length, 1);

    // The child's listing and the admin's are different representations (a 304 never crosses over).
    const adminTag = (await as('admin', '/library')).headers.get('etag') ?? '';
    const childTag = res.headers.get('etag') ?? '';
    assert.notEqual(childTag, adminTag);
    const revalidated = await as('child', '/library', { headers: { 'if-none-match': childTag } });
    assert.equal(revalidated.status, 304);
    const crossed = await as('child', '/library', { headers: { 'if-none-match': adminTag } });
    assert.equal(crossed.status, 200);

    const movies = (await (await as('child', '/api/movies')).json()) as {
      items: { title: string }[];
      total: number;
    };
    assert.deepEqual(movies.items.map((m) => m.title).sort(), ['Gentle Meadow', 'Puppy Parade']);
    assert.equal(movies.total, 2);
    const search = (await (await as('child', '/api/movies?q=razorwire')).json()) as {
      items: unknown[];
      total: number;
    };
    assert.deepEqual(search, { items: [], total: 0 });
    const found = (await (await as('child', '/api/movies?q=puppy')).json()) as {
      items: unknown[];
      total: number;
    };
    assert.equal(found.total, 1);

    const page = await (await as('child', '/library?q=parade', { accept: 'text/html' })).text();
    assert.match(page, /Puppy Parade/);
    assert.match(page, /of 1 movies \(2 in the library\)/);
  });

  it('the visible films open, stream and show their poster', async () => {
    for (const key of ['g', 'pg'] as const) {
      const { movieId, fileId } = ids[key];
      const detail = await as('child', `/api/movies/${movieId}`);
      assert.equal(detail.status, 200);
      assert.equal(((await detail.json()) as MovieDetail).certification, key === 'g' ? 'G' : 'PG');
      assert.equal((await as('child', `/movie/${movieId}`, { accept: 'text/html' })).status, 200);
      const poster = await as('child', `/artwork/${movieId}/poster`);
      assert.equal(poster.status, 200);
      assert.match(poster.headers.get('content-type') ?? '', /^image\/jpeg/);
      const info = await as('child', `/api/media-file/${fileId}/playback`);
      assert.equal(info.status, 200);
      const { stream_url } = (await info.json()) as { stream_url: string };
      const stream = await fetch(`${base}${stream_url}`, { headers: { range: 'bytes=0-99' } });
      assert.equal(stream.status, 206, `${stream_url}: ${await stream.clone().text()}`);
      assert.equal((await stream.arrayBuffer()).byteLength, 100);
    }
  });

  it('a film whose limit is lowered after it was played leaves the child’s history, continue row and their counts; its old token serves nothing', async () => {
    const { movieId, fileId } = ids.pg;
    const info = (await (await as('child', `/api/media-file/${fileId}/playback`)).json()) as {
      stream_url: string;
    };
    const saved = await as('child', `/api/media-file/${fileId}/progress`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ position_seconds: 60 }),
    });
    assert.equal(saved.status, 200, await saved.clone().text());
    const mine = async () => ({
      history: (await (await as('child', '/api/me/history')).json()) as {
        items: { media_file_id: number | null }[];
        total: number;
      },
      resume: (await (await as('child', '/api/me/continue')).json()) as {
        items: { media_file_id: number }[];
      },
      page: await (await as('child', '/history', { accept: 'text/html' })).text(),
    });
    const before = await mine();
    // The child's listing, asked twice: the second answer is the kept filtered body (and, below,
    // not a stale one once the film is hidden).
    const listed = async () => (await (await as('child', '/library')).text()).includes('Puppy Parade');
    assert.equal(await listed(), true);
    assert.equal(await listed(), true);
    assert.ok(
      before.history.items.some((i) => i.media_file_id === fileId),
      'played: in the history',
    );
    assert.ok(
      before.resume.items.some((i) => i.media_file_id === fileId),
      'stopped early: to continue',
    );
    assert.match(before.page, /Puppy Parade/);
    const patch = (certification: string) =>
      as('admin', `/api/movies/${movieId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ certification }),
      });
    assert.equal((await patch('R')).status, 200);
    try {
      const after = await mine();
      assert.ok(!after.history.items.some((i) => i.media_file_id === fileId), JSON.stringify(after.history));
      assert.equal(
        after.history.total,
        before.history.total - before.history.items.filter((i) => i.media_file_id === fileId).length,
      );
      assert.equal(after.history.total, after.history.items.length, 'the count agrees with what is shown');
      assert.ok(!after.resume.items.some((i) => i.media_file_id === fileId));
      assert.doesNotMatch(after.page, /Puppy Parade/);
      assert.equal(await listed(), false, 'the kept filtered listing follows the change');
      const stream = await fetch(`${base}${info.stream_url}`, { headers: { range: 'bytes=0-99' } });
      assert.equal(stream.status, 404, 'a token made before the limit changed serves nothing');
    } finally {
      assert.equal((await patch('PG')).status, 200);
    }
  });

  it('a job naming a hidden film is hidden too (the by-id guard reads its payload)', async () => {
    const db = server.database.db;
    const now = new Date().toISOString();
    const job = await db
      .insertInto('jobs')
      .values({
        kind: 'enrich',
        dedupe_key: null,
        status: 'succeeded',
        payload_json: JSON.stringify({ movieIds: [ids.g.movieId, ids.r.movieId] }),
        progress_done: 2,
        progress_total: 2,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const child = { userId: 0, limit: { maxCertification: 'PG', allowUnrated: false } };
    assert.equal(await server.services.visibility.canSee(child, { jobId: job.id }), false);
    assert.equal(await server.services.visibility.canSee(null, { jobId: job.id }), true);
    assert.equal(await server.services.visibility.canSee(child, { movieId: ids.pg.movieId }), true);
    assert.equal(await server.services.visibility.canSee(child, { mediaFileId: orphanFileId }), false);
    const unrated = { userId: 0, limit: { maxCertification: 'PG', allowUnrated: true } };
    assert.equal(await server.services.visibility.canSee(unrated, { mediaFileId: orphanFileId }), true);
    assert.equal(await server.services.visibility.canSee(unrated, { movieId: ids.r.movieId }), false);
    // What a stream route checking its token's person by itself calls: a missing id's 404.
    await assert.rejects(
      server.services.visibility.assertVisible(child, { mediaFileId: ids.r.fileId }),
      (err: unknown) =>
        err instanceof Error &&
        err.message === `No media file with id ${ids.r.fileId}.` &&
        'status' in err &&
        err.status === 404,
    );
    await server.services.visibility.assertVisible(child, { mediaFileId: ids.g.fileId });
  });
});

/** A route of the Jellyfin facade (registered in lower case under /jellyfin). */
function isJellyfinRoute(route: Route): boolean {
  return route.url === '/jellyfin' || route.url.startsWith('/jellyfin/');
}

/** A 32-hex id in the dashed form apps also send (8-4-4-4-12). */
function dashed(id: string): string {
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

/** 4 KiB from the middle of a file: what its bytes in an answer would contain. */
function sample(bytes: Buffer): Buffer {
  const at = Math.max(0, Math.floor(bytes.length / 2) - 2048);
  return Buffer.from(bytes.subarray(at, at + 4096));
}
