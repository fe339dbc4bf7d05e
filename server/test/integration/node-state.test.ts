// The state a request needs, seen alike by every node on one database (issue 26 item 3,
// docs/cluster.md "Shared node state"): an artifact a worker builds is building, then ready, on an api
// node (its prewarm state and its /library listing); the admin on one node lists a play streaming
// from another and stops it there; failed sign-ins on two nodes count together; one node watches
// the library roots and another takes over when it is killed. Real servers on one database and one
// data dir; the cross-node cases need PostgreSQL (SQLite is one node: docs/database.md), the list of
// plays runs on both engines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { dropTestDatabase, testDatabaseUrl, testEngine } from '../helpers/test-database.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { waitFor } from '../helpers/wait.ts';

const POSTGRES_ONLY = testEngine === 'postgres' ? false : 'several nodes need PostgreSQL';

interface Active {
  id: number;
  user_name: string;
  media_file_id: number;
  device: string;
}

async function activePlays(t: TestServer): Promise<Active[]> {
  const res = await t.api('/api/sessions/active');
  assert.equal(res.status, 200);
  return ((await res.json()) as { items: Active[] }).items;
}

async function prewarmState(t: TestServer, fileId: number): Promise<{ status: string; message?: string }> {
  const res = await t.api(`/api/media-file/${fileId}/prewarm-tv`);
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; message?: string };
}

async function editionOn(t: TestServer, movieId: number, device: string) {
  const body = (await (await t.api(`/library?device=${device}`)).json()) as LibraryResponse;
  const item = body.items.find((i) => i.movie_id === movieId);
  return item?.editions[item.default_edition_index];
}

async function signInFails(t: TestServer, name: string): Promise<number> {
  const res = await fetch(`${t.url}/api/sessions`, jsonBody('POST', { name, password: 'not the password' }));
  await res.arrayBuffer();
  return res.status;
}

describe('node state shared by every node', () => {
  let dataDir: string;
  let media: string;
  let databaseUrl: string;
  /** Serves only (never runs a job). */
  let api: TestServer;
  /** Runs the jobs (and serves what is sent to it). */
  let worker: TestServer;
  let ids: Record<string, { movieId: number; fileId: number }>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-node-state-'));
    media = mkdtempSync(join(tmpdir(), 'reelshelf-node-state-media-'));
    databaseUrl = testDatabaseUrl(dataDir);
    const env = {
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DATABASE_URL: databaseUrl,
      REELSHELF_API_TOKEN: 'node-state-token-0123456789',
      // Strict: an edition needing a conversion plays only once its artifact is ready, which the
      // listing says (playback_prediction): the ready index is what the api node must learn.
      REELSHELF_PLAYBACK_POLICY: 'strict',
    };
    api = await startTestServer({ ...env, REELSHELF_NODE_ROLE: 'api' });
    worker = await startTestServer({ ...env, REELSHELF_NODE_ROLE: 'worker' });
    const files = {
      direct: await makeFixture('h264_aac.mp4', join(media, 'direct.mp4'), 4),
      dts: await makeFixture('h264_dts.mkv', join(media, 'dts.mkv'), 2),
    };
    ids = await registerFiles(worker.server.database.db, media, files);
    await worker.server.services.analysis.analyzePending();
  });

  after(async () => {
    await api?.close();
    await worker?.close();
    dropTestDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  const file = (name: string) => ids[name]?.fileId ?? 0;
  const movie = (name: string) => ids[name]?.movieId ?? 0;

  it(
    'an artifact the worker builds is building on the api node, then ready in its listing at once',
    { skip: POSTGRES_ONLY },
    async () => {
      const before = await editionOn(api, movie('dts'), 'tv');
      assert.equal(before?.playback_prediction, 'strict_incompatible');
      // Started on the worker: the api node has never heard of the job but for its row.
      const started = await worker.api(`/api/media-file/${file('dts')}/prewarm-tv`, { method: 'POST' });
      assert.equal(started.status, 202, await started.clone().text());
      assert.equal((await prewarmState(api, file('dts'))).status, 'building', 'the api node sees the build');
      const done = await waitFor(
        async () => {
          const state = await prewarmState(worker, file('dts'));
          return state.status === 'building' ? null : state.status;
        },
        () => 'the build to end',
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      assert.equal(done, 'ready');
      // The very next listing on the api node plays it (no wait, no restart).
      const after = await editionOn(api, movie('dts'), 'tv');
      assert.equal(after?.playback_prediction, 'adaptive');
      assert.equal(after?.is_playable, true);
      assert.equal((await prewarmState(api, file('dts'))).status, 'ready');
    },
  );

  it('the admin on the api node lists a play streaming from the worker, and stops it there', async () => {
    const edition = await editionOn(worker, movie('direct'), 'web');
    assert.ok(edition?.stream_url);
    const url = `${worker.url}${edition.stream_url}`;
    const first = await fetch(url, { headers: { range: 'bytes=0-99' } });
    assert.equal(first.status, 206);
    await first.arrayBuffer();
    const play = await waitFor(
      async () => (await activePlays(api)).find((p) => p.media_file_id === file('direct')) ?? null,
      () => 'the worker’s play in the api node’s list',
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    assert.equal(play.device, 'web');
    assert.deepEqual(
      (await activePlays(worker)).map((p) => p.id),
      [play.id],
      'one play, one id on both nodes',
    );
    if (testEngine !== 'postgres') return; // one SQLite node does not hear another's stop
    const stopped = await api.api(`/api/sessions/active/${play.id}`, { method: 'DELETE' });
    assert.equal(stopped.status, 200, await stopped.clone().text());
    const refused = await fetch(url, { headers: { range: 'bytes=100-199' } });
    assert.equal(refused.status, 401, 'the worker refuses the stopped token at once');
    assert.match(((await refused.json()) as { message: string }).message, /admin stopped/);
    assert.deepEqual(await activePlays(worker), [], 'the play left the worker');
    assert.deepEqual(await activePlays(api), []);
    assert.equal((await api.api(`/api/sessions/active/${play.id}`, { method: 'DELETE' })).status, 404);
    // A fresh URL plays again (the stop covers the tokens handed out before it).
    const fresh = await editionOn(api, movie('direct'), 'web');
    assert.notEqual(fresh?.stream_url, edition.stream_url);
    const again = await fetch(`${worker.url}${fresh?.stream_url}`, { headers: { range: 'bytes=0-9' } });
    assert.equal(again.status, 206);
    await again.arrayBuffer();
  });

  it(
    'failed sign-ins on two nodes count together: 5 + 5 on one name, the next waits on either',
    {
      skip: POSTGRES_ONLY,
    },
    async () => {
      for (let i = 0; i < 5; i++) assert.equal(await signInFails(api, 'admin'), 401);
      for (let i = 0; i < 5; i++) assert.equal(await signInFails(worker, 'admin'), 401);
      assert.equal(await signInFails(api, 'admin'), 429, 'the api node counts the worker’s failures');
      assert.equal(await signInFails(worker, 'admin'), 429);
    },
  );
});

describe('one node watches the library roots', { skip: POSTGRES_ONLY }, () => {
  let dataDir: string;
  let databaseUrl: string;
  let first: ServerProcess | null = null;
  const servers: TestServer[] = [];

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-watch-lease-'));
    databaseUrl = testDatabaseUrl(dataDir);
  });

  after(async () => {
    if (first !== null && first.child.exitCode === null) first.child.kill('SIGKILL');
    for (const s of servers) await s.close();
    dropTestDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the first node watches, an api node never does, and another takes over when it is killed', async () => {
    const env = {
      REELSHELF_DATA_DIR: dataDir,
      REELSHELF_DATABASE_URL: databaseUrl,
      REELSHELF_API_TOKEN: 'watch-lease-token-0123456789',
      REELSHELF_WATCH: 'on',
    };
    first = await startServerProcess(dataDir, env);
    const holder = async () => {
      const rows = await servers[0]?.server.database.db
        .selectFrom('node_leases')
        .select(['node_id', 'until_ms'])
        .where('name', '=', 'root-watch')
        .execute();
      return rows?.[0] ?? null;
    };
    const second = await startTestServer(env);
    servers.push(second);
    const apiNode = await startTestServer({ ...env, REELSHELF_NODE_ROLE: 'api' });
    servers.push(apiNode);
    const firstLease = await waitFor(holder, () => 'the first node to take the lease');
    assert.notEqual(firstLease.node_id, second.server.services.jobs.nodeId, 'the first node holds it');
    // Two renewals later the others still leave the roots alone.
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal(second.server.services.rootWatch.watching, false);
    assert.equal(apiNode.server.services.rootWatch.watching, false);

    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    await waitFor(
      () => second.server.services.rootWatch.watching,
      () => 'the second node to take over the watch',
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const tookMs = Date.now() - killedAt;
    assert.ok(tookMs < 8_000, `taken over within the lease and a renewal (${tookMs} ms)`);
    assert.equal((await holder())?.node_id, second.server.services.jobs.nodeId);
    assert.equal(apiNode.server.services.rootWatch.watching, false, 'never an api node');

    // A clean shutdown hands it over at once (the lease is given up).
    const third = await startTestServer(env);
    servers.push(third);
    await second.close();
    servers.splice(servers.indexOf(second), 1);
    await waitFor(
      () => third.server.services.rootWatch.watching,
      () => 'the third node to take over after a clean stop',
      { timeoutMs: 5_000, intervalMs: 50 },
    );
  });
});
