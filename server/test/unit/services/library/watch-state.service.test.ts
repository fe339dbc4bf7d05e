import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { WatchStateService } from '../../../../src/services/library/watch-state.service.ts';
import { FakeWatchStateTables } from '../../../fakes/watch-state-repositories.ts';

// WatchStateService (PUT /api/media-file/{id}/progress) on in-memory media files and watch_state
// rows: the position is whole seconds, the watched flag changes only when it is sent, the row
// names the file's movie of the moment, and an unknown file writes nothing.

function service(tables: FakeWatchStateTables) {
  let now = new Date('2026-02-03T04:05:06.000Z');
  const watch = new WatchStateService(tables, tables, { now: () => now });
  return { watch, later: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
}

describe('WatchStateService with fake repositories', () => {
  it('saves a position in whole seconds, unwatched unless said, keyed to the file and naming its movie', async () => {
    const tables = new FakeWatchStateTables();
    const fileId = tables.addMediaFile(7);
    const { watch } = service(tables);
    assert.deepEqual(await watch.save(1, fileId, { position_seconds: 125.9 }), {
      media_file_id: fileId,
      position_seconds: 125,
      watched: false,
      updated_at: '2026-02-03T04:05:06.000Z',
    });
    assert.deepEqual(tables.states, [
      {
        user_id: 1,
        media_file_id: fileId,
        movie_id: 7,
        position_seconds: 125,
        watched: 0,
        updated_at: '2026-02-03T04:05:06.000Z',
      },
    ]);
  });

  it('the watched flag changes only when it is sent; the position and the time always', async () => {
    const tables = new FakeWatchStateTables();
    const fileId = tables.addMediaFile(7);
    const { watch, later } = service(tables);
    await watch.save(1, fileId, { position_seconds: 10, watched: true });
    later(60);
    const moved = await watch.save(1, fileId, { position_seconds: 70 });
    assert.deepEqual(
      [moved.position_seconds, moved.watched, moved.updated_at],
      [70, true, '2026-02-03T04:06:06.000Z'],
    );
    const unwatched = await watch.save(1, fileId, { position_seconds: 0, watched: false });
    assert.equal(unwatched.watched, false);
    assert.equal(tables.states.length, 1, 'one row per media file');
  });

  it('follows the file: a file matched to another movie since moves its row to that movie', async () => {
    const tables = new FakeWatchStateTables();
    const fileId = tables.addMediaFile(null);
    const { watch } = service(tables);
    await watch.save(1, fileId, { position_seconds: 5 });
    assert.equal(tables.states[0]?.movie_id, null);
    const file = tables.mediaFiles.find((f) => f.id === fileId);
    if (file !== undefined) file.movie_id = 9;
    await watch.save(1, fileId, { position_seconds: 6 });
    assert.equal(tables.states[0]?.movie_id, 9);
  });

  it('goes through the one resume rule: the start keeps nothing, past 90 % counts as watched', async () => {
    const tables = new FakeWatchStateTables();
    const fileId = tables.addMediaFile(7, 'long.mkv', 6000);
    const { watch } = service(tables);
    assert.deepEqual(
      [(await watch.save(1, fileId, { position_seconds: 240 })).position_seconds, tables.states[0]?.watched],
      [0, 0],
      '4 % in: nothing to resume',
    );
    assert.equal((await watch.save(1, fileId, { position_seconds: 3000 })).position_seconds, 3000);
    const near = await watch.save(1, fileId, { position_seconds: 5460 });
    assert.deepEqual([near.position_seconds, near.watched], [0, true], '91 %: watched, out of continue');
    assert.deepEqual(await watch.continueWatching(1), []);
    const short = tables.addMediaFile(8, 'short.mkv', 240);
    const played = await watch.save(1, short, { position_seconds: 120 });
    assert.deepEqual([played.position_seconds, played.watched], [0, true], 'a 4-minute film: played');
  });

  it('an unknown media file is 404 not_found and writes nothing', async () => {
    const tables = new FakeWatchStateTables();
    const { watch } = service(tables);
    await assert.rejects(
      watch.save(1, 42, { position_seconds: 1 }),
      (err) => err instanceof AppError && err.code === 'not_found' && err.status === 404,
    );
    assert.deepEqual(tables.states, []);
  });
});
