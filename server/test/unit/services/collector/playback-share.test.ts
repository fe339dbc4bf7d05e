// The playback share's kept classes (issue 27 item 6): decided once per file and device, re-decided
// only for what the generation's log names, counted through the viewer's visible films.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeSummary } from '../../../../src/domain/library-listing/changes.ts';
import type {
  PlaybackPrediction,
  PlaybackStatusCode,
} from '../../../../src/domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../../../src/domain/playback/device-profiles.ts';
import type { LibraryFileRow } from '../../../../src/repositories/library.repository.ts';
import { PlaybackShareIndex } from '../../../../src/services/collector/playback-share.ts';

function row(id: number, movieId: number | null, kind: string, status = 'present'): LibraryFileRow {
  return {
    id,
    movie_id: movieId,
    edition_id: null,
    root_path: '/r',
    relative_path: `${id}.mkv`,
    size_bytes: 1,
    fingerprint: null,
    edition_label: kind,
    status,
    analysis_status: 'analyzed',
    capabilities_json: null,
    analysis_error: null,
    analyzed_size_bytes: null,
    analyzed_fingerprint: null,
    position_seconds: null,
    watched: null,
    sidecars_json: '[]',
  };
}

const DEVICES = [
  { id: 'web', name: 'Web' },
  { id: 'full', name: 'Kodi' },
] as DeviceProfile[];

/** `kind` (the edition label here) decides: plays direct on `full`, else by its name. */
function decide(file: LibraryFileRow, profile: DeviceProfile) {
  const kind = file.edition_label ?? '';
  const table: Record<string, [PlaybackPrediction, PlaybackStatusCode]> = {
    direct: ['direct', 'direct_play'],
    remux: ['remux', 'direct_play_remux'],
    never: ['strict_incompatible', 'incompatible'],
    unread: ['strict_incompatible', 'unknown'],
  };
  const [prediction, statusCode] = table[profile.id === 'full' && kind !== 'unread' ? 'direct' : kind] ?? [
    'strict_incompatible',
    'unknown',
  ];
  return { decision: { prediction, statusCode } };
}

function harness(initial: LibraryFileRow[]) {
  let files = new Map(initial.map((f) => [f.id, f]));
  let generation = 1;
  let boot = 'a';
  let changes: ChangeSummary = { all: true };
  const decided: number[] = [];
  const index = new PlaybackShareIndex({
    files: {
      files: async (scope) =>
        [...files.values()].filter(
          (f) => scope === undefined || (Array.isArray(scope) && scope.includes(f.movie_id)),
        ),
      filesById: async (ids) => [...files.values()].filter((f) => ids.includes(f.id)),
    },
    decide: (file, profile) => {
      decided.push(file.id);
      return decide(file, profile);
    },
    devices: () => DEVICES,
    generation: { current: () => ({ boot, generation }), since: () => changes },
  });
  return {
    index,
    decided,
    change(summary: ChangeSummary, next: LibraryFileRow[]) {
      files = new Map(next.map((f) => [f.id, f]));
      changes = summary;
      generation++;
      decided.length = 0;
    },
    restart() {
      boot = 'b';
      decided.length = 0;
    },
  };
}

/** `device: direct/converted/not_playable/unknown`. */
async function shares(
  index: PlaybackShareIndex,
  visible: ReadonlySet<number> | null = null,
  unmatched = true,
) {
  return (await index.share(visible, unmatched)).map(
    (d) =>
      `${d.device}: ${d.counts.direct}/${d.counts.converted}/${d.counts.not_playable}/${d.counts.unknown}`,
  );
}

describe('PlaybackShareIndex', () => {
  const base = [
    row(1, 10, 'direct'),
    row(2, 20, 'remux'),
    row(3, 30, 'never'),
    row(4, null, 'unread'),
    row(5, 50, 'remux', 'missing'),
  ];

  it('counts present files by class per device; missing files are not counted', async () => {
    const h = harness(base);
    assert.deepEqual(await shares(h.index), ['web: 1/1/1/1', 'full: 3/0/0/1']);
    assert.deepEqual(h.decided.sort(), [1, 1, 2, 2, 3, 3, 4, 4]);
  });

  it('an unchanged generation decides nothing again', async () => {
    const h = harness(base);
    await shares(h.index);
    h.decided.length = 0;
    await shares(h.index);
    await shares(h.index);
    assert.deepEqual(h.decided, []);
  });

  it('a change re-decides only the files and films it names; gone files leave', async () => {
    const h = harness(base);
    await shares(h.index);
    // File 2 became direct, film 30's file went away, file 6 came to film 30.
    const next = [
      row(1, 10, 'direct'),
      row(2, 20, 'direct'),
      row(6, 30, 'remux'),
      row(4, null, 'unread'),
      row(5, 50, 'remux', 'missing'),
    ];
    h.change({ all: false, files: new Set([2, 3]), movies: new Set([30]) }, next);
    assert.deepEqual(await shares(h.index), ['web: 2/1/0/1', 'full: 3/0/0/1']);
    assert.deepEqual([...new Set(h.decided)].sort(), [2, 6]);
  });

  it('everything changed (or a restart): all decided again', async () => {
    const h = harness(base);
    await shares(h.index);
    h.change({ all: true }, base);
    await shares(h.index);
    assert.equal(new Set(h.decided).size, 4);
    h.restart();
    await shares(h.index);
    assert.equal(new Set(h.decided).size, 4);
  });

  it('counts only the films the viewer sees, and unmatched files only when allowed', async () => {
    const h = harness(base);
    assert.deepEqual(await shares(h.index, new Set([10, 20]), false), ['web: 1/1/0/0', 'full: 2/0/0/0']);
    assert.deepEqual(await shares(h.index, new Set([30]), true), ['web: 0/0/1/1', 'full: 1/0/0/1']);
  });

  it('a long build lets other work run between slices of files', async () => {
    const many = Array.from({ length: 600 }, (_, i) => row(i + 1, i + 1, 'remux'));
    const h = harness(many);
    let decidedWhenOtherRan = -1;
    setImmediate(() => (decidedWhenOtherRan = h.decided.length));
    assert.deepEqual(await shares(h.index), ['web: 0/600/0/0', 'full: 600/0/0/0']);
    // It ran after the first slice was decided and before the last.
    assert.ok(decidedWhenOtherRan > 0 && decidedWhenOtherRan < 1200, String(decidedWhenOtherRan));
  });

  it('concurrent requests share one refresh', async () => {
    const h = harness(base);
    await Promise.all([shares(h.index), shares(h.index), shares(h.index)]);
    assert.equal(h.decided.length, 8);
  });
});
