// Issue 27 items 2 and 3 on the engine under test (SQLite, or PostgreSQL with
// REELSHELF_TEST_DATABASE=postgres): a library built here with REAL ffmpeg files of known resolution,
// HDR and duration, scanned and analysed by the server; the rip queue's order, format filter, total
// and a scan taking a film off it; each upgrade reason and a double; the viewer's content limit.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { RipQueueResponse, UpgradesResponse } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { childReadKey } from '../helpers/household.ts';
import { jsonBody, readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

interface Clip {
  width: number;
  height: number;
  seconds: number;
  /** HEVC 10-bit with PQ transfer and BT.2020 (HDR10, as the analyser reads it); else H.264 SDR. */
  hdr?: boolean;
  /** Frames a second as ffmpeg reads it; `1/60` makes a feature-length file of ten frames. */
  rate?: string;
}

/** A real video file of the given size, HDR and duration (a frame a second or fewer: cheap to encode). */
async function makeClip(path: string, clip: Clip): Promise<void> {
  const source = [
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${clip.seconds}:size=${clip.width}x${clip.height}:rate=${clip.rate ?? '1'}`,
  ];
  const video = clip.hdr
    ? [
        '-c:v',
        'libx265',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p10le',
        '-x265-params',
        'log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc',
        '-color_primaries',
        'bt2020',
        '-color_trc',
        'smpte2084',
        '-colorspace',
        'bt2020nc',
      ]
    : ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  mkdirSync(join(path, '..'), { recursive: true });
  await run(fixtureFfmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...source, ...video, path], {
    timeout: 300_000,
  });
}

let server: TestServer;
let mediaDir: string;
let rootId = 0;
const movieIds = new Map<string, number>();
const copyIds = new Map<string, number[]>();

async function film(
  title: string,
  year: number,
  runtime: number | null,
  copies: { binder: string; slot: string; format: string; edition?: string }[],
): Promise<void> {
  const made = await readJson<{ id: number; physical_copies: { id: number }[] }>(
    await server.api(
      '/api/movies',
      jsonBody('POST', { title, year, runtime_minutes: runtime, physical_copies: copies }),
    ),
    201,
  );
  movieIds.set(title, made.id);
  copyIds.set(
    title,
    made.physical_copies.map((c) => c.id),
  );
}

/** The file Jellyfin's layout names for the film: `Title (Year)/Title (Year).mkv`. */
const fileOf = (title: string, year: number) =>
  join(mediaDir, `${title} (${year})`, `${title} (${year}).mkv`);

async function scan(): Promise<void> {
  await readJson(await server.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' }));
}

const ripQueue = async (query = '', auth?: string) =>
  readJson<RipQueueResponse>(
    await server.api(
      `/api/rip-queue${query}`,
      auth === undefined ? {} : { headers: { authorization: `Bearer ${auth}` } },
    ),
  );
const upgrades = async (auth?: string) =>
  readJson<UpgradesResponse>(
    await server.api(
      '/api/upgrades',
      auth === undefined ? {} : { headers: { authorization: `Bearer ${auth}` } },
    ),
  );

describe('rip queue and upgrades', () => {
  before(async () => {
    server = await startTestServer();
    mediaDir = mkdtempSync(join(tmpdir(), 'reelshelf-shelf-'));
    // Films with files (binder C): each built to show one reason, or none.
    await film('Uhd Hd', 2001, null, [{ binder: 'C', slot: '1', format: '4K UHD' }]);
    await film('Uhd Full', 2002, null, [{ binder: 'C', slot: '2', format: '4K UHD' }]);
    await film('Bluray Dvd', 2003, null, [{ binder: 'C', slot: '3', format: 'Blu-ray' }]);
    await film('Vision Sdr', 2004, null, [
      { binder: 'C', slot: '4', format: 'Blu-ray', edition: 'Dolby Vision' },
    ]);
    await film('Short Rip', 2005, 1, [{ binder: 'C', slot: '5', format: 'DVD' }]);
    await film('Full Rip', 2006, 1, [{ binder: 'C', slot: '6', format: 'DVD' }]);
    // Films with no file: the rip queue (binders A and B).
    await film('Queue Four', 2010, 120, [{ binder: 'A', slot: '1', format: '4K UHD' }]);
    await film('Queue Pocket', 2011, 90, [{ binder: 'A', slot: 'Pocket', format: 'Blu-ray' }]);
    await film('Queue Dvd', 2012, 100, [{ binder: 'B', slot: '2', format: 'DVD' }]);
    await film('Double', 2013, null, [
      { binder: 'A', slot: '6', format: 'Blu-ray', edition: 'Steelbook' },
      { binder: 'A', slot: '5', format: 'Blu-ray', edition: 'Steelbook' },
    ]);
    await film('Gone File', 2014, 95, [{ binder: 'B', slot: '3', format: 'DVD' }]);
    const clips: [string, number, Clip][] = [
      ['Uhd Hd', 2001, { width: 1920, height: 1080, seconds: 2 }],
      ['Uhd Full', 2002, { width: 3840, height: 2160, seconds: 2, hdr: true }],
      ['Bluray Dvd', 2003, { width: 720, height: 576, seconds: 2 }],
      ['Vision Sdr', 2004, { width: 1280, height: 720, seconds: 2 }],
      // Against a runtime of one minute: 2 s is a rip that stopped early, 58 s is within 5 %.
      ['Short Rip', 2005, { width: 320, height: 240, seconds: 2 }],
      ['Full Rip', 2006, { width: 64, height: 48, seconds: 58 }],
      ['Gone File', 2014, { width: 320, height: 240, seconds: 2 }],
    ];
    for (const [title, year, clip] of clips) await makeClip(fileOf(title, year), clip);
    rootId = (
      await readJson<{ id: number }>(
        await server.api('/api/library-roots', jsonBody('POST', { path: mediaDir })),
        201,
      )
    ).id;
    await scan();
    // A file that went missing does not count as ripped: its film goes back on the queue.
    rmSync(join(mediaDir, 'Gone File (2014)'), { recursive: true });
    await scan();
  });
  after(async () => {
    await server?.close();
    if (mediaDir !== undefined) rmSync(mediaDir, { recursive: true, force: true });
  });

  it('the scan matched every file to its film and analysed it', async () => {
    const detail = await readJson<{ media_files: { status: string }[] }>(
      await server.api(`/api/movies/${movieIds.get('Uhd Full')}`),
    );
    assert.equal(detail.media_files.length, 1);
    assert.equal((await server.api('/api/movies')).status, 200);
    const movies = await readJson<{ total: number }>(await server.api('/api/movies'));
    assert.equal(movies.total, 11, 'no file made a film of its own');
  });

  it('lists films on disc with no present file in binder/slot order, one disc each, with the total', async () => {
    const q = await ripQueue();
    assert.deepEqual(
      q.items.map((i) => `${i.binder}/${i.slot} ${i.title} ${i.format} ${i.runtime_minutes}`),
      [
        'A/1 Queue Four 4K UHD 120',
        'A/5 Double Blu-ray null',
        'A/Pocket Queue Pocket Blu-ray 90',
        'B/2 Queue Dvd DVD 100',
        'B/3 Gone File DVD 95',
      ],
    );
    assert.equal(q.total_runtime_minutes, 405);
    assert.equal(q.total, 5);
    // /stats reads the same rule (rip-queue.predicate.ts): its "on disc only" films are this queue.
    const stats = await readJson<{ films_by_files: { disc_only: number } }>(await server.api('/api/stats'));
    assert.equal(stats.films_by_files.disc_only, q.total);
    assert.deepEqual(q.items[0], {
      copy_id: copyIds.get('Queue Four')?.[0],
      movie_id: movieIds.get('Queue Four'),
      title: 'Queue Four',
      year: 2010,
      format: '4K UHD',
      edition: null,
      binder: 'A',
      slot: '1',
      runtime_minutes: 120,
      on_loan: false,
    });
    assert.equal(q.items[1]?.edition, 'Steelbook');
  });

  it('filters by format, written as collectors write it; an unknown format is a 400', async () => {
    const four = await ripQueue(`?format=${encodeURIComponent('4K UHD')}`);
    assert.deepEqual(
      four.items.map((i) => i.title),
      ['Queue Four'],
    );
    assert.equal(four.total_runtime_minutes, 120);
    const hd = await ripQueue('?format=bluray');
    assert.deepEqual(
      hd.items.map((i) => i.title),
      ['Double', 'Queue Pocket'],
    );
    const two = await ripQueue(`?format=${encodeURIComponent('4K Ultra HD')}&format=DVD`);
    assert.deepEqual(
      two.items.map((i) => i.title),
      ['Queue Four', 'Queue Dvd', 'Gone File'],
    );
    const comma = await ripQueue(`?format=${encodeURIComponent('Blu-ray,DVD')}`);
    assert.equal(comma.items.length, 4);
    const bad = await readJson<{ error: string; hint: string }>(
      await server.api('/api/rip-queue?format=Betamax'),
      400,
    );
    assert.equal(bad.error, 'validation_failed');
    assert.match(bad.hint, /4K UHD/);
  });

  it('a scan that finds the file takes the film off the queue', async () => {
    // Its full 100 minutes: a good rip of the DVD, on no list.
    await makeClip(fileOf('Queue Dvd', 2012), { width: 720, height: 480, seconds: 6000, rate: '1/600' });
    await scan();
    const q = await ripQueue();
    assert.deepEqual(
      q.items.map((i) => i.title),
      ['Queue Four', 'Double', 'Queue Pocket', 'Gone File'],
    );
    assert.equal(q.total_runtime_minutes, 305);
  });

  it('a disc lent out says so on the rip queue, its binder slot and the loans list, until it is back', async () => {
    const copy = copyIds.get('Queue Four')?.[0];
    await readJson(
      await server.api(`/api/physical-copies/${copy}/loan`, jsonBody('POST', { to: 'Ana' })),
      201,
    );
    const out = await ripQueue();
    assert.deepEqual(
      out.items.map((i) => `${i.title} ${i.on_loan}`),
      ['Queue Four true', 'Double false', 'Queue Pocket false', 'Gone File false'],
      'still on the queue (the film has no file), marked as out',
    );
    const loans = await readJson<{ items: { copy_id: number; to: string; title: string }[] }>(
      await server.api('/api/loans'),
    );
    assert.deepEqual(
      loans.items.map((l) => [l.copy_id, l.to, l.title]),
      [[copy, 'Ana', 'Queue Four']],
    );
    const binder = await readJson<{
      pages: { slots: { slot: string; copy: { on_loan: boolean } | null }[] }[];
    }>(await server.api('/api/binders/A'));
    assert.equal(binder.pages[0]?.slots.find((x) => x.slot === '1')?.copy?.on_loan, true);
    const page = await (await server.api('/rip-queue', { headers: { accept: 'text/html' } })).text();
    const row = (html: string, id: number | undefined) => {
      assert.ok(html.includes(`data-copy="${id}"`), `a row for copy ${id}`);
      return html.slice(
        html.indexOf(`data-copy="${id}"`),
        html.indexOf('</tr>', html.indexOf(`data-copy="${id}"`)),
      );
    };
    assert.match(row(page, copy), /On loan/);
    assert.doesNotMatch(row(page, out.items[1]?.copy_id), /On loan/);
    await readJson(await server.api(`/api/physical-copies/${copy}/loan`, { method: 'DELETE' }));
    assert.equal((await ripQueue()).items[0]?.on_loan, false);
  });

  it('upgrades: each reason from the files’ real resolution, HDR and duration, and the double', async () => {
    const { items } = await upgrades();
    const byTitle = new Map(items.map((i) => [i.title, i]));
    const codes = (title: string) => byTitle.get(title)?.reasons.map((r) => r.code) ?? [];
    assert.deepEqual(codes('Uhd Hd'), ['uhd_disc_hd_file', 'hdr_disc_sdr_file']);
    assert.deepEqual(codes('Bluray Dvd'), ['bluray_disc_dvd_file']);
    assert.deepEqual(codes('Vision Sdr'), ['hdr_disc_sdr_file']);
    assert.deepEqual(codes('Short Rip'), ['file_short']);
    assert.deepEqual(codes('Double'), ['duplicate_edition']);
    assert.equal(byTitle.has('Uhd Full'), false, 'a 2160p HDR file is as good as its 4K disc');
    assert.equal(byTitle.has('Full Rip'), false, '58 s against one minute is within 5 %');
    assert.equal(byTitle.has('Queue Dvd'), false, 'a 480p file of a DVD is as good as the disc');
    assert.deepEqual(
      items.map((i) => i.title),
      ['Bluray Dvd', 'Double', 'Short Rip', 'Uhd Hd', 'Vision Sdr'],
    );
    const uhd = byTitle.get('Uhd Hd');
    assert.equal(uhd?.copy_id, copyIds.get('Uhd Hd')?.[0]);
    assert.equal(typeof uhd?.file_id, 'number');
    assert.equal(uhd?.reasons[0]?.message, 'A 4K UHD disc, but the best file is 1080p (1920×1080).');
    assert.match(byTitle.get('Bluray Dvd')?.reasons[0]?.message ?? '', /DVD resolution, 576p \(720×576\)/);
    assert.match(
      byTitle.get('Short Rip')?.reasons[0]?.message ?? '',
      /runs 2 s, 97 % shorter than TMDb’s 1 min/,
    );
    const double = byTitle.get('Double');
    assert.equal(double?.file_id, undefined);
    const [first, second] = copyIds.get('Double') ?? [];
    assert.equal(double?.copy_id, second);
    assert.equal(
      double?.reasons[0]?.message,
      `2 copies of the same edition, Blu-ray · Steelbook (copies ${first}, ${second}).`,
    );
  });

  it('a person with a content limit sees neither list’s hidden films', async () => {
    for (const title of ['Queue Pocket', 'Bluray Dvd']) {
      await readJson(
        await server.api(`/api/movies/${movieIds.get(title)}`, jsonBody('PATCH', { certification: 'R' })),
      );
    }
    const { key } = await childReadKey(server, 'Shelf Kid', 'shelf');
    const q = await ripQueue('', key);
    assert.deepEqual(
      q.items.map((i) => i.title),
      ['Queue Four', 'Double', 'Gone File'],
    );
    assert.equal(q.total_runtime_minutes, 215);
    const u = await upgrades(key);
    assert.deepEqual(
      u.items.map((i) => i.title),
      ['Double', 'Short Rip', 'Uhd Hd', 'Vision Sdr'],
    );
    assert.equal((await ripQueue()).items.length, 4, 'the admin still sees every film');
  });

  it('limit and offset page the queue; the totals stay the whole queue’s', async () => {
    const page = await ripQueue('?limit=2&offset=1');
    assert.deepEqual(
      page.items.map((i) => i.title),
      ['Double', 'Queue Pocket'],
    );
    assert.equal(page.total, 4);
    assert.equal(page.total_runtime_minutes, 305);
    assert.equal((await ripQueue('?offset=9')).items.length, 0);
    await readJson(await server.api('/api/rip-queue?limit=0'), 400);
  });

  it('the typed client reads both', async () => {
    const client = new ReelshelfClient({ baseUrl: server.url, token: server.token });
    const q = await client.ripQueue(['4K UHD', 'Blu-ray']);
    assert.deepEqual(
      q.items.map((i) => i.title),
      ['Queue Four', 'Double', 'Queue Pocket'],
    );
    assert.equal((await client.upgrades()).items.length, 5);
    const page = await client.ripQueue([], { limit: 1, offset: 1 });
    assert.deepEqual(
      page.items.map((i) => i.title),
      ['Double'],
    );
  });

  it('the pages say the same: binder order, the total, each line’s reasons', async () => {
    const page = await server.api('/rip-queue?format=4K+UHD&format=Blu-ray', {
      headers: { accept: 'text/html' },
    });
    assert.equal(page.status, 200);
    const text = await page.text();
    assert.ok(text.indexOf('Queue Four') < text.indexOf('Double'));
    assert.ok(text.indexOf('Double') < text.indexOf('Queue Pocket'));
    assert.equal(text.includes('Gone File'), false);
    assert.match(text, /data-total-minutes="210"/);
    assert.match(text, /3 films<\/strong> · about <strong>3 h 30 min/);
    const bad = await server.api('/rip-queue?format=Betamax', { headers: { accept: 'text/html' } });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Betamax/);
    const up = await (await server.api('/upgrades', { headers: { accept: 'text/html' } })).text();
    assert.match(up, /data-code="uhd_disc_hd_file"/);
    assert.match(up, /A 4K UHD disc, but the best file is 1080p/);
    assert.match(up, /href="\/rip-queue"/);
  });
});

describe('the rip queue page, 150 films', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    const rows = Array.from(
      { length: 150 },
      (_, i) => `Paged Film ${i + 1},${1950 + (i % 70)},${i % 2 === 0 ? '4K UHD' : 'DVD'},P,${i + 1}`,
    );
    const res = await t.api('/api/import', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: ['title,year,format,binder,slot', ...rows].join('\n'),
    });
    assert.equal(res.status, 200, await res.text());
  });
  after(() => t?.close());

  const page = async (query: string) => {
    const res = await t.api(`/rip-queue${query}`, { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    return res.text();
  };

  it('shows 100 lines a page, with the filter kept in the Previous and Next links', async () => {
    const first = await page('');
    assert.equal(first.match(/<tr data-copy=/g)?.length, 100);
    assert.match(first, /150 films<\/strong>/);
    assert.match(first, /href="\/rip-queue\?offset=100" rel="next"/);
    const second = await page('?offset=100');
    assert.equal(second.match(/<tr data-copy=/g)?.length, 50);
    assert.match(second, /Films 101–150 of 150/);
    assert.match(second, /href="\/rip-queue" rel="prev"/);
    assert.doesNotMatch(second, /rel="next"/);
    const four = await page('?format=4K+UHD');
    assert.equal(four.match(/<tr data-copy=/g)?.length, 75);
    assert.doesNotMatch(four, /rel="next"/);
    const fourFrom = await page('?format=4K+UHD&offset=50');
    assert.equal(fourFrom.match(/<tr data-copy=/g)?.length, 25);
    assert.match(fourFrom, /href="\/rip-queue\?format=4K\+UHD" rel="prev"/);
  });
});
