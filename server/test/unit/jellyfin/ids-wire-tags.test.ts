// Jellyfin ids, wire conventions and image tags (domain/jellyfin/ids.ts, wire.ts, image-tags.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImageTags } from '../../../src/domain/jellyfin/image-tags.ts';
import { dashedId, JellyfinIds, type JellyfinIdKind } from '../../../src/domain/jellyfin/ids.ts';
import {
  jellyfinDate,
  secondsToTicks,
  ticksToSeconds,
  toWireJson,
} from '../../../src/domain/jellyfin/wire.ts';

const KINDS: JellyfinIdKind[] = ['movie', 'media-source', 'folder', 'person', 'user', 'server', 'session'];

describe('jellyfin: ids', () => {
  const ids = new JellyfinIds('server secret one');

  it('are 32 lower-case hex, stable, distinct per kind and row, and decode back', () => {
    const seen = new Set<string>();
    for (const kind of KINDS) {
      for (const id of [0, 1, 2, 41, 2 ** 31, 2 ** 48 - 1]) {
        const guid = ids.encode(kind, id);
        assert.match(guid, /^[0-9a-f]{32}$/);
        assert.equal(guid, new JellyfinIds('server secret one').encode(kind, id), 'same secret, same id');
        assert.deepEqual(ids.decode(guid), { kind, id });
        assert.deepEqual(ids.decode(guid.toUpperCase()), { kind, id }, 'upper case');
        assert.deepEqual(ids.decode(dashedId(guid)), { kind, id }, 'dashed form');
        seen.add(guid);
      }
    }
    assert.equal(seen.size, KINDS.length * 6);
    assert.equal(ids.decodeAs('movie', ids.encode('movie', 7)), 7);
    assert.equal(ids.decodeAs('media-source', ids.encode('movie', 7)), null, 'a movie id is not a file id');
    assert.equal(ids.serverId, ids.encode('server', 0));
  });

  it('do not show the row number and cannot be forged, altered or carried to another server', () => {
    const a = ids.encode('movie', 1);
    const b = ids.encode('movie', 2);
    let differing = 0;
    for (let i = 0; i < 32; i++) if (a[i] !== b[i]) differing++;
    assert.ok(differing > 20, `neighbouring rows share ${32 - differing} digits`);
    assert.equal(new JellyfinIds('another secret').decode(a), null);
    for (let i = 0; i < 32; i++) {
      const flipped = a.slice(0, i) + (parseInt(a[i] ?? '0', 16) ^ 1).toString(16) + a.slice(i + 1);
      assert.equal(ids.decode(flipped), null, `digit ${i} changed`);
    }
    for (const bad of [
      '',
      'zz',
      '0'.repeat(32),
      'f'.repeat(32),
      a.slice(1),
      `${a}0`,
      '12345678-1234-1234-1234-1234567890ab',
    ])
      assert.equal(ids.decode(bad), null, bad);
  });

  it('refuse a row number they cannot hold', () => {
    for (const bad of [-1, 1.5, 2 ** 48, Number.NaN])
      assert.throws(() => ids.encode('movie', bad), RangeError);
  });
});

describe('jellyfin: wire conventions', () => {
  it('ticks are 10^7 per second both ways', () => {
    assert.equal(secondsToTicks(1), 10_000_000);
    assert.equal(secondsToTicks(5400.5), 54_005_000_000);
    assert.equal(secondsToTicks(0.00000004), 0);
    assert.equal(ticksToSeconds(54_005_000_000), 5400.5);
    assert.equal(ticksToSeconds('600000000'), 60);
    for (const bad of [-1, 'x', '1e9', null, undefined, Number.POSITIVE_INFINITY, '-5'])
      assert.equal(ticksToSeconds(bad), null, String(bad));
  });

  it('dates have seven fraction digits and a Z', () => {
    const cases: [Date | string, string | null][] = [
      [new Date(Date.UTC(2024, 4, 1, 10, 2, 3, 45)), '2024-05-01T10:02:03.0450000Z'],
      ['2024-05-01 10:02:03', '2024-05-01T10:02:03.0000000Z'],
      ['2024-05-01T10:02:03.123Z', '2024-05-01T10:02:03.1230000Z'],
      ['2024-05-01T12:02:03+02:00', '2024-05-01T10:02:03.0000000Z'],
      ['2010-07-16', '2010-07-16T00:00:00.0000000Z'],
      ['not a date', null],
      [new Date(Number.NaN), null],
    ];
    for (const [input, expected] of cases) assert.equal(jellyfinDate(input), expected, String(input));
  });

  it('JSON leaves out nulls at every depth and keeps false, 0, empty strings and arrays', () => {
    const json = toWireJson({
      Name: 'A',
      Overview: null,
      Missing: undefined,
      IsFolder: false,
      RunTimeTicks: 0,
      Tagline: '',
      Genres: [],
      UserData: { Played: false, LastPlayedDate: null },
      Items: [{ Id: 'x', ParentId: null }],
    });
    assert.equal(
      json,
      '{"Name":"A","IsFolder":false,"RunTimeTicks":0,"Tagline":"","Genres":[],"UserData":{"Played":false},"Items":[{"Id":"x"}]}',
    );
  });
});

describe('jellyfin: image tags', () => {
  const tags = new ImageTags('server secret one');
  const item = new JellyfinIds('server secret one').encode('movie', 3);

  it('are short, stable, and change with the item, the kind, the artwork version and the person', () => {
    const tag = tags.tag(item, 'Primary', '/artwork/3/poster?v=1a2b3c4d', 5);
    assert.match(tag, /^[0-9a-f]{32}$/);
    assert.equal(
      tag,
      new ImageTags('server secret one').tag(
        item.toUpperCase(),
        'Primary',
        '/artwork/3/poster?v=1a2b3c4d',
        5,
      ),
    );
    const others = [
      tags.tag(item, 'Backdrop', '/artwork/3/poster?v=1a2b3c4d', 5),
      tags.tag(item, 'Primary', '/artwork/3/poster?v=ffffffff', 5),
      tags.tag(
        new JellyfinIds('server secret one').encode('movie', 4),
        'Primary',
        '/artwork/3/poster?v=1a2b3c4d',
        5,
      ),
      new ImageTags('another secret').tag(item, 'Primary', '/artwork/3/poster?v=1a2b3c4d', 5),
      tags.tag(item, 'Primary', '/artwork/3/poster?v=1a2b3c4d', 6),
    ];
    for (const other of others) assert.notEqual(other, tag);
  });

  it('name the person they were listed to: another person’s tag differs and does not check', () => {
    const mine = tags.tag(item, 'Primary', 'v1', 5);
    const theirs = tags.forPerson(6).tag(item, 'Primary', 'v1');
    assert.notEqual(mine, theirs);
    assert.equal(tags.forPerson(5).tag(item, 'Primary', 'v1'), mine);
    assert.equal(tags.check(mine, item, 'Primary', 'v1', 6), false);
    assert.equal(tags.check(theirs, item, 'Primary', 'v1', 6), true);
  });

  it('check only the right tag, in any case', () => {
    const tag = tags.tag(item, 'Primary', 'v1', 5);
    assert.equal(tags.check(tag, item, 'Primary', 'v1', 5), true);
    assert.equal(tags.check(tag.toUpperCase(), item, 'Primary', 'v1', 5), true);
    assert.equal(tags.check(tag, item, 'Primary', 'v2', 5), false, 'new artwork');
    assert.equal(tags.check(tag, item, 'Backdrop', 'v1', 5), false);
    for (const bad of ['', 'zz', tag.slice(1), `${tag}00`, '0'.repeat(32)])
      assert.equal(tags.check(bad, item, 'Primary', 'v1', 5), false, bad);
  });
});
