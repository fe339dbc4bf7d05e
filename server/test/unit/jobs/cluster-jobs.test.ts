// The rules of jobs shared by several nodes (domain/jobs/cluster-jobs.ts), as tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimsJobs,
  kindsWithFreeSlots,
  type NodeRole,
  nodeAlive,
  releaseDecision,
  takeOverReason,
  writeAllowed,
} from '../../../src/domain/jobs/cluster-jobs.ts';

const NOW = 1_000_000;
const SELF = { nodeId: 'me', host: 'box', runsIt: false };
const alive = (): boolean => true;
const dead = (): boolean => false;

describe('takeOverReason: when a running job may be taken from its owner', () => {
  const cases: {
    name: string;
    job: { owner_node: string | null; lease_until: number | null };
    self?: Partial<typeof SELF>;
    owner?: { host: string; pid: number };
    pidAlive?: (pid: number) => boolean;
    expected: ReturnType<typeof takeOverReason>;
  }[] = [
    { name: 'held, lease in the future', job: { owner_node: 'b', lease_until: NOW + 1 }, expected: null },
    {
      name: 'lease ends exactly now: still held',
      job: { owner_node: 'b', lease_until: NOW },
      expected: null,
    },
    {
      name: 'lease ended a ms ago',
      job: { owner_node: 'b', lease_until: NOW - 1 },
      expected: 'lease_expired',
    },
    { name: 'no lease at all', job: { owner_node: 'b', lease_until: null }, expected: 'lease_expired' },
    {
      name: 'a row without owner (older version)',
      job: { owner_node: null, lease_until: null },
      expected: 'no_owner',
    },
    {
      name: 'owner on this host, process gone: at once',
      job: { owner_node: 'b', lease_until: NOW + 4000 },
      owner: { host: 'box', pid: 42 },
      pidAlive: dead,
      expected: 'process_gone',
    },
    {
      name: 'owner on this host, process alive',
      job: { owner_node: 'b', lease_until: NOW + 4000 },
      owner: { host: 'box', pid: 42 },
      pidAlive: alive,
      expected: null,
    },
    {
      name: 'owner on another host: its pid says nothing here',
      job: { owner_node: 'b', lease_until: NOW + 4000 },
      owner: { host: 'other', pid: 42 },
      pidAlive: dead,
      expected: null,
    },
    {
      name: 'this node runs it, lease late (a long transaction held the heartbeat)',
      job: { owner_node: 'me', lease_until: NOW - 10_000 },
      self: { runsIt: true },
      expected: null,
    },
    {
      name: 'owned by this node id but not running here',
      job: { owner_node: 'me', lease_until: NOW - 1 },
      expected: 'lease_expired',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(
        takeOverReason(c.job, NOW, { ...SELF, ...c.self }, c.owner, c.pidAlive ?? alive),
        c.expected,
      );
    });
  }
});

describe('releaseDecision: queued again or failed "interrupted"', () => {
  const cases: { attempts: number; rerunnable: boolean; max: number; expected: 'requeue' | 'fail' }[] = [
    { attempts: 1, rerunnable: true, max: 1, expected: 'fail' }, // SQLite: one node, one attempt
    { attempts: 0, rerunnable: true, max: 1, expected: 'fail' }, // a running row of an older version
    { attempts: 0, rerunnable: true, max: 3, expected: 'requeue' },
    { attempts: 1, rerunnable: true, max: 3, expected: 'requeue' },
    { attempts: 2, rerunnable: true, max: 3, expected: 'requeue' },
    { attempts: 3, rerunnable: true, max: 3, expected: 'fail' },
    { attempts: 1, rerunnable: false, max: 3, expected: 'fail' }, // an import: its request is gone
  ];
  for (const c of cases) {
    it(`${c.attempts} attempt(s) of ${c.max}, ${c.rerunnable ? 'rerunnable' : 'not rerunnable'} → ${c.expected}`, () => {
      const decision = releaseDecision({ attempts: c.attempts }, c.rerunnable, c.max);
      assert.equal(decision.action, c.expected);
      if (decision.action === 'fail') assert.match(decision.reason, /^interrupted/);
    });
  }
});

describe('which kinds a node claims', () => {
  const kinds = new Map([
    ['scan', { concurrency: 1, running: 1, claimable: true }],
    ['enrich', { concurrency: 1, running: 0, claimable: true }],
    ['artifact', { concurrency: 2, running: 1, claimable: true }],
    ['import', { concurrency: 1, running: 0, claimable: false }],
  ]);
  const cases: { role: NodeRole; expected: string[] }[] = [
    { role: 'all', expected: ['artifact', 'enrich'] },
    { role: 'worker', expected: ['artifact', 'enrich'] },
    { role: 'api', expected: [] },
  ];
  for (const c of cases) {
    it(`${c.role}: ${c.expected.join(', ') || 'nothing'}`, () => {
      assert.deepEqual(kindsWithFreeSlots(c.role, kinds), c.expected);
      assert.equal(claimsJobs(c.role), c.role !== 'api');
    });
  }
});

describe('fencing: only the current epoch writes', () => {
  const cases: { row: { epoch: number; status: string }; writer: number; expected: boolean }[] = [
    { row: { epoch: 2, status: 'running' }, writer: 2, expected: true },
    { row: { epoch: 3, status: 'running' }, writer: 2, expected: false }, // taken over: a zombie
    { row: { epoch: 2, status: 'succeeded' }, writer: 2, expected: false }, // ended already
    { row: { epoch: 2, status: 'queued' }, writer: 2, expected: true }, // being given back
  ];
  for (const c of cases) {
    it(`row epoch ${c.row.epoch} ${c.row.status}, writer ${c.writer} → ${c.expected}`, () => {
      assert.equal(writeAllowed(c.row, c.writer), c.expected);
    });
  }
});

describe('nodeAlive', () => {
  it('alive while the heartbeat is at most nodeDeadMs old', () => {
    assert.equal(nodeAlive(NOW - 5000, NOW, { nodeDeadMs: 5000 }), true);
    assert.equal(nodeAlive(NOW - 5001, NOW, { nodeDeadMs: 5000 }), false);
  });
});
