// `reelshelf migrate-database --to postgres://…` (issue 26 item 4): a SQLite library built through
// the API (a real scan of generated media with a subtitle and a poster beside it, movies with
// editions and copies in binders, an import, artwork, people with their own watch state, keys,
// favourites, finished jobs) moved into an empty PostgreSQL database by the real CLI, then served
// from there: the JSON export is byte-identical, the ids are the same, what each person sees is the
// same, and a new movie gets a fresh id. And the refusals: a non-empty target, a target that changes
// what it is given, a missing or non-PostgreSQL --to, an unreachable server — each with a clear
// message, no stack trace, no password, nothing written. Runs on a real PostgreSQL whatever engine the
// suite is on (helpers/postgres-cluster.ts); the library is always SQLite.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { migrateDatabase } from '../../src/cli/migrate-database.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { PostgresCopyTarget, SqliteCopySource } from '../../src/repositories/database-copy.repository.ts';
import {
  DatabaseMigrationService,
  type MigrationProgress,
} from '../../src/services/system/database-migration.service.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { postgresForTests, type PostgresForTests } from '../helpers/postgres-cluster.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const execFileAsync = promisify(execFile);
const REPO = new URL('../../../', import.meta.url).pathname;
/** The target's password in every URL given (the test cluster trusts 127.0.0.1, so any is accepted). */
const SECRET = 'Sup3r-Secret-pw';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `reelshelf migrate-database …` on the data dir's SQLite library, as a person would. */
async function migrate(dataDir: string, args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [join(REPO, 'bin/reelshelf.mjs'), 'migrate-database', ...args],
      {
        cwd: REPO,
        env: {
          ...process.env,
          REELSHELF_DATA_DIR: dataDir,
          REELSHELF_DATABASE_URL: `sqlite:${join(dataDir, 'reelshelf.sqlite')}`,
          REELSHELF_LOG_LEVEL: 'silent',
        },
        timeout: 120_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * The same command in this process (no tsx start-up per run: the refusals are many and cheap), its
 * output captured; the config is read from the same environment the CLI would see.
 */
async function migrateHere(
  dataDir: string,
  args: string[],
  sourceUrl = `sqlite:${join(dataDir, 'reelshelf.sqlite')}`,
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const config = loadConfig({
    REELSHELF_DATA_DIR: dataDir,
    REELSHELF_DATABASE_URL: sourceUrl,
    REELSHELF_LOG_LEVEL: 'silent',
  });
  const code = await migrateDatabase(config, args, {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

/** A URL of the cluster's database with SECRET as its password. */
function withSecret(url: string): string {
  const u = new URL(url);
  u.password = SECRET;
  return u.href;
}

/** The output says what went wrong in a line, with no stack trace and no password. */
function assertCleanRefusal(run: CliRun, code: number, message: RegExp): void {
  assert.equal(run.code, code, `exit ${run.code}: ${run.stderr}`);
  assert.match(run.stderr, message);
  const all = run.stdout + run.stderr;
  assert.ok(!all.includes(SECRET), `the password is never printed:\n${all}`);
  assert.ok(!/\n\s+at .+:\d+:\d+/.test(all), `no stack trace:\n${all}`);
}

/** Every table's row count on the target, by table (what a refusal must leave as it was). */
async function targetRows(cluster: PostgresForTests, url: string): Promise<Record<string, number>> {
  const tables = await cluster.query<{ table_name: string }>(
    url,
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await cluster.query<{ n: string }>(url, `select count(*) as n from "${table_name}"`);
    out[table_name] = Number(row?.n);
  }
  return out;
}

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

interface Person {
  name: string;
  password: string;
  key: string;
  jellyfinToken: string;
}

/** What the library looks like through the API: compared before and after the move. */
interface Views {
  exportJson: Buffer;
  exportCsv: Buffer;
  movies: unknown;
  details: unknown[];
  jobs: unknown;
  users: unknown;
  perPerson: Record<string, unknown>;
  poster: Buffer;
}

async function body(res: Response, what: string): Promise<unknown> {
  assert.equal(res.status, 200, `${what}: ${res.status} ${await res.clone().text()}`);
  return res.json();
}

describe('reelshelf migrate-database', () => {
  let cluster: PostgresForTests;
  const work = mkdtempSync(join(tmpdir(), 'reelshelf-migrate-'));
  const dataDir = join(work, 'data');
  const media = join(work, 'media');
  const people: Person[] = [];
  let before_: Views;
  let ids: { movies: number[]; files: number[]; deleted: number; alpha: number; alphaFile: number };

  const bearer = (t: TestServer, token: string, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(`${t.url}${path}`, { ...init, headers });
  };
  const jellyfin = (t: TestServer, token: string, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set(
      'authorization',
      `MediaBrowser Client="Findroid", Device="Shield", DeviceId="d", Version="1", Token="${token}"`,
    );
    return fetch(`${t.url}${path}`, { ...init, headers });
  };

  async function views(t: TestServer): Promise<Views> {
    const movies = (await body(await t.api('/api/movies?limit=500'), 'movies')) as {
      items: { id: number }[];
    };
    const details: unknown[] = [];
    for (const m of movies.items)
      details.push(await body(await t.api(`/api/movies/${m.id}`), `movie ${m.id}`));
    const perPerson: Record<string, unknown> = {};
    for (const p of people) {
      perPerson[p.name] = {
        me: await body(await bearer(t, p.key, '/api/me'), `${p.name} /api/me`),
        continue: await body(await bearer(t, p.key, '/api/me/continue'), `${p.name} continue`),
        history: await body(await bearer(t, p.key, '/api/me/history'), `${p.name} history`),
        // Read from the database: the Jellyfin catalogue that shows them is not on PostgreSQL yet.
        favourites: (
          await t.server.database.db
            .selectFrom('favourites')
            .innerJoin('users', 'users.id', 'favourites.user_id')
            .innerJoin('movies', 'movies.id', 'favourites.movie_id')
            .select(['movies.id', 'movies.title', 'favourites.created_at'])
            .where('users.name', '=', p.name)
            .orderBy('movies.id')
            .execute()
        ).map((f) => `${f.id} ${f.title} ${f.created_at}`),
      };
    }
    const poster = await t.api(`/artwork/${ids.alpha}/poster`);
    assert.equal(poster.status, 200, 'the poster found beside the media is served');
    return {
      exportJson: Buffer.from(await (await t.api('/api/export?format=json')).arrayBuffer()),
      exportCsv: Buffer.from(await (await t.api('/api/export?format=csv')).arrayBuffer()),
      movies,
      details,
      jobs: await body(await t.api('/api/jobs?limit=100'), 'jobs'),
      users: await body(await t.api('/api/users'), 'users'),
      perPerson,
      poster: Buffer.from(await poster.arrayBuffer()),
    };
  }

  before(async () => {
    cluster = await postgresForTests();
    // Media: a 400-s film (positions in it are kept: the resume rule) with an English subtitle and a
    // poster beside it, and a short one.
    const alphaDir = join(media, 'Alpha (2001)');
    mkdirSync(alphaDir, { recursive: true });
    await makeFixture('h264_aac_long.mp4', join(alphaDir, 'Alpha (2001).mp4'), 400);
    await makeFixture('h264_aac.mp4', join(media, 'Beta (2002)', 'Beta (2002).mp4'), 1);
    writeFileSync(join(alphaDir, 'Alpha (2001).en.srt'), '1\n00:00:00,100 --> 00:00:00,900\nHello\n');
    await execFileAsync(fixtureFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x96'],
      ...['-frames:v', '1', join(alphaDir, 'poster.jpg')],
    ]);

    const t = await startTestServer({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DATABASE_URL: `sqlite:${join(dataDir, 'reelshelf.sqlite')}`,
    });
    try {
      const root = (await (await t.api('/api/library-roots', jsonBody('POST', { path: media }))).json()) as {
        id: number;
      };
      const scan = await t.api(`/api/library-roots/${root.id}/scan?wait=true`, { method: 'POST' });
      assert.equal(scan.status, 200, await scan.clone().text());
      for (const movie of [
        {
          title: 'Gamma',
          year: 1999,
          physical_copies: [
            { binder: 'A', slot: '1', format: 'Blu-ray', edition: 'Steelbook' },
            { binder: 'A', slot: '2', format: 'DVD' },
          ],
        },
        { title: 'Délta Ñandú', year: 2010, physical_copies: [{ binder: 'B', slot: '7', format: '4K UHD' }] },
      ]) {
        const res = await t.api('/api/movies', jsonBody('POST', movie));
        assert.equal(res.status, 201, await res.clone().text());
        // A disc lent out and one lent and returned (issue 27): loans move with the library.
        const copyId = ((await res.json()) as { physical_copies: { id: number }[] }).physical_copies[0]?.id;
        const lent = await t.api(
          `/api/physical-copies/${copyId}/loan`,
          jsonBody('POST', { to: 'Sam', due: '2026-03-20' }),
        );
        assert.equal(lent.status, 201, await lent.text());
        if (movie.title === 'Gamma') {
          const back = await t.api(`/api/physical-copies/${copyId}/loan`, { method: 'DELETE' });
          assert.equal(back.status, 200, await back.text());
        }
      }
      const csv =
        'Title,Year,Format,Edition,Binder,Slot,Watched\n"Les Misérables",1998,DVD,"Édition ""collector""",Bïnder Ü,1,yes\n';
      const imported = await t.api('/api/import', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: csv,
      });
      assert.equal(imported.status, 200, await imported.clone().text());
      const art = await t.api('/api/artwork/fetch?wait=true', jsonBody('POST', {}));
      assert.equal(art.status, 200, await art.clone().text());

      // The wish list (migration 0020): copied with its ids, and its sequence advanced.
      for (const wish of [
        { title: 'Stalker', year: 1979 },
        { title: 'Paris, Texas', year: 1984, tmdb_id: 655 },
      ]) {
        const res = await t.api('/api/wishes', jsonBody('POST', wish));
        assert.equal(res.status, 201, await res.clone().text());
      }

      const doomed = await t.api('/api/movies', jsonBody('POST', { title: 'Doomed', year: 2020 }));
      assert.equal(doomed.status, 201, await doomed.clone().text());
      const list = (await (await t.api('/api/movies?limit=500')).json()) as {
        items: { id: number; title: string }[];
      };
      const byTitle = (title: string) => list.items.find((m) => m.title === title)?.id ?? -1;
      // The last movie made goes: the target must never hand its id out again (AUTOINCREMENT).
      const deleted = byTitle('Doomed');
      assert.equal(deleted, Math.max(...list.items.map((m) => m.id)), 'the newest movie is deleted');
      assert.equal((await t.api(`/api/movies/${deleted}`, { method: 'DELETE' })).status, 204);
      const alpha = byTitle('Alpha');
      assert.equal(
        (await t.api(`/api/movies/${alpha}`, jsonBody('PATCH', { certification: 'G' }))).status,
        200,
      );
      const alphaDetail = (await (await t.api(`/api/movies/${alpha}`)).json()) as {
        media_files: { id: number }[];
      };
      const alphaFile = alphaDetail.media_files[0]?.id ?? -1;

      // People, each with a key, a Jellyfin sign-in and their own state.
      for (const person of [
        { name: 'Anna', password: 'correct horse battery', role: 'member' },
        {
          name: 'Kid',
          password: 'kid password 123',
          role: 'child',
          max_certification: 'PG',
          allow_unrated: false,
        },
      ]) {
        const made = await t.api('/api/users', jsonBody('POST', person));
        assert.equal(made.status, 201, await made.clone().text());
        const user = (await made.json()) as { id: number };
        const key = await t.api(
          '/api/keys',
          jsonBody('POST', { name: `${person.name}'s TV`, scope: 'playback', user: user.id }),
        );
        assert.equal(key.status, 201, await key.clone().text());
        const signedIn = await fetch(`${t.url}/jellyfin/Users/AuthenticateByName`, {
          method: 'POST',
          headers: {
            authorization: `MediaBrowser Client="Findroid", Device="Shield", DeviceId="${person.name}", Version="0.15.0"`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ Username: person.name, Pw: person.password }),
        });
        assert.equal(signedIn.status, 200, await signedIn.clone().text());
        people.push({
          name: person.name,
          password: person.password,
          key: ((await key.json()) as { key: string }).key,
          jellyfinToken: ((await signedIn.json()) as { AccessToken: string }).AccessToken,
        });
      }
      const [anna, kid] = people as [Person, Person];
      const progress = (token: string, seconds: number) =>
        bearer(
          t,
          token,
          `/api/media-file/${alphaFile}/progress`,
          jsonBody('PUT', { position_seconds: seconds }),
        );
      assert.equal((await progress(anna.key, 100)).status, 200);
      assert.equal((await progress(kid.key, 40)).status, 200);
      assert.equal((await progress(t.token, 390)).status, 200, "the admin's: past 90 %, watched");
      const items = (await body(
        await jellyfin(t, anna.jellyfinToken, '/jellyfin/Items?Recursive=true&IncludeItemTypes=Movie'),
        'items',
      )) as { Items: { Id: string; Name: string }[] };
      const gamma = items.Items.find((i) => i.Name === 'Gamma')?.Id ?? '';
      assert.equal(
        (await jellyfin(t, anna.jellyfinToken, `/jellyfin/UserFavoriteItems/${gamma}`, { method: 'POST' }))
          .status,
        200,
      );

      ids = {
        movies: list.items.map((m) => m.id).filter((id) => id !== deleted),
        files: [alphaFile],
        deleted,
        alpha,
        alphaFile,
      };
      before_ = await views(t);
    } finally {
      await t.close();
    }
  });
  after(async () => {
    // On a PostgreSQL run, startTestServer also made the data dir's own test database (unused here:
    // the library is SQLite, the target is a database of the cluster helper's).
    if (testEngine === 'postgres') dropTestDatabase(testDatabaseUrl(dataDir));
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('moves the library: the same export, ids, people and state on PostgreSQL; new ids are fresh', async () => {
    const url = await cluster.createDatabase();
    const run = await migrate(dataDir, ['--to', withSecret(url)]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!(run.stdout + run.stderr).includes(SECRET), 'the password is never printed');
    assert.match(run.stderr, /postgres:\/\/reelshelf:\*\*\*@127\.0\.0\.1/);
    for (const table of [
      'movies',
      'media_files',
      'disc_editions',
      'physical_copies',
      'loans',
      'watch_state',
      'jobs',
      'users',
      'api_keys',
      'favourites',
      'subtitle_sidecars',
      'movie_artwork_state',
    ]) {
      assert.match(
        run.stdout,
        new RegExp(`^${table} +[1-9]\\d* +ok [0-9a-f]{16}…`, 'm'),
        `${table} copied and verified:\n${run.stdout}`,
      );
    }
    assert.match(run.stdout, /not copied \(derived or engine-specific\): .*movie_search/);
    assert.match(run.stdout, /every count and checksum matches/);

    const t = await startTestServer({
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DATABASE_URL: url,
    });
    try {
      assert.equal(t.server.database.engine, 'postgres');
      const after_ = await views(t);
      assert.ok(before_.exportJson.length > 500, 'a real export');
      assert.equal(after_.exportJson.toString('utf8'), before_.exportJson.toString('utf8'));
      assert.ok(after_.exportJson.equals(before_.exportJson), 'the JSON export is byte-identical');
      assert.ok(after_.exportCsv.equals(before_.exportCsv), 'the CSV export is byte-identical');
      assert.deepEqual(after_.movies, before_.movies, 'the same movies with the same ids');
      assert.deepEqual(after_.details, before_.details, 'editions, copies, files (same ids), certification');
      assert.deepEqual(after_.jobs, before_.jobs, 'the jobs history');
      assert.deepEqual(after_.users, before_.users);
      assert.deepEqual(
        after_.perPerson,
        before_.perPerson,
        "each person's own state, keys and Jellyfin sign-in",
      );
      assert.ok(after_.poster.equals(before_.poster), 'the artwork');
      const anna = before_.perPerson.Anna as { continue: { items: unknown[] }; favourites: string[] };
      assert.equal(anna.continue.items.length, 1, "Anna's film to continue is there");
      assert.match(anna.favourites.join('\n'), /^\d+ Gamma /);

      // Sequences advanced past every id the library ever handed out (the deleted movie's too).
      const made = await t.api(
        '/api/movies',
        jsonBody('POST', { title: 'After the move', physical_copies: [{ binder: 'A', slot: '3' }] }),
      );
      assert.equal(made.status, 201, await made.clone().text());
      const fresh = (await made.json()) as { id: number };
      assert.equal(fresh.id, ids.deleted + 1, `a fresh id after ${ids.deleted}`);
      const user = await t.api(
        '/api/users',
        jsonBody('POST', { name: 'Newcomer', password: 'newcomer password', role: 'member' }),
      );
      assert.equal(user.status, 201, await user.clone().text());
      const wishes = (await (await t.api('/api/wishes')).json()) as {
        items: { id: number; title: string }[];
      };
      assert.deepEqual(
        wishes.items.map((w) => w.title),
        ['Paris, Texas', 'Stalker'],
      );
      const wished = await t.api('/api/wishes', jsonBody('POST', { title: 'Solaris', year: 1972 }));
      assert.equal(wished.status, 201, await wished.clone().text());
      const next = ((await wished.json()) as { id: number }).id;
      assert.equal(next, Math.max(...wishes.items.map((w) => w.id)) + 1, 'a fresh wish id');
    } finally {
      await t.close();
    }
  });

  it('calls reelshelf_rebuild_search() on the target after the copy, inside its transaction', async () => {
    const url = await cluster.createDatabase();
    const target = await openDatabase(url, { pool: 1 });
    await target.close();
    // Stands in for the search's own rebuild: records how many movies it saw when it ran.
    await cluster.query(url, 'CREATE TABLE rebuild_calls (movies integer NOT NULL)');
    // (Dropped first: the migrations' own returns another type, which CREATE OR REPLACE cannot change.)
    await cluster.query(url, 'DROP FUNCTION IF EXISTS reelshelf_rebuild_search()');
    await cluster.query(
      url,
      `CREATE FUNCTION reelshelf_rebuild_search() RETURNS void LANGUAGE sql AS
        $$ INSERT INTO rebuild_calls SELECT count(*) FROM movies $$`,
    );
    const run = await migrateHere(dataDir, ['--to', url]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /search index rebuilt on the target \(reelshelf_rebuild_search\)/);
    const calls = await cluster.query<{ movies: number }>(url, 'SELECT movies FROM rebuild_calls');
    assert.deepEqual(
      calls.map((c) => c.movies),
      [(before_.movies as { items: unknown[] }).items.length],
      'once, with every movie in',
    );
  });

  it('reads every table in key batches (a composite key across batch ends too), with progress', async () => {
    const url = await cluster.createDatabase();
    const source = await openDatabase(`sqlite:${join(dataDir, 'reelshelf.sqlite')}`);
    const target = await openDatabase(url, { pool: 2 });
    try {
      const progress: MigrationProgress[] = [];
      // Two rows a batch: every table of more than two rows is read after a key, the way a large
      // library's are (1,000 a batch); watch_state's key is (user_id, media_file_id).
      const report = await new DatabaseMigrationService(
        new SqliteCopySource(source.db),
        new PostgresCopyTarget(target.db, true),
        { batchSize: 2 },
      ).migrate((p) => progress.push(p));
      const rows = new Map(report.tables.map((t) => [t.table, t.rows]));
      assert.equal(rows.get('watch_state'), 3, 'three people, one file each');
      assert.ok((rows.get('movies') ?? 0) >= 5 && (rows.get('jobs') ?? 0) >= 3, JSON.stringify([...rows]));
      const total = report.tables.reduce((n, t) => n + t.rows, 0);
      for (const phase of ['copying', 'verifying'] as const) {
        const seen = progress.filter((p) => p.phase === phase).map((p) => p.done);
        assert.deepEqual(
          seen,
          [...seen].sort((a, b) => a - b),
          `${phase} only moves forward`,
        );
        assert.equal(seen.at(-1), total, `${phase} ends at every row`);
        const batches = report.tables.reduce((n, t) => n + Math.ceil(t.rows / 2), 0);
        assert.equal(seen.length, 1 + batches, `${phase}: a report at the start, then one per batch`);
      }
      const watch = await target.db
        .selectFrom('watch_state')
        .select(['user_id', 'position_seconds', 'watched'])
        .orderBy('user_id')
        .execute();
      assert.deepEqual(
        watch.map((w) => [w.user_id, w.position_seconds, w.watched]),
        [
          [1, 0, 1],
          [2, 100, 0],
          [3, 40, 0],
        ],
        "each person's own position: the admin's film is watched",
      );
    } finally {
      await target.close();
      await source.close();
    }
  });

  it('refuses a target that holds rows, naming the tables; nothing is written', async () => {
    const url = await cluster.createDatabase();
    const target = await openDatabase(url, { pool: 1 });
    const now = new Date().toISOString();
    await target.db.insertInto('binders').values({ name: 'Theirs', capacity: 10, created_at: now }).execute();
    await target.close();
    const rowsBefore = await targetRows(cluster, url);
    const run = await migrateHere(dataDir, ['--to', withSecret(url)]);
    assertCleanRefusal(run, 1, /the target database is not empty: binders \(1 row\); nothing was written/);
    assert.deepEqual(await targetRows(cluster, url), rowsBefore, 'the target is as it was');
  });

  it('rolls everything back when a table does not read back as it was written, naming it', async () => {
    const url = await cluster.createDatabase();
    const target = await openDatabase(url, { pool: 1 });
    await target.close();
    // A target that silently changes what it is given: the checksum must see it.
    await cluster.query(
      url,
      `CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.title := upper(NEW.title); RETURN NEW; END $$`,
    );
    await cluster.query(
      url,
      'CREATE TRIGGER shout BEFORE INSERT ON movies FOR EACH ROW EXECUTE FUNCTION shout()',
    );
    const rowsBefore = await targetRows(cluster, url);
    const run = await migrateHere(dataDir, ['--to', withSecret(url)]);
    assertCleanRefusal(run, 1, /movies did not copy faithfully: the content checksums differ .*rolled back/);
    assert.deepEqual(await targetRows(cluster, url), rowsBefore, 'the target holds nothing of the library');
  });

  it('refuses a missing or non-PostgreSQL --to, a source that is not a SQLite library, an unreachable server', async () => {
    assertCleanRefusal(await migrateHere(dataDir, []), 2, /migrate-database needs --to/);
    assertCleanRefusal(
      await migrateHere(dataDir, ['--to', `mysql://me:${SECRET}@127.0.0.1/db`]),
      2,
      /--to mysql:\/\/me:\*\*\*@127\.0\.0\.1\/db is not a PostgreSQL URL/,
    );
    assertCleanRefusal(
      await migrateHere(dataDir, ['--to', join(work, 'other.sqlite')]),
      2,
      /is not a PostgreSQL URL/,
    );
    const someTarget = ['--to', `postgres://reelshelf:${SECRET}@127.0.0.1:5432/x`];
    assertCleanRefusal(
      await migrateHere(dataDir, someTarget, `postgres://me:${SECRET}@127.0.0.1/library`),
      2,
      /REELSHELF_DATABASE_URL=postgres:\/\/me:\*\*\*@127\.0\.0\.1\/library\) is not SQLite/,
    );
    assertCleanRefusal(
      await migrateHere(join(work, 'no-library'), someTarget),
      1,
      /no library at .*no-library\/reelshelf\.sqlite: nothing to migrate/,
    );
    const port = await closedPort();
    assertCleanRefusal(
      // Through the real binary: what a person sees, from the process's own error path too.
      await migrate(dataDir, ['--to', `postgres://reelshelf:${SECRET}@127.0.0.1:${port}/nowhere`]),
      1,
      new RegExp(
        `cannot open the target postgres://reelshelf:\\*\\*\\*@127\\.0\\.0\\.1:${port}/nowhere: cannot reach PostgreSQL`,
      ),
    );
  });
});
