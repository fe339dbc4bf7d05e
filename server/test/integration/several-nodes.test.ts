// Two reelshelf nodes on one database and one data dir (issue 26 "Several nodes, one library"):
// what one node writes, the other lists at once (its cached /library and ETag move; a loan too), a playback token
// one node signs streams from the other, a key revoked on one is refused by the other at once, and imports sent to both at once create each movie once. On SQLite both nodes share the
// file (another connection's commits are seen through data_version); the concurrent cases need
// PostgreSQL (SQLite is one node: docs/database.md).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { makeFixture } from '../helpers/media.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const POSTGRES_ONLY = testEngine === 'postgres' ? false : 'several writing nodes need PostgreSQL';

async function library(
  t: TestServer,
  etag?: string,
): Promise<{ status: number; etag: string; body: LibraryResponse | null }> {
  const res = await t.api('/library?device=web', {
    headers: { accept: 'application/json', ...(etag === undefined ? {} : { 'if-none-match': etag }) },
  });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag') ?? '',
    body: res.status === 200 ? (JSON.parse(text) as LibraryResponse) : null,
  };
}

function titles(body: LibraryResponse | null): string[] {
  return (body?.items ?? []).map((m) => m.title).sort();
}

async function importCsv(t: TestServer, csv: string): Promise<Response> {
  return t.api('/api/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv });
}

function collectionCsv(rows: number, prefix: string): string {
  const lines = ['Title,Year,Format'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix} ${i + 1},${1950 + (i % 70)},DVD`);
  return `${lines.join('\n')}\n`;
}

describe('several nodes on one database', () => {
  let dataDir: string;
  let media: string;
  let databaseUrl: string;
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-nodes-'));
    media = mkdtempSync(join(tmpdir(), 'reelshelf-nodes-media-'));
    databaseUrl = testDatabaseUrl(dataDir);
    // One admin token for both, as a deployment sets it (or shares the data dir's file).
    const env = {
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DATABASE_URL: databaseUrl,
      REELSHELF_API_TOKEN: 'node-token-0123456789abcdef',
    };
    a = await startTestServer(env);
    b = await startTestServer(env);
  });

  after(async () => {
    await a?.close();
    await b?.close();
    dropTestDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  it("lists on B a movie created on A at once, and B's ETag moves", async () => {
    const before = await library(b);
    assert.equal(before.status, 200);
    assert.equal((await library(b, before.etag)).status, 304, 'B keeps its listing while nothing changes');
    const created = await a.api('/api/movies', jsonBody('POST', { title: 'Made On A', year: 2001 }));
    assert.equal(created.status, 201);
    const again = await library(b, before.etag);
    assert.equal(again.status, 200, 'the old ETag is stale on B at once');
    assert.notEqual(again.etag, before.etag);
    assert.ok(titles(again.body).includes('Made On A'));
    // An edit on B is seen on A the same way.
    const { id } = (await created.json()) as { id: number };
    const onA = await library(a);
    assert.equal(
      (await b.api(`/api/movies/${id}`, jsonBody('PATCH', { title: 'Renamed On B' }))).status,
      200,
    );
    const afterEdit = await library(a, onA.etag);
    assert.equal(afterEdit.status, 200);
    assert.ok(titles(afterEdit.body).includes('Renamed On B'));
    assert.ok(!titles(afterEdit.body).includes('Made On A'));
  });

  it('lists on B a disc lent on A at once (the loans table is captured), and the return too', async () => {
    const made = await a.api(
      '/api/movies',
      jsonBody('POST', { title: 'Lent On A', year: 2002, physical_copies: [{ binder: 'Nodes', slot: '1' }] }),
    );
    assert.equal(made.status, 201, await made.clone().text());
    const { id, physical_copies: copies } = (await made.json()) as {
      id: number;
      physical_copies: { id: number }[];
    };
    /** The borrower B lists for the disc, null when at home; B must list the movie and its disc. */
    const loanOnB = (listed: { body: LibraryResponse | null }) => {
      const disc = listed.body?.items.find((m) => m.movie_id === id)?.physical_copies?.[0];
      assert.equal(disc?.binder, 'Nodes', 'B lists the movie with its disc');
      return disc.loan?.to ?? null;
    };
    const home = await library(b);
    assert.equal(loanOnB(home), null);
    const lent = await a.api(`/api/physical-copies/${copies[0]?.id}/loan`, jsonBody('POST', { to: 'Sam' }));
    assert.equal(lent.status, 201, await lent.clone().text());
    const out = await library(b, home.etag);
    assert.equal(out.status, 200, "B's ETag moved at once");
    assert.equal(loanOnB(out), 'Sam');
    const back = await a.api(`/api/physical-copies/${copies[0]?.id}/loan`, { method: 'DELETE' });
    assert.equal(back.status, 200, await back.clone().text());
    const returned = await library(b, out.etag);
    assert.equal(returned.status, 200);
    assert.equal(loanOnB(returned), null);
  });

  it('streams from B with a playback token A signed', async () => {
    await makeFixture('h264_aac.mp4', join(media, 'Token Film (2003).mp4'), 1);
    const root = await a.api('/api/library-roots', jsonBody('POST', { path: media }));
    assert.equal(root.status, 201);
    const { id: rootId } = (await root.json()) as { id: number };
    assert.equal(
      (await a.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' })).status,
      200,
    );
    const listed = await library(a);
    const film = listed.body?.items.find((m) => m.title.startsWith('Token Film'));
    const url = film?.editions[0]?.stream_url;
    assert.ok(url, JSON.stringify(film));
    const onB = new URL(url, b.url);
    const res = await fetch(new URL(`${onB.pathname}${onB.search}`, b.url), {
      headers: { range: 'bytes=0-99' },
    });
    assert.equal(res.status, 206);
    assert.equal((await res.arrayBuffer()).byteLength, 100);
  });

  it('refuses on B a key that A revokes, at once', async () => {
    const made = await a.api('/api/keys', jsonBody('POST', { name: 'tv', scope: 'read' }));
    assert.equal(made.status, 201, await made.clone().text());
    const { id, key } = (await made.json()) as { id: number; key: string };
    const me = () => fetch(`${b.url}/api/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await me()).status, 200);
    assert.equal((await a.api(`/api/keys/${id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await me()).status, 401, 'B refuses the revoked key at once');
  });

  it(
    'creates each movie once when the same import reaches both at once',
    { skip: POSTGRES_ONLY },
    async () => {
      const csv = collectionCsv(300, 'Twice');
      const [x, y] = await Promise.all([importCsv(a, csv), importCsv(b, csv)]);
      assert.equal(x.status, 200, await x.clone().text());
      assert.equal(y.status, 200, await y.clone().text());
      const listed = titles((await library(b)).body).filter((t) => t.startsWith('Twice '));
      assert.equal(listed.length, 300);
      assert.equal(new Set(listed).size, 300);
    },
  );

  it(
    'lists exactly 10,000 movies on B after a 10,000-row import sent to A while B serves /library',
    { skip: POSTGRES_ONLY },
    async () => {
      const csv = collectionCsv(10_000, 'Bulk');
      let serving = true;
      let served = 0;
      const reader = (async () => {
        while (serving) {
          const res = await library(b);
          assert.equal(res.status, 200);
          served += 1;
        }
      })();
      const res = await importCsv(a, csv);
      serving = false;
      await reader;
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok(served > 0);
      const listed = titles((await library(b)).body).filter((t) => t.startsWith('Bulk '));
      assert.equal(listed.length, 10_000);
    },
  );
});
