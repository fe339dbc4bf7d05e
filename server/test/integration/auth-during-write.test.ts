/**
 * Authentication does not wait for a write transaction. Kysely runs on one SQLite connection, so
 * while an import holds its transaction every query waits for the commit; a request that read its
 * session (or a playback token's credential) from the database in the auth hook waited too, and the
 * import page's job poll could not move the bar. Sessions, keys and credentials are answered from
 * memory (services/people/people-cache.ts), the playback path's file row too: this holds an
 * import's transaction open and asks, with a cookie session and with a session's playback token.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobView } from '@reelshelf/contract';
import { registerFiles } from '../helpers/library-fixtures.ts';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

/** Longer than any answer from memory, far shorter than the held transaction. */
const ANSWER_WITHIN_MS = 3_000;

describe('authentication while a write transaction holds the database', () => {
  let t: TestServer;
  let media: string;
  let fileId = 0;
  let cookie = '';
  let sessionId = 0;

  before(async () => {
    media = mkdtempSync(join(tmpdir(), 'reelshelf-auth-write-'));
    const path = await makeFixture('mpeg2_ac3.mkv', join(media, 'Held (2001).mkv'), 4);
    t = await startTestServer({ REELSHELF_HLS_IDLE_SECONDS: '60' });
    const ids = await registerFiles(t.server.database.db, media, { held: path });
    fileId = ids.held?.fileId ?? 0;
    await t.server.services.analysis.analyzePending();
    const res = await fetch(`${t.url}/api/sessions`, jsonBody('POST', { name: 'admin', password: t.token }));
    assert.equal(res.status, 200);
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const row = await t.server.database.db
      .selectFrom('sessions')
      .select('id')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    sessionId = row.id;
  });
  after(async () => {
    await t.close();
    rmSync(media, { recursive: true, force: true });
  });

  it('a cookie-session job poll and a playback-token HLS playlist are answered while an import holds its transaction', async () => {
    const token = t.server.services.tokens.sign(fileId, 'web', {
      userId: 1,
      credential: { kind: 'session', id: sessionId },
    });
    const query = new URLSearchParams({ device: 'web', token }).toString();
    const playlist = `${t.url}/stream/media_file/${fileId}/hls/v/index.m3u8?${query}`;
    // The player is already playing (its presentation and its play exist) when the import starts.
    assert.equal((await fetch(`${t.url}/stream/media_file/${fileId}/master.m3u8?${query}`)).status, 200);
    assert.equal((await fetch(playlist)).status, 200);
    // A poll with the cookie before the import: the session is known.
    const warm = await fetch(`${t.url}/api/jobs?kind=import&limit=1`, { headers: { cookie } });
    assert.equal(warm.status, 200);

    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = (): void => undefined;
    const isHeld = new Promise<void>((resolve) => (holding = resolve));
    const rows = Array.from(
      { length: 1200 },
      (_, i) => `Held Film ${i},${1950 + (i % 70)},DVD,Shelf W,${i + 1}`,
    );
    const csv = Buffer.from(`Title,Year,Format,Binder,Slot\n${rows.join('\n')}\n`);
    const importing = t.server.services.importExport.importCsv(csv, {
      onProgress: (done, total) => {
        if (done !== 1 || total < 2) return;
        holding();
        return held;
      },
    });
    try {
      await isHeld;
      const started = Date.now();
      const poll = await fetch(`${t.url}/api/jobs?kind=import&status=running`, {
        headers: { cookie },
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      assert.equal(poll.status, 200);
      const job = ((await poll.json()) as { items: JobView[] }).items[0];
      assert.equal(job?.status, 'running');
      assert.ok(
        job.progress.done >= 1 && job.progress.done < job.progress.total,
        JSON.stringify(job.progress),
      );
      const hls = await fetch(playlist, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
      assert.equal(hls.status, 200);
      assert.match(await hls.text(), /^#EXTM3U/);
      // A key's bearer too (its row is read once, then kept).
      assert.ok(Date.now() - started < ANSWER_WITHIN_MS);
    } finally {
      release();
      await importing;
    }
  });
});
