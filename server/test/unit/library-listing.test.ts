import assert from 'node:assert/strict';
import { crc32, deflateRawSync, constants, gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { preferredCoding } from '../../src/domain/library-listing/accept-encoding.ts';
import { ChangeLog, MAX_TRACKED_IDS } from '../../src/domain/library-listing/changes.ts';
import { MEAN_ITEMS, cutsAfter } from '../../src/domain/library-listing/chunks.ts';
import { listingEtag, noneMatchHits } from '../../src/domain/library-listing/etag.ts';
import {
  GZIP_HEADER,
  crc32Combine,
  crc32CombineOp,
  crc32ShiftOp,
  gzipTrailer,
} from '../../src/domain/library-listing/gzip-frame.ts';
import { LruMap } from '../../src/domain/library-listing/lru.ts';
import { compareSqliteText } from '../../src/domain/library-listing/sqlite-order.ts';
import { ReadyArtifactIndex } from '../../src/services/playback/artifact-index.ts';
import type { ListingChange } from '../../src/domain/library-listing/changes.ts';

describe('listing gzip pieces', () => {
  it('combines CRC-32s as zlib computes the whole', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['a', ''],
      ['', 'b'],
      ['hello ', 'world'],
      ['x'.repeat(70_000), 'é'.repeat(33_333)],
    ];
    for (const [a, b] of cases) {
      const whole = crc32(Buffer.from(a + b));
      assert.equal(crc32Combine(crc32(a), crc32(b), Buffer.byteLength(b)), whole, `${a.length}+${b.length}`);
    }
  });

  it('frames separately deflated pieces as one gzip member any gunzip reads', () => {
    const texts = ['{"items":[', '{"a":1}', ',{"b":2}'.repeat(500), ',{"c":"ü"}', '],"n":3}'];
    let crc = 0;
    let length = 0;
    const deflated = texts.map((text, i) => {
      const bytes = Buffer.from(text);
      crc = crc32CombineOp(crc, crc32(bytes), crc32ShiftOp(bytes.length));
      length += bytes.length;
      const last = i === texts.length - 1;
      return deflateRawSync(bytes, { finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH });
    });
    const member = Buffer.concat([GZIP_HEADER, ...deflated, gzipTrailer(crc, length)]);
    assert.equal(gunzipSync(member).toString(), texts.join(''));
  });

  it('cuts pieces by item identity, about one cut in MEAN_ITEMS', () => {
    let cuts = 0;
    for (let i = 0; i < 32_000; i++) if (cutsAfter(`m${i}`)) cuts++;
    assert.ok(Math.abs(cuts - 32_000 / MEAN_ITEMS) < 200, `${cuts} cuts`);
    assert.equal(cutsAfter('m12345'), cutsAfter('m12345'));
  });
});

describe('listing order', () => {
  it('sorts text as SQLite BINARY does (UTF-8 bytes), ties by id', () => {
    const titles = ['b', 'a', 'B', 'é', 'e', 'z', '\uffff', '😀', '\ue000x', 'ab', 'a b', '', 'Ä', '𝒜'];
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.exec('create table t (id integer primary key, s text not null)');
    const insert = sqlite.prepare('insert into t (s) values (?)');
    for (const title of titles) insert.run(title);
    const expected = (sqlite.prepare('select s from t order by s, id').all() as { s: string }[]).map(
      (r) => r.s,
    );
    sqlite.close();
    assert.deepEqual([...titles].sort(compareSqliteText), expected);
  });
});

describe('listing negotiation and tags', () => {
  it('prefers br, then gzip, as the client ranks them', () => {
    assert.equal(preferredCoding(undefined), 'identity');
    assert.equal(preferredCoding(''), 'identity');
    assert.equal(preferredCoding('gzip'), 'gzip');
    assert.equal(preferredCoding('gzip, deflate, br'), 'br');
    assert.equal(preferredCoding('br;q=0.5, gzip'), 'gzip');
    assert.equal(preferredCoding('x-gzip'), 'gzip');
    assert.equal(preferredCoding('*'), 'br');
    assert.equal(preferredCoding('*, br;q=0'), 'gzip');
    assert.equal(preferredCoding('deflate'), 'identity');
    assert.equal(preferredCoding('gzip;q=0'), 'identity');
    assert.equal(preferredCoding('gzip;q=0.2, identity;q=0.9'), 'identity');
  });

  it('makes strong tags of the generation, device and contract, and matches them strongly', () => {
    const parts = {
      boot: 'ab12',
      generation: 7,
      tokenExpiry: 1_800_000_000,
      device: 'my tv "2"',
      contractHash: 'f'.repeat(64),
      coding: 'gzip' as const,
    };
    const tag = listingEtag(parts);
    assert.match(tag, /^"[\x21\x23-\x7e]+"$/, 'only etagc characters');
    assert.notEqual(listingEtag({ ...parts, generation: 8 }), tag);
    assert.notEqual(listingEtag({ ...parts, device: 'web' }), tag);
    assert.notEqual(listingEtag({ ...parts, coding: 'br' }), tag);
    assert.notEqual(listingEtag({ ...parts, page: { offset: 0, limit: 10 } }), tag);
    assert.ok(noneMatchHits(tag, tag));
    assert.ok(noneMatchHits(`"x", ${tag}`, tag));
    assert.ok(noneMatchHits(['"x"', tag], tag));
    assert.ok(noneMatchHits('*', tag));
    assert.ok(!noneMatchHits(`W/${tag}`, tag));
    assert.ok(!noneMatchHits(undefined, tag));
    assert.ok(!noneMatchHits('"x"', tag));
  });
});

describe('listing change log', () => {
  it('numbers changes when read, unions them, and says "all" when it no longer knows', () => {
    const log = new ChangeLog();
    assert.equal(log.current(), 0);
    assert.equal(log.current(), 0, 'nothing pending: the same number');
    log.record({ movies: [1, 2] });
    log.record({ files: [9] });
    assert.equal(log.current(), 1);
    log.record({ movies: [3] });
    assert.equal(log.current(), 2);
    const both = log.since(0, 2);
    assert.ok(!both.all);
    if (!both.all) {
      assert.deepEqual([...both.movies].sort(), [1, 2, 3]);
      assert.deepEqual([...both.files], [9]);
    }
    log.record({ all: true });
    assert.equal(log.current(), 3);
    assert.ok(log.since(1, 3).all);
    assert.ok(log.since(5, 3).all, 'a base ahead of the log');
    log.record({ movies: Array.from({ length: MAX_TRACKED_IDS + 1 }, (_, i) => i) });
    assert.ok(log.since(3, log.current()).all, 'too many ids: all');
  });

  it("keeps one person's changes (their watch state) out of everyone else's", () => {
    const log = new ChangeLog();
    log.record({ files: [7], user: 2 });
    const one = log.current();
    assert.equal(log.changedFor(0, one, 3), false, 'person 3 saw nothing change');
    assert.equal(log.changedFor(0, one, 2), true);
    const forThree = log.since(0, one, 3);
    const forTwo = log.since(0, one, 2);
    assert.ok(!forThree.all && !forTwo.all);
    if (!forThree.all && !forTwo.all) {
      assert.deepEqual([...forThree.files], []);
      assert.deepEqual([...forTwo.files], [7]);
    }
    const anyone = log.since(0, one);
    assert.ok(!anyone.all && [...anyone.files].includes(7), "without a person: every person's");
    log.record({ movies: [4] });
    const two = log.current();
    assert.equal(log.changedFor(one, two, 3), true, "everyone's change is person 3's too");
    const both = log.since(0, two, 3);
    assert.ok(!both.all && [...both.movies].includes(4) && [...both.files].length === 0);
    log.record({ all: true });
    assert.equal(log.changedFor(two, log.current(), 3), true);
    assert.equal(log.changedFor(0, 600, 3), true, 'an entry it no longer knows: changed');
  });

  it('forgets old entries (a base that old is rebuilt in full)', () => {
    const log = new ChangeLog();
    for (let i = 0; i < 600; i++) {
      log.record({ movies: [i] });
      log.current();
    }
    assert.ok(log.since(0, 600).all);
    assert.ok(!log.since(590, 600).all);
  });

  it('keeps the most recently used entries', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.get('a');
    lru.set('c', 3);
    assert.deepEqual([...lru.values()], [1, 3]);
  });

  it('hears from the artifact index when a file becomes ready or stops being', () => {
    const changes: ListingChange[] = [];
    const index = new ReadyArtifactIndex({ changed: (c) => changes.push(c) });
    index.add(4, 'tv', 'fp');
    index.add(4, 'tv', 'fp');
    index.remove(4, 'tv', 'fp');
    index.remove(4, 'tv', 'fp');
    assert.deepEqual(changes, [{ files: [4] }, { files: [4] }]);
  });
});
