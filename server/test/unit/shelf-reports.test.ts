// Issue 27 items 2 and 3: the rip queue's order and choice of disc, and the upgrades' decisions,
// as tables (disc format + files' height / HDR / duration + runtime → reasons).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildRipQueue, type RipCandidate } from '../../src/domain/collector/rip-queue.ts';
import {
  type UpgradeDisc,
  type UpgradeFile,
  upgradeFileFacts,
  upgradeReasons,
} from '../../src/domain/collector/upgrades.ts';
import { UpgradeFileFacts } from '../../src/services/collector/upgrade-file-facts.ts';

let nextCopy = 1;
function disc(
  movie: number,
  format: string | null,
  binder: string | null,
  slot: string | null,
  runtime: number | null = 100,
): RipCandidate {
  return {
    copy_id: nextCopy++,
    movie_id: movie,
    title: `Film ${movie}`,
    year: 2000,
    format,
    edition: null,
    binder,
    slot,
    on_loan: false,
    runtime_minutes: runtime,
  };
}

/** The queue as `binder/slot:movie` strings. */
function order(candidates: RipCandidate[], formats: string[] | null = null): string[] {
  return buildRipQueue(candidates, formats).items.map(
    (i) => `${i.binder ?? '-'}/${i.slot ?? '-'}:${i.movie_id}`,
  );
}

describe('rip queue', () => {
  it('binder by name, numbered slots by number, then named slots, then no slot; no binder last', () => {
    const got = order([
      disc(1, 'DVD', null, null),
      disc(2, 'DVD', 'B', '1'),
      disc(3, 'DVD', 'A', '10'),
      disc(4, 'DVD', 'A', 'Pocket'),
      disc(5, 'DVD', 'A', '2'),
      disc(6, 'DVD', 'A', null),
      disc(7, 'DVD', 'A', 'A3'),
      disc(8, 'DVD', 'A 2', '1'),
    ]);
    assert.deepEqual(got, ['A/2:5', 'A/10:3', 'A/A3:7', 'A/Pocket:4', 'A/-:6', 'A 2/1:8', 'B/1:2', '-/-:1']);
  });

  it('one item per film: its best disc (4K before Blu-ray before DVD), then the first in binder order', () => {
    const q = buildRipQueue(
      [disc(1, 'DVD', 'A', '1'), disc(1, '4K UHD', 'Z', '9'), disc(1, 'Blu-ray', 'A', '2')],
      null,
    );
    assert.deepEqual(
      q.items.map((i) => [i.format, i.binder, i.slot]),
      [['4K UHD', 'Z', '9']],
    );
    const tie = buildRipQueue([disc(2, 'DVD', 'B', '3'), disc(2, 'DVD', 'B', '1')], null);
    assert.equal(tie.items[0]?.slot, '1');
  });

  it('the format filter keeps films whose disc to rip is of that format; the total adds their runtimes', () => {
    const all = [
      disc(1, '4K UHD', 'A', '1', 120),
      disc(2, 'Blu-ray', 'A', '2', 90),
      disc(3, '4K UHD', 'A', '3', null),
      disc(4, 'DVD', 'A', '4', 80),
      disc(4, '4K UHD', 'A', '5', 80),
    ];
    assert.deepEqual(order(all, ['4K UHD']), ['A/1:1', 'A/3:3', 'A/5:4']);
    assert.equal(buildRipQueue(all, ['4K UHD']).total_runtime_minutes, 200);
    assert.deepEqual(order(all, ['DVD']), []);
    assert.deepEqual(order(all, ['Blu-ray', '4K UHD']), ['A/1:1', 'A/2:2', 'A/3:3', 'A/5:4']);
    assert.equal(buildRipQueue(all, null).total_runtime_minutes, 290);
  });
});

const uhd = (copy = 1, edition: string | null = null): UpgradeDisc => ({
  copy_id: copy,
  format: '4K UHD',
  edition,
});
const bd = (copy = 2, edition: string | null = null): UpgradeDisc => ({
  copy_id: copy,
  format: 'Blu-ray',
  edition,
});
const dvd = (copy = 3, edition: string | null = null): UpgradeDisc => ({
  copy_id: copy,
  format: 'DVD',
  edition,
});
function file(
  id: number,
  width: number | null,
  height: number | null,
  hdr: boolean | null,
  seconds: number | null,
): UpgradeFile {
  return { file_id: id, width, height, hdr, duration_seconds: seconds };
}

describe('upgrade reasons', () => {
  const cases: {
    name: string;
    discs: UpgradeDisc[];
    files: UpgradeFile[];
    runtime: number | null;
    codes: string[];
    copy?: number;
    file?: number;
  }[] = [
    {
      name: '4K disc, 1080p SDR file',
      discs: [uhd()],
      files: [file(10, 1920, 1080, false, 6000)],
      runtime: 100,
      codes: ['uhd_disc_hd_file', 'hdr_disc_sdr_file'],
      copy: 1,
      file: 10,
    },
    {
      name: '4K disc, 2160p HDR file',
      discs: [uhd()],
      files: [file(10, 3840, 2160, true, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: '4K disc, scope 3840×1600 HDR file is 4K',
      discs: [uhd()],
      files: [file(10, 3840, 1600, true, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: '4K disc, 2160p SDR file',
      discs: [uhd()],
      files: [file(10, 3840, 2160, false, 6000)],
      runtime: 100,
      codes: ['hdr_disc_sdr_file'],
    },
    {
      name: '4K disc, best of two files counts',
      discs: [uhd()],
      files: [file(10, 1920, 1080, false, 6000), file(11, 3840, 2160, true, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'Blu-ray, 720×576 file',
      discs: [bd()],
      files: [file(10, 720, 576, false, 6000)],
      runtime: 100,
      codes: ['bluray_disc_dvd_file'],
      copy: 2,
      file: 10,
    },
    {
      name: 'Blu-ray, 1280×536 scope 720p file is HD',
      discs: [bd()],
      files: [file(10, 1280, 536, false, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'Blu-ray, 1080p file',
      discs: [bd()],
      files: [file(10, 1920, 1080, false, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'DVD, DVD file',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'Blu-ray Dolby Vision edition, SDR file',
      discs: [bd(2, 'Dolby Vision')],
      files: [file(10, 1920, 1080, false, 6000)],
      runtime: 100,
      codes: ['hdr_disc_sdr_file'],
    },
    {
      name: 'Blu-ray HDR edition, HDR file',
      discs: [bd(2, 'HDR Remaster')],
      files: [file(10, 1920, 1080, true, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'not analysed file: no resolution or HDR reason',
      discs: [uhd()],
      files: [file(10, null, null, null, null)],
      runtime: 100,
      codes: [],
    },
    { name: 'no file: nothing (the rip queue has it)', discs: [uhd()], files: [], runtime: 100, codes: [] },
    {
      name: '2 s file against a 1-minute runtime',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 2)],
      runtime: 1,
      codes: ['file_short'],
      copy: 3,
      file: 10,
    },
    {
      name: '58 s file against 1 minute (within 5 %)',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 58)],
      runtime: 1,
      codes: [],
    },
    {
      name: '56 s file against 1 minute (6.7 % short)',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 56)],
      runtime: 1,
      codes: ['file_short'],
    },
    {
      name: 'the longest file decides',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 2), file(11, 720, 480, false, 60)],
      runtime: 1,
      codes: [],
    },
    {
      name: 'no runtime: never short',
      discs: [dvd()],
      files: [file(10, 720, 480, false, 2)],
      runtime: null,
      codes: [],
    },
    {
      name: 'two copies of one edition',
      discs: [bd(2, 'Steelbook'), bd(5, ' steelbook ')],
      files: [],
      runtime: null,
      codes: ['duplicate_edition'],
      copy: 5,
    },
    {
      name: 'two editions of one film are not doubles',
      discs: [bd(2, 'Steelbook'), bd(5)],
      files: [],
      runtime: null,
      codes: [],
    },
    {
      name: 'a 4K and a Blu-ray are not doubles',
      discs: [uhd(1), bd(2)],
      files: [file(10, 3840, 2160, true, 6000)],
      runtime: 100,
      codes: [],
    },
    {
      name: 'all at once',
      discs: [uhd(1), bd(2), bd(4)],
      files: [file(10, 720, 576, false, 30)],
      runtime: 100,
      codes: [
        'uhd_disc_hd_file',
        'bluray_disc_dvd_file',
        'hdr_disc_sdr_file',
        'file_short',
        'duplicate_edition',
      ],
      copy: 1,
      file: 10,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const item = upgradeReasons({
        movie_id: 7,
        title: 'T',
        runtime_minutes: c.runtime,
        discs: c.discs,
        files: c.files,
      });
      assert.deepEqual(item?.reasons.map((r) => r.code) ?? [], c.codes);
      if (c.copy !== undefined) assert.equal(item?.copy_id, c.copy);
      if (c.file !== undefined) assert.equal(item?.file_id, c.file);
      for (const r of item?.reasons ?? []) assert.ok(r.message.length > 10, r.message);
    });
  }

  it('messages say why', () => {
    const item = upgradeReasons({
      movie_id: 1,
      title: 'T',
      runtime_minutes: 1,
      discs: [uhd(1), uhd(9)],
      files: [file(4, 1920, 1080, false, 2)],
    });
    assert.deepEqual(
      item?.reasons.map((r) => r.message),
      [
        'A 4K UHD disc, but the best file is 1080p (1920×1080).',
        'An HDR disc (4K UHD), but no file is HDR.',
        'The longest file runs 2 s, 97 % shorter than TMDb’s 1 min: the rip may have stopped early.',
        '2 copies of the same edition, 4K UHD (copies 1, 9).',
      ],
    );
  });
});

describe('upgradeFileFacts', () => {
  it('reads height, width, HDR and duration from the analysis record', () => {
    const json = JSON.stringify({
      duration_seconds: 2.04,
      video: { width: 3840, height: 2160, hdr: 'hdr10' },
    });
    assert.deepEqual(upgradeFileFacts(3, json), {
      file_id: 3,
      width: 3840,
      height: 2160,
      hdr: true,
      duration_seconds: 2.04,
    });
    for (const hdr of ['hdr10plus', 'hlg', 'dolby_vision']) {
      assert.equal(upgradeFileFacts(3, JSON.stringify({ video: { hdr } })).hdr, true, hdr);
    }
    assert.equal(upgradeFileFacts(3, JSON.stringify({ video: { hdr: 'sdr' } })).hdr, false);
    assert.deepEqual(upgradeFileFacts(3, JSON.stringify({ duration_seconds: 5, video: null })), {
      file_id: 3,
      width: null,
      height: null,
      hdr: null,
      duration_seconds: 5,
    });
    assert.equal(upgradeFileFacts(3, null).height, null);
    assert.equal(upgradeFileFacts(3, '{not json').height, null);
  });
});

describe('UpgradeFileFacts', () => {
  it('reads a record once per analysis: again when its stamp changes, dropped when the file is gone', async () => {
    let stamps = [
      { file_id: 1, movie_id: 10, stamp: 'a' },
      { file_id: 2, movie_id: 20, stamp: 'a' },
    ];
    const heights = new Map([
      [1, 1080],
      [2, 576],
    ]);
    const asked: number[][] = [];
    const facts = new UpgradeFileFacts({
      upgradeFileStamps: async () => stamps,
      capabilitiesOf: async (ids) => {
        asked.push([...ids]);
        return ids.map((id) => ({
          id,
          capabilities_json: JSON.stringify({ video: { height: heights.get(id) } }),
        }));
      },
    });
    const heightsOf = async () => (await facts.all()).map((f) => [f.movie_id, f.facts.height]);
    assert.deepEqual(await heightsOf(), [
      [10, 1080],
      [20, 576],
    ]);
    assert.deepEqual(await heightsOf(), [
      [10, 1080],
      [20, 576],
    ]);
    heights.set(2, 2160);
    stamps = [
      { file_id: 2, movie_id: 20, stamp: 'b' },
      { file_id: 3, movie_id: 30, stamp: 'a' },
    ];
    heights.set(3, 720);
    assert.deepEqual(await heightsOf(), [
      [20, 2160],
      [30, 720],
    ]);
    assert.deepEqual(asked, [
      [1, 2],
      [2, 3],
    ]);
  });
});
