// The pure rules of the shared node state (docs/cluster.md "Shared node state"): the failure
// windows every node counts together, who watches the library roots, and the node-state payloads
// the PostgreSQL triggers send.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStatePayload } from '../../../src/db/postgres-change-feed.ts';
import {
  afterFailure,
  type FailureWindow,
  MAX_ADDRESSES,
  mergeHeard,
} from '../../../src/domain/people/failure-window.ts';
import { rootWatchMode } from '../../../src/domain/scan/watch-leadership.ts';
import { stopTarget } from '../../../src/services/playback/playback-token.service.ts';

const MINUTE = 60_000;
const w = (count: number, startedMs: number, addresses: string[] = []): FailureWindow => ({
  count,
  startedMs,
  addresses,
});

describe('failure windows', () => {
  const cases: [string, FailureWindow | null, number, string | null, FailureWindow][] = [
    ['first failure opens a window', null, 1000, '10.0.0.1', w(1, 1000, ['10.0.0.1'])],
    ['an address key keeps no addresses', null, 1000, null, w(1, 1000)],
    ['within the window: one more', w(4, 1000, ['a']), 1000 + MINUTE - 1, 'b', w(5, 1000, ['a', 'b'])],
    ['a known address is not repeated', w(4, 1000, ['a']), 2000, 'a', w(5, 1000, ['a'])],
    ['the window ended: a new one of one', w(9, 1000, ['a']), 1000 + MINUTE, 'b', w(1, 1000 + MINUTE, ['b'])],
    ['a window from the future (clock skew) is replaced', w(9, 5000), 1000, null, w(1, 1000)],
  ];
  for (const [name, current, now, address, expected] of cases) {
    it(name, () => assert.deepEqual(afterFailure(current, now, MINUTE, address), expected));
  }

  it(`remembers at most ${MAX_ADDRESSES} addresses (the count goes on)`, () => {
    const full = w(
      MAX_ADDRESSES,
      0,
      Array.from({ length: MAX_ADDRESSES }, (_, i) => `a${i}`),
    );
    const next = afterFailure(full, 10, MINUTE, 'new');
    assert.equal(next.count, MAX_ADDRESSES + 1);
    assert.equal(next.addresses.length, MAX_ADDRESSES);
  });

  const merges: [
    string,
    FailureWindow | null,
    { count: number; startedMs: number; address: string | null },
    FailureWindow,
  ][] = [
    ['nothing here: the heard window', null, { count: 3, startedMs: 10, address: 'x' }, w(3, 10, ['x'])],
    [
      'same window: the higher count, the address added',
      w(5, 10, ['a']),
      { count: 4, startedMs: 10, address: 'x' },
      w(5, 10, ['a', 'x']),
    ],
    [
      'same window, heard higher',
      w(2, 10, ['a']),
      { count: 7, startedMs: 10, address: null },
      w(7, 10, ['a']),
    ],
    ['a later window replaces', w(9, 10, ['a']), { count: 1, startedMs: 99, address: 'x' }, w(1, 99, ['x'])],
    [
      'an older window (late message) is ignored',
      w(2, 99, ['a']),
      { count: 9, startedMs: 10, address: 'x' },
      w(2, 99, ['a']),
    ],
  ];
  for (const [name, mine, heard, expected] of merges) {
    it(`merge: ${name}`, () => assert.deepEqual(mergeHeard(mine, heard), expected));
  }
});

describe('who watches the library roots', () => {
  const cases: [Parameters<typeof rootWatchMode>[0], Parameters<typeof rootWatchMode>[1], string][] = [
    ['all', 'sqlite', 'always'],
    ['worker', 'sqlite', 'always'],
    ['api', 'sqlite', 'never'],
    ['all', 'postgres', 'leader'],
    ['worker', 'postgres', 'leader'],
    ['api', 'postgres', 'never'],
  ];
  for (const [role, engine, mode] of cases) {
    it(`${role} on ${engine}: ${mode}`, () => assert.equal(rootWatchMode(role, engine), mode));
  }
});

describe('node-state payloads', () => {
  const cases: [string | undefined, ReturnType<typeof parseStatePayload>][] = [
    [
      'stop {"k":"1|session|4|7","u":1700000000}',
      { topic: 'stop', data: { k: '1|session|4|7', u: 1700000000 } },
    ],
    [
      'artifact {"f":3,"d":"tv","s":"abc","r":true}',
      { topic: 'artifact', data: { f: 3, d: 'tv', s: 'abc', r: true } },
    ],
    ['play-stop {"id":9,"n":"node"}', { topic: 'play-stop', data: { id: 9, n: 'node' } }],
    [
      'auth {"k":"account:anna","s":1,"c":2,"a":null}',
      { topic: 'auth', data: { k: 'account:anna', s: 1, c: 2, a: null } },
    ],
    ['stop', null],
    [' {"k":1}', null],
    ['stop [1,2]', null],
    ['stop {not json', null],
    [undefined, null],
  ];
  for (const [payload, expected] of cases) {
    it(`${JSON.stringify(payload)}`, () => assert.deepEqual(parseStatePayload(payload), expected));
  }

  it('a stop key names its person and file', () => {
    assert.deepEqual(stopTarget('12|session|4|77'), { userId: 12, fileId: 77 });
    assert.deepEqual(stopTarget('1|admin-token||5'), { userId: 1, fileId: 5 });
    assert.equal(stopTarget('1|session|5'), null);
    assert.equal(stopTarget('x|session|4|y'), null);
  });
});
