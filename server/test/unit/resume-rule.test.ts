import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationOfCapabilities, resumeOutcome } from '../../src/domain/resume-rule.ts';

// The one resume rule (Jellyfin's UpdatePlayState with its server defaults), shared by reelshelf's
// own progress route and the Jellyfin facade.

describe('resumeOutcome', () => {
  const film = 6000; // a 100-minute film
  const table: [string, number, number | null, { positionSeconds: number; played: boolean }][] = [
    ['nothing reported', 0, film, { positionSeconds: 0, played: false }],
    ['4 %: the start, nothing to resume', 240, film, { positionSeconds: 0, played: false }],
    ['5 %: resumable', 300, film, { positionSeconds: 300, played: false }],
    ['50 %: resumable', 3000, film, { positionSeconds: 3000, played: false }],
    ['90 %: still resumable', 5400, film, { positionSeconds: 5400, played: false }],
    ['91 %: played', 5460, film, { positionSeconds: 0, played: true }],
    ['past the end: played', 7000, film, { positionSeconds: 0, played: true }],
    ['within a second of the end: played', 5999.5, film, { positionSeconds: 0, played: true }],
    ['a 4-minute film at 50 %: played', 120, 240, { positionSeconds: 0, played: true }],
    ['a 4-minute film at 4 %: the start', 9, 240, { positionSeconds: 0, played: false }],
    ['a 5-minute film at 50 %: resumable', 150, 300, { positionSeconds: 150, played: false }],
    ['unknown duration: kept as reported', 125, null, { positionSeconds: 125, played: false }],
    ['a negative position: nothing', -5, film, { positionSeconds: 0, played: false }],
  ];
  for (const [name, position, duration, expected] of table) {
    it(name, () => assert.deepEqual(resumeOutcome(position, duration), expected));
  }
});

describe('durationOfCapabilities', () => {
  it('reads duration_seconds; anything else is unknown', () => {
    assert.equal(durationOfCapabilities(JSON.stringify({ duration_seconds: 4.02 })), 4.02);
    assert.equal(durationOfCapabilities(null), null);
    assert.equal(durationOfCapabilities('{'), null);
    assert.equal(durationOfCapabilities('{"duration_seconds":null}'), null);
    assert.equal(durationOfCapabilities('7'), null);
  });
});
