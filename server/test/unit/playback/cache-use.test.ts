// Whether a cached artifact or presentation is in use, as any node of the cluster sees it
// (domain/playback/cache-use.ts): a table per kind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ARTIFACT_IN_USE_MS,
  ARTIFACT_READ_REFRESH_MS,
  artifactUse,
  type ArtifactUseInput,
  presentationUse,
  type PresentationUseInput,
} from '../../../src/domain/playback/cache-use.ts';

const NOW = 1_700_000_000_000;
const IDLE = 60_000;

describe('artifactUse', () => {
  const base: ArtifactUseInput = { lastUsedMs: NOW - 600_000, openHere: false, justMade: false, now: NOW };
  const TABLE: [string, Partial<ArtifactUseInput>, boolean][] = [
    ['nobody streamed it for minutes: evictable', {}, false],
    ['streamed here now (the row not written yet)', { openHere: true }, true],
    ['just made here (its build asked for this clean)', { justMade: true }, true],
    ['its row refreshed by another node a moment ago', { lastUsedMs: NOW - 500 }, true],
    [
      'two refreshes of another node late: still in use',
      { lastUsedMs: NOW - 2 * ARTIFACT_READ_REFRESH_MS - 1 },
      true,
    ],
    ['no refresh for the whole window: the stream ended', { lastUsedMs: NOW - ARTIFACT_IN_USE_MS }, false],
    ['a writer whose clock runs ahead', { lastUsedMs: NOW + 1_000 }, true],
  ];
  for (const [name, change, inUse] of TABLE) {
    it(name, () => {
      const input = { ...base, ...change };
      assert.deepEqual(artifactUse(input), { lastUsedMs: input.lastUsedMs, inUse });
    });
  }

  it('the window outlasts more than two refresh periods', () => {
    assert.ok(ARTIFACT_IN_USE_MS > 2 * ARTIFACT_READ_REFRESH_MS);
  });
});

describe('presentationUse', () => {
  const base: PresentationUseInput = {
    local: null,
    row: null,
    folderMtimeMs: NOW - 900_000,
    now: NOW,
    idleMs: IDLE,
  };
  const row = (lastRequestAt: number, more: { pinned?: boolean; ownedElsewhere?: boolean } = {}) => ({
    lastRequestAt,
    pinned: more.pinned ?? false,
    ownedElsewhere: more.ownedElsewhere ?? false,
  });
  const TABLE: [string, Partial<PresentationUseInput>, { lastUsedMs: number; inUse: boolean }][] = [
    [
      'an earlier process left the folder (no memory, no row): its mtime, not in use',
      {},
      { lastUsedMs: NOW - 900_000, inUse: false },
    ],
    [
      'finished, run given back, served by another node now (the bug: evicted on A)',
      { row: row(NOW - 1_000) },
      { lastUsedMs: NOW - 1_000, inUse: true },
    ],
    [
      'another node converts it (its lease live), nobody asked for long',
      { row: row(NOW - 300_000, { ownedElsewhere: true }) },
      { lastUsedMs: NOW - 300_000, inUse: true },
    ],
    [
      "a prewarm pins it (another node's remux reads it)",
      { row: row(NOW - 300_000, { pinned: true }) },
      { lastUsedMs: NOW - 300_000, inUse: true },
    ],
    [
      'asked for by no node within the idle time',
      { row: row(NOW - IDLE) },
      { lastUsedMs: NOW - IDLE, inUse: false },
    ],
    [
      'this node converts it: in use whatever the row says',
      { local: { lastRequestMs: NOW - 300_000, inUse: true }, row: row(NOW - 300_000) },
      { lastUsedMs: NOW - 300_000, inUse: true },
    ],
    [
      "this node's player asked a moment ago (not written yet: once a second)",
      { local: { lastRequestMs: NOW - 200, inUse: false }, row: row(NOW - 300_000) },
      { lastUsedMs: NOW - 200, inUse: true },
    ],
    [
      "the newest of memory and row is its last use: another node's player is newer",
      { local: { lastRequestMs: NOW - 500_000, inUse: false }, row: row(NOW - 200_000) },
      { lastUsedMs: NOW - 200_000, inUse: false },
    ],
    [
      'known here only (its row gone), asked long ago',
      { local: { lastRequestMs: NOW - 200_000, inUse: false } },
      { lastUsedMs: NOW - 200_000, inUse: false },
    ],
  ];
  for (const [name, change, expected] of TABLE) {
    it(name, () => assert.deepEqual(presentationUse({ ...base, ...change }), expected));
  }
});
