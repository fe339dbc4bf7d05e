// Issue 27 item 5: GET /api/export?format=letterboxd (admins) and GET /api/export/letterboxd (anyone's
// own) on the engine under test — the exact header, RFC 4180 quoting, a watched film with the date of
// the person's last play or watched mark, and the person's content limit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MovieDetail } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { signInSession } from '../helpers/household.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;
const HEADER = 'Title,Year,tmdbID,WatchedDate,Rating';

async function create(body: Record<string, unknown>): Promise<MovieDetail> {
  const res = await t.api('/api/movies', jsonBody('POST', body));
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as MovieDetail;
}

async function text(res: Response): Promise<string> {
  const body = await res.text();
  assert.equal(res.status, 200, body);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
  return body;
}

describe('Letterboxd export', () => {
  let member: { id: number; headers: Record<string, string> };
  before(async () => {
    t = await startTestServer();
    await create({ title: 'Paris, Texas', year: 1984, watched: true });
    await create({ title: 'The "Good" Film', year: 2020, watched: true });
    await create({ title: 'Never Seen', year: 2000 });
    const heat = await create({ title: 'Heat', year: 1995, tmdb_id: 949 });
    const adult = await create({ title: 'Adult Film', year: 2001, tmdb_id: 1001 });
    const db = t.server.database.db;
    await db.updateTable('movies').set({ certification: 'R' }).where('id', '=', adult.id).execute();
    const user = await t.api(
      '/api/users',
      jsonBody('POST', {
        name: 'Anna',
        role: 'member',
        password: 'anna password 123',
        max_certification: 'PG-13',
      }),
    );
    assert.equal(user.status, 201, await user.clone().text());
    const anna = (await user.json()) as { id: number };
    const { cookie } = await signInSession(t, 'Anna', 'anna password 123');
    member = { id: anna.id, headers: { cookie } };
    // Anna watched Heat to the end on a file (her watched mark), and played the R-rated film,
    // which her limit hides; the admin played Heat earlier.
    const root = await db
      .insertInto('library_roots')
      .values({ path: '/films', name: 'films', collection_id: null, created_at: 'x', last_scan_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const file = await db
      .insertInto('media_files')
      .values({
        movie_id: heat.id,
        edition_id: null,
        library_root_id: root.id,
        relative_path: 'Heat (1995).mkv',
        size_bytes: 1,
        mtime_ms: 1,
        fingerprint: null,
        edition_label: null,
        capabilities_json: null,
        analysis_error: null,
        analyzed_size_bytes: null,
        analyzed_fingerprint: null,
        analyzed_at: null,
        missing_since: null,
        created_at: 'x',
        updated_at: 'x',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('watch_state')
      .values({
        user_id: anna.id,
        media_file_id: file.id,
        movie_id: heat.id,
        position_seconds: 0,
        watched: 1,
        updated_at: '2026-03-04T21:30:00.000Z',
      })
      .execute();
    const play = (userId: number, movieId: number, at: string) => ({
      user_id: userId,
      media_file_id: null,
      movie_id: movieId,
      title: 'x',
      device: 'web',
      mode: 'direct',
      started_at: at,
      updated_at: at,
      position_seconds: 100,
      duration_seconds: 6000,
    });
    const admin = await db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('play_history')
      .values([
        play(admin.id, heat.id, '2025-12-31T23:00:00.000Z'),
        play(anna.id, heat.id, '2026-03-01T20:00:00.000Z'),
        play(anna.id, adult.id, '2026-03-02T20:00:00.000Z'),
      ])
      .execute();
    await db.updateTable('movies').set({ watched: 1 }).where('id', '=', adult.id).execute();
  });
  after(() => t.close());

  it("the admin's: the exact header, quoting, watched films only, their own play's date", async () => {
    const res = await t.api('/api/export?format=letterboxd');
    assert.match(
      res.headers.get('content-disposition') ?? '',
      /attachment; filename="reelshelf-letterboxd.csv"/,
    );
    assert.equal(
      await text(res),
      [
        HEADER,
        'Adult Film,2001,1001,,',
        '"The ""Good"" Film",2020,,,',
        // Not marked watched by the library, not by the admin: the admin's play alone is no "watched".
        '"Paris, Texas",1984,,,',
        '',
      ].join('\r\n'),
    );
  });

  it("the typed client's letterboxd() is the caller's own, the same as the admin's export", async () => {
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    assert.equal(await client.letterboxd(), await client.export('letterboxd'));
  });

  it("a member's own: their watched mark and last play, through their content limit", async () => {
    const own = await text(await fetch(`${t.url}/api/export/letterboxd`, { headers: member.headers }));
    assert.equal(
      own,
      [HEADER, '"The ""Good"" Film",2020,,,', 'Heat,1995,949,2026-03-04,', '"Paris, Texas",1984,,,', ''].join(
        '\r\n',
      ),
    );
    assert.equal(own.includes('Adult Film'), false, 'hidden by her limit');
    const refused = await fetch(`${t.url}/api/export?format=letterboxd`, { headers: member.headers });
    assert.equal(refused.status, 403, 'the whole-library export stays the admins');
  });
});
