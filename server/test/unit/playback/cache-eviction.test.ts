import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CacheEntry, chooseEvictions } from '../../../src/domain/playback/cache-eviction.ts';

const entry = (key: string, kind: CacheEntry['kind'], bytes: number, lastUsedMs: number, inUse = false) => ({
  kind,
  key,
  bytes,
  lastUsedMs,
  inUse,
});

/** One bound over both kinds: [entries, total on disk, bound] → keys removed, in order. */
const TABLE: [string, CacheEntry[], number, number, string[]][] = [
  ['within the bound: nothing goes', [entry('a', 'artifact', 5, 1)], 5, 5, []],
  [
    'least recently used first, whatever the kind',
    [
      entry('new-art', 'artifact', 4, 40),
      entry('old-seg', 'segments', 4, 10),
      entry('mid-art', 'artifact', 4, 20),
    ],
    12,
    5,
    ['old-seg', 'mid-art'],
  ],
  [
    'stops as soon as it fits',
    [entry('s1', 'segments', 10, 1), entry('a1', 'artifact', 10, 2), entry('s2', 'segments', 10, 3)],
    30,
    20,
    ['s1'],
  ],
  [
    'what is in use is skipped, the next goes instead',
    [
      entry('running', 'segments', 10, 1, true),
      entry('a1', 'artifact', 10, 2),
      entry('a2', 'artifact', 10, 3),
    ],
    30,
    20,
    ['a1'],
  ],
  [
    'when only entries in use are left it stops over the bound',
    [entry('running', 'segments', 10, 1, true), entry('just-made', 'artifact', 10, 2, true)],
    20,
    5,
    [],
  ],
  [
    'bytes no entry names (a growing build) count, and more entries go for them',
    [entry('a1', 'artifact', 5, 1), entry('s1', 'segments', 5, 2)],
    30,
    21,
    ['a1', 's1'],
  ],
  [
    'ties: artifacts first, then by key',
    [entry('b', 'segments', 1, 5), entry('z', 'artifact', 1, 5), entry('a', 'segments', 1, 5)],
    3,
    0,
    ['z', 'a', 'b'],
  ],
];

describe('chooseEvictions: one LRU over artifacts and HLS segments', () => {
  for (const [name, entries, total, bound, removed] of TABLE) {
    it(name, () => {
      assert.deepEqual(
        chooseEvictions(entries, total, bound).map((e) => e.key),
        removed,
      );
    });
  }
});
