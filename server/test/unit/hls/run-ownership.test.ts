import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  announceAllowed,
  claimLost,
  claimReason,
  convertsHls,
  firstMissingFrom,
  otherConverters,
  type OtherConverters,
  publishedRunOf,
  type RemoteSegmentAction,
  remoteSegmentAction,
  type RunRowView,
} from '../../../src/domain/hls/run-ownership.ts';

const NOW = 1_000_000;
/** Segments of 4 s. */
const startOf = (i: number) => (i >= 0 && i < 100 ? i * 4 : undefined);
const row = (over: Partial<RunRowView> = {}): RunRowView => ({
  ownerNode: 'w',
  leaseUntil: NOW + 3_000,
  startIndex: 0,
  nextIndex: 0,
  wantedIndex: 0,
  pinned: false,
  error: null,
  ...over,
});
const api = { nodeId: 'a', ownerProcessGone: false, converts: false, freeSlot: false };
const worker = { nodeId: 'a', ownerProcessGone: false, converts: true, freeSlot: true };

describe('remoteSegmentAction: where a segment comes from on a node that does not convert it', () => {
  const TABLE: [string, number, RunRowView | null, typeof api, OtherConverters, RemoteSegmentAction][] = [
    ['api node, no row, a worker has room: ask it', 3, null, api, 'free', 'ask'],
    ['api node, no row, every worker busy: conversions_busy', 3, null, api, 'busy', 'busy'],
    ['api node, no row, no worker at all: start one', 3, null, api, 'none', 'no_converter'],
    ['worker with a free slot, no row: claim', 3, null, worker, 'none', 'claim'],
    [
      'worker without a slot, another has room: ask it',
      3,
      null,
      { ...worker, freeSlot: false },
      'free',
      'ask',
    ],
    ['worker without a slot, nobody has room: busy', 3, null, { ...worker, freeSlot: false }, 'none', 'busy'],
    ['owned elsewhere, being written: wait', 2, row({ nextIndex: 3 }), api, 'free', 'wait'],
    ['owned elsewhere, one segment ahead (4 s): wait', 4, row({ nextIndex: 3 }), api, 'free', 'wait'],
    ['owned elsewhere, far ahead: seek', 40, row({ nextIndex: 3 }), api, 'free', 'seek'],
    [
      'owned elsewhere, far ahead, seek already asked there: wait',
      40,
      row({ nextIndex: 3, wantedIndex: 40 }),
      api,
      'free',
      'wait',
    ],
    ['owned elsewhere, before its start: seek', 1, row({ startIndex: 5, nextIndex: 6 }), api, 'free', 'seek'],
    [
      'owned elsewhere, before its start though wanted there: seek',
      1,
      row({ startIndex: 5, nextIndex: 6, wantedIndex: 1 }),
      api,
      'free',
      'seek',
    ],
    ['owned elsewhere by a prewarm, far ahead: wait', 90, row({ pinned: true }), api, 'free', 'wait'],
    [
      'owner lease ran out: a worker claims (take-over)',
      7,
      row({ leaseUntil: NOW - 1 }),
      worker,
      'none',
      'claim',
    ],
    [
      'owner lease ran out: an api node asks the workers',
      7,
      row({ leaseUntil: NOW - 1 }),
      api,
      'free',
      'ask',
    ],
    [
      'owner process gone on this host: claim at once',
      7,
      row(),
      { ...worker, ownerProcessGone: true },
      'none',
      'claim',
    ],
    [
      'row says this node owns it but runs nothing: claim again',
      7,
      row({ ownerNode: 'a' }),
      worker,
      'none',
      'claim',
    ],
    [
      'the run started here failed: 500',
      7,
      row({ ownerNode: null, startIndex: 7, error: 'boom' }),
      api,
      'free',
      'fail',
    ],
    [
      'a run started elsewhere failed: ask again',
      8,
      row({ ownerNode: null, startIndex: 7, error: 'boom' }),
      api,
      'free',
      'ask',
    ],
    ['given back (idle): claim', 8, row({ ownerNode: null, leaseUntil: null }), worker, 'busy', 'claim'],
  ];
  for (const [name, index, r, self, others, expected] of TABLE) {
    it(name, () => {
      assert.equal(remoteSegmentAction({ index, row: r, now: NOW, self, others, startOf }), expected);
    });
  }
});

describe('otherConverters: what the other live nodes offer', () => {
  const load = (inUse: number, limit: number) =>
    JSON.stringify({ jobs: {}, conversions: { in_use: inUse, limit } });
  const TABLE: [string, { id: string; role: string; loadJson: string }[], OtherConverters][] = [
    ['alone', [{ id: 'a', role: 'all', loadJson: load(0, 1) }], 'none'],
    ['only api nodes besides', [{ id: 'b', role: 'api', loadJson: load(0, 1) }], 'none'],
    ['a worker with room', [{ id: 'w', role: 'worker', loadJson: load(1, 2) }], 'free'],
    ['a full worker', [{ id: 'w', role: 'worker', loadJson: load(2, 2) }], 'busy'],
    [
      'a full worker and an all node with room',
      [
        { id: 'w', role: 'worker', loadJson: load(2, 2) },
        { id: 'x', role: 'all', loadJson: load(0, 1) },
      ],
      'free',
    ],
    ['a worker that says nothing of its slots: room', [{ id: 'w', role: 'worker', loadJson: '{}' }], 'free'],
  ];
  for (const [name, nodes, expected] of TABLE) {
    it(name, () => assert.equal(otherConverters(nodes, 'a'), expected));
  }
  it('api nodes never convert', () => {
    assert.deepEqual([convertsHls('api'), convertsHls('worker'), convertsHls('all')], [false, true, true]);
  });
});

describe('claimReason: when a node that converts claims a row', () => {
  const self = { nodeId: 'me', host: 'h', runsIt: false, idleMs: 60_000 };
  const base = { ...row(), asked: false, lastRequestAt: NOW - 1_000 };
  const alive = () => true;
  const TABLE: [
    string,
    typeof base,
    typeof self,
    { host: string; pid: number } | undefined,
    (pid: number) => boolean,
    string | null,
  ][] = [
    ['held under a live lease: no', base, self, undefined, alive, null],
    [
      'nobody holds it, asked: no_owner',
      { ...base, ownerNode: null, asked: true },
      self,
      undefined,
      alive,
      'no_owner',
    ],
    ['nobody holds it, not asked (ended): no', { ...base, ownerNode: null }, self, undefined, alive, null],
    [
      'lease ran out, a player asks: lease_expired',
      { ...base, leaseUntil: NOW - 1 },
      self,
      undefined,
      alive,
      'lease_expired',
    ],
    [
      'lease ran out, nobody asked for the idle time: no',
      { ...base, leaseUntil: NOW - 1, lastRequestAt: NOW - 120_000 },
      self,
      undefined,
      alive,
      null,
    ],
    [
      'lease ran out, idle but pinned by a prewarm: lease_expired',
      { ...base, leaseUntil: NOW - 1, lastRequestAt: 0, pinned: true },
      self,
      undefined,
      alive,
      'lease_expired',
    ],
    [
      'owner was a process of this host that is gone: process_gone',
      base,
      self,
      { host: 'h', pid: 42 },
      () => false,
      'process_gone',
    ],
    ['owner on another host, lease live: no', base, self, { host: 'other', pid: 42 }, () => false, null],
    [
      'this node runs it: never',
      { ...base, leaseUntil: NOW - 1 },
      { ...self, runsIt: true },
      undefined,
      alive,
      null,
    ],
  ];
  for (const [name, r, s, owner, pidAlive, expected] of TABLE) {
    it(name, () => assert.equal(claimReason(r, NOW, s, owner, pidAlive), expected));
  }
});

describe('firstMissingFrom: where a claimed run starts', () => {
  const have = (set: number[]) => (i: number) => set.includes(i);
  const TABLE: [string, number, number, number[], number | null][] = [
    ['nothing made: at the wanted segment', 10, 4, [], 4],
    ['the dead owner made 4..6: goes on at 7', 10, 4, [4, 5, 6], 7],
    ['everything after the wanted one made: the first missing before it', 10, 8, [8, 9], 0],
    ['all made: nothing to run', 3, 1, [0, 1, 2], null],
    ['wanted past the end: from the start', 3, 9, [1], 0],
  ];
  for (const [name, total, from, made, expected] of TABLE) {
    it(name, () => assert.equal(firstMissingFrom(total, from, have(made)), expected));
  }
});

describe('fencing: only the current epoch writes', () => {
  const TABLE: [string, { epoch: number; ownerNode: string | null } | null, number, boolean][] = [
    ['the holder of the epoch', { epoch: 3, ownerNode: 'w' }, 3, true],
    ['a zombie of an older epoch', { epoch: 4, ownerNode: 'w2' }, 3, false],
    ['a run given back', { epoch: 3, ownerNode: null }, 3, false],
    ['a row the cache removed', null, 3, false],
  ];
  for (const [name, r, epoch, expected] of TABLE) {
    it(name, () => assert.equal(announceAllowed(r, epoch), expected));
  }
  it('a run learns at renewal that it lost its claim', () => {
    assert.equal(claimLost({ epoch: 2 }, 2), false);
    assert.equal(claimLost({ epoch: 3 }, 2), true);
    assert.equal(claimLost(undefined, 2), true);
  });
});

describe('publishedRunOf: the speed of a conversion another node runs, from its heartbeat load', () => {
  const load = (runs: unknown) => JSON.stringify({ conversions: { in_use: 1, limit: 1 }, hls_runs: runs });
  const slow = { file_id: 7, device: 'web', speed: 0.5, slow_ms: 4_000 };
  const cases: { name: string; nodes: { id: string; loadJson: string }[]; want: unknown }[] = [
    { name: 'the worker converting it', nodes: [{ id: 'w', loadJson: load([slow]) }], want: slow },
    {
      name: 'keeping up: no slow time',
      nodes: [{ id: 'w', loadJson: load([{ ...slow, speed: 1.4, slow_ms: null }]) }],
      want: { ...slow, speed: 1.4, slow_ms: null },
    },
    { name: 'this node itself is not asked', nodes: [{ id: 'self', loadJson: load([slow]) }], want: null },
    { name: 'another device', nodes: [{ id: 'w', loadJson: load([{ ...slow, device: 'tv' }]) }], want: null },
    { name: 'another film', nodes: [{ id: 'w', loadJson: load([{ ...slow, file_id: 8 }]) }], want: null },
    {
      name: 'the first node that has it, past ones that do not',
      nodes: [
        { id: 'w1', loadJson: load([]) },
        { id: 'w2', loadJson: load([slow]) },
      ],
      want: slow,
    },
    {
      name: 'an older version publishes no runs',
      nodes: [{ id: 'w', loadJson: '{"conversions":{}}' }],
      want: null,
    },
    { name: 'a load that is not JSON', nodes: [{ id: 'w', loadJson: 'not json' }], want: null },
    {
      name: 'malformed entries are skipped',
      nodes: [
        { id: 'w', loadJson: load([{ file_id: '7', device: 'web', speed: 0.5, slow_ms: null }, null, slow]) },
      ],
      want: slow,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const nodes = c.nodes.map((n) => ({ ...n, role: 'worker' }));
      assert.deepEqual(publishedRunOf(nodes, 'self', 7, 'web'), c.want);
    });
  }
});
