import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Insertable } from 'kysely';
import type { PlayHistoryTable } from '../../../../src/db/schema.ts';
import type { TokenHolder } from '../../../../src/domain/playback-token.ts';
import type { PlayHistoryRow } from '../../../../src/repositories/play-history.repository.ts';
import { NowPlayingService } from '../../../../src/services/playback/now-playing.service.ts';

// NowPlayingService on in-memory play_history rows and a pinned clock: when a request continues a
// play and when it starts a new history row, what a progress report alone records, when a play
// leaves the "now playing" list, and what a stop ends.

function setup() {
  let now = Date.parse('2030-01-01T20:00:00Z');
  const rows: PlayHistoryRow[] = [];
  const stops: [TokenHolder, number][] = [];
  const stoppedRuns: [number, string][] = [];
  const changes: unknown[] = [];
  const plays = new NowPlayingService({
    history: {
      fileFacts: async (id) =>
        id === 404
          ? undefined
          : {
              media_file_id: id,
              movie_id: 10 + id,
              title: `Film ${id}`,
              capabilities_json: '{"duration_seconds":5400.2}',
            },
      userName: async (id) => `user${id}`,
      latestOpen: async (user, file, device, since) =>
        rows
          .filter(
            (r) => r.user_id === user && r.media_file_id === file && (device === null || r.device === device),
          )
          .filter((r) => r.updated_at >= since)
          .sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))[0],
      insert: async (row: Insertable<PlayHistoryTable>) => {
        const id = rows.length + 1;
        rows.push({
          ...row,
          id,
          position_seconds: row.position_seconds ?? 0,
          duration_seconds: row.duration_seconds ?? null,
          media_file_id: row.media_file_id ?? null,
          movie_id: row.movie_id ?? null,
        });
        return id;
      },
      touch: async (id, updatedAt, position) => {
        const row = rows.find((r) => r.id === id);
        if (row === undefined) return;
        row.updated_at = updatedAt;
        if (position !== undefined) row.position_seconds = position;
      },
      list: async () => ({ rows, total: rows.length }),
    },
    modeOf: async () => 'converted',
    conversions: {
      speed: () => 0.8,
      stopRuns: async (file, device) => void stoppedRuns.push([file, device]),
    },
    tokens: { stop: async (holder, file) => void stops.push([holder, file]) },
    listing: { changed: (c) => void changes.push(c) },
    clock: { now: () => new Date(now) },
  });
  const later = (ms: number) => (now += ms);
  return { plays, rows, stops, stoppedRuns, changes, later };
}

const anna: TokenHolder = { userId: 2, credential: { kind: 'session', id: 5 } };

describe('NowPlayingService', () => {
  it('one history row per play: range requests continue it, a return within 4 h too, later a new one', async () => {
    const { plays, rows, later } = setup();
    await Promise.all(
      [1, 2, 3].map(() => plays.seen({ holder: anna, fileId: 1, device: 'web', mode: 'direct' })),
    );
    assert.equal(rows.length, 1, 'parallel requests of a new play: one row');
    assert.deepEqual(
      [rows[0]?.title, rows[0]?.device, rows[0]?.mode, rows[0]?.duration_seconds, rows[0]?.movie_id],
      ['Film 1', 'web', 'direct', 5400, 11],
    );
    later(3 * 3600_000);
    await plays.seen({ holder: anna, fileId: 1, device: 'web' });
    assert.equal(rows.length, 1, 'back after 3 h: the same play');
    later(4 * 3600_000 + 1);
    await plays.seen({ holder: anna, fileId: 1, device: 'web' });
    assert.equal(rows.length, 2, 'after more than 4 h: a new play');
    assert.equal(rows[1]?.mode, 'converted', 'an HLS request says no mode: the rules are asked');
    await plays.seen({ holder: anna, fileId: 1, device: 'tv' });
    assert.equal(rows.length, 3, 'another device: another play');
    await plays.seen({ holder: anna, fileId: 404, device: 'web' });
    assert.equal(rows.length, 3, 'an unknown file records nothing');
  });

  it('progress moves the play it belongs to; without one seen, the last open row, else a row on device unknown', async () => {
    const { plays, rows, later } = setup();
    await plays.seen({ holder: anna, fileId: 1, device: 'web', mode: 'direct' });
    await plays.progress(2, 1, 600);
    assert.equal(rows[0]?.position_seconds, 600);
    assert.equal((await plays.active())[0]?.position_seconds, 600);
    await plays.progress(2, 7, 30);
    assert.deepEqual([rows[1]?.device, rows[1]?.mode, rows[1]?.position_seconds], ['unknown', 'unknown', 30]);
    later(60_000);
    await plays.progress(2, 7, 90);
    assert.equal(rows.length, 2, 'the open row is moved on');
    assert.equal(rows[1]?.position_seconds, 90);
  });

  it('a play not seen for a minute leaves the list; a stop ends its tokens, its run, and its listing URLs', async () => {
    const { plays, stops, stoppedRuns, changes, later } = setup();
    await plays.seen({ holder: anna, fileId: 1, device: 'tv', mode: 'converted' });
    const [active] = await plays.active();
    assert.ok(active);
    assert.deepEqual(
      [active.user_name, active.title, active.device, active.mode, active.conversion_speed],
      ['user2', 'Film 1', 'tv', 'converted', 0.8],
    );
    later(61_000);
    assert.deepEqual(await plays.active(), []);
    await plays.seen({ holder: anna, fileId: 1, device: 'tv' });
    assert.equal((await plays.active())[0]?.id, active.id, 'seen again: the same play');
    await plays.stop(active.id);
    assert.deepEqual(stops, [[anna, 1]]);
    assert.deepEqual(stoppedRuns, [[1, 'tv']]);
    assert.deepEqual(changes, [{ files: [1], user: 2 }]);
    assert.deepEqual(await plays.active(), []);
    await assert.rejects(plays.stop(active.id), /No play/);
  });

  it("an app's report joins the credential's play on any device and names the app; a new one starts under its name", async () => {
    const { plays, rows, later } = setup();
    await plays.seen({ holder: anna, fileId: 1, device: 'jellyfin-abc', mode: 'converted' });
    await plays.report({ holder: anna, fileId: 1, mode: 'direct', client: 'Findroid on Shield' });
    assert.deepEqual(
      (await plays.active()).map((p) => [p.media_file_id, p.device, p.mode]),
      [[1, 'Findroid on Shield (jellyfin-abc)', 'converted']],
      'one play, the stream route’s device and mode kept',
    );
    assert.equal(rows.length, 1);
    // Another credential of the same person is another play.
    const phone: TokenHolder = { userId: 2, credential: { kind: 'session', id: 6 } };
    await plays.report({ holder: phone, fileId: 2, mode: 'direct', client: 'Swiftfin on iPhone' });
    assert.deepEqual((await plays.active()).map((p) => [p.media_file_id, p.device, p.mode]).sort(), [
      [1, 'Findroid on Shield (jellyfin-abc)', 'converted'],
      [2, 'Swiftfin on iPhone', 'direct'],
    ]);
    // A ping keeps the credential's plays going past the minute; finish takes the play off the list.
    later(50_000);
    plays.ping(anna);
    later(20_000);
    assert.deepEqual(
      (await plays.active()).map((p) => p.media_file_id),
      [1],
    );
    plays.finish(anna, 1);
    assert.deepEqual(await plays.active(), []);
    assert.equal(rows.length, 2, 'the history stays');
  });

  it('tells its listeners of an admin stop; a failing listener does not undo it', async () => {
    const { plays, stops } = setup();
    const heard: [TokenHolder, number][] = [];
    plays.whenStopped(() => {
      throw new Error('socket gone');
    });
    const stopListening = plays.whenStopped(({ holder, fileId }) => void heard.push([holder, fileId]));
    await plays.report({ holder: anna, fileId: 3, mode: 'direct', client: 'Kodi' });
    const [play] = await plays.active();
    assert.ok(play !== undefined);
    await plays.stop(play.id);
    assert.deepEqual(heard, [[anna, 3]]);
    assert.deepEqual(stops, [[anna, 3]]);
    stopListening();
    await plays.report({ holder: anna, fileId: 3, mode: 'direct', client: 'Kodi' });
    await plays.stop((await plays.active())[0]?.id ?? 0);
    assert.equal(heard.length, 1, 'no longer listening');
  });
});
