import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobProgress, jobView } from '../../src/domain/job-progress.ts';
import type { JobRow } from '../../src/repositories/job.repository.ts';

describe('jobProgress', () => {
  const cases: [number, number, { done: number; total: number }][] = [
    [0, 0, { done: 0, total: 0 }],
    [3, 10, { done: 3, total: 10 }],
    [10, 10, { done: 10, total: 10 }],
    // An estimate that overshoots, or a count that went wrong, never reads as more than everything.
    [1001, 1000, { done: 1000, total: 1000 }],
    [-2, 10, { done: 0, total: 10 }],
    [5, -1, { done: 0, total: 0 }],
    [2.7, 9.9, { done: 2, total: 9 }],
  ];
  for (const [done, total, expected] of cases) {
    it(`${done}/${total} → ${expected.done}/${expected.total}`, () =>
      assert.deepEqual(jobProgress(done, total), expected));
  }
});

describe('jobView', () => {
  it('one shape for every kind: no payload, no result, progress clamped', () => {
    // A whole jobs row, as the runner passes it: payload and result stay out of the view.
    const row: JobRow = {
      id: 7,
      kind: 'artifact',
      dedupe_key: 'artifact:abc',
      status: 'running',
      payload_json: '{"key":"abc"}',
      progress_done: 1002,
      progress_total: 1000,
      result_json: null,
      error: null,
      created_at: '2024-05-01T10:00:00.000Z',
      started_at: '2024-05-01T10:00:01.000Z',
      finished_at: null,
      owner_node: null,
      lease_until: null,
      epoch: 1,
      cancel_requested: 0,
      attempts: 1,
    };
    assert.deepEqual(jobView(row), {
      id: 7,
      kind: 'artifact',
      status: 'running',
      progress: { done: 1000, total: 1000 },
      error: null,
      created_at: '2024-05-01T10:00:00.000Z',
      started_at: '2024-05-01T10:00:01.000Z',
      finished_at: null,
    });
  });
});
