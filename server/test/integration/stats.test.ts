// Issue 27 item 6: /stats and "your year" through the API and the pages, on the engine under test
// (SQLite, or PostgreSQL with REELSHELF_TEST_DATABASE=postgres): every figure against what the
// library itself says, the playback share against GET /library's own decision per device (also after
// a change), and a child's limit hiding a film's counts and title everywhere here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { ReelshelfClient } from '../../../client/src/index.ts';
import type { StatsOverview, YearView } from '../../src/services/collector/stats.service.ts';
import { seedPlays, seedStatsLibrary, type StatsLibrary } from '../helpers/stats-library.ts';
import { childReadKey } from '../helpers/household.ts';
import { readJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

let t: TestServer;
let lib: StatsLibrary;
let kidKey = '';
let kidId = 0;

const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

/** The library's own classes per device: each listed edition by its prediction and status code. */
async function libraryShare(device: string): Promise<Record<string, number>> {
  const body = await readJson<LibraryResponse>(
    await t.api(`/library?device=${device}`, { headers: { accept: 'application/json' } }),
  );
  const counts: Record<string, number> = { direct: 0, converted: 0, not_playable: 0, unknown: 0 };
  for (const item of body.items) {
    for (const e of item.editions) {
      const cls =
        e.playback_status_code === 'unknown'
          ? 'unknown'
          : e.playback_prediction === 'direct'
            ? 'direct'
            : e.playback_prediction === 'strict_incompatible'
              ? 'not_playable'
              : 'converted';
      counts[cls] = (counts[cls] ?? 0) + 1;
    }
  }
  return counts;
}

describe('stats API and pages', () => {
  before(async () => {
    t = await startTestServer();
    lib = await seedStatsLibrary(t, t.dataDir);
    ({ id: kidId, key: kidKey } = await childReadKey(t, 'Kid', 'stats'));
    await seedPlays(t, 1, lib, [
      ['Stats Film 03', '2025-01-04T20:00:00.000Z', 5400, 'web'],
      ['Stats Film 05', '2025-02-14T21:00:00.000Z', 7200, 'tv'],
      ['Stats Film 03', '2025-02-20T19:00:00.000Z', 1800, 'tv'],
      ['Stats Film 08', '2025-06-01T18:00:00.000Z', 3600, 'tv'],
      ['Stats Film 10', '2025-12-30T22:00:00.000Z', 3600, 'full'],
      ['Stats Film 12', '2024-12-31T23:00:00.000Z', 3600, 'web'],
    ]);
    await seedPlays(t, kidId, lib, [
      ['Stats Film 01', '2025-03-01T10:00:00.000Z', 3600, 'tv'],
      // Played before the limit was set: hidden now, so neither counted nor named.
      ['Stats Film 05', '2025-04-01T10:00:00.000Z', 3600, 'tv'],
    ]);
  });
  after(() => t.close());

  it('counts discs by format and decade, films by files, space by root', async () => {
    const s = await readJson<StatsOverview>(await t.api('/api/stats'));
    assert.deepEqual(s.discs_by_format, [
      { label: 'Blu-ray', discs: 10 },
      { label: 'DVD', discs: 8 },
      { label: '4K UHD', discs: 4 },
    ]);
    assert.equal(
      s.discs_by_decade.reduce((sum, d) => sum + d.discs, 0),
      22,
    );
    assert.deepEqual(
      s.discs_by_decade.map((d) => d.label),
      ['1950s', '1960s', '1970s', '1980s', '1990s', '2000s', '2010s', '2020s'],
    );
    assert.deepEqual(s.films_by_files, { with_file: 14, disc_only: 8, neither: 2 });
    const space = Object.fromEntries(s.space_by_root.map((r) => [r.name, [r.files, r.bytes]]));
    // Kinds cycle mp4, dts, uhd, mpeg2 by i % 4: uhd (4K root) for i = 2, 6, 10, 14.
    assert.deepEqual(space['4K'], [4, 4 * 60e9]);
    assert.equal(space.Films?.[0], 10);
  });

  it('the rip queue over time ends at now with the discs whose film has no present file', async () => {
    const s = await readJson<StatsOverview>(await t.api('/api/stats'));
    const last = s.rip_queue.at(-1);
    assert.equal(last?.discs, 8);
    assert.equal(last?.month, new Date().toISOString().slice(0, 7));
    assert.ok(s.rip_queue.length >= 19, `${s.rip_queue.length} months`);
    // It rose as discs came and fell as files did: the peak is above today's queue.
    assert.ok(Math.max(...s.rip_queue.map((p) => p.discs)) > 8);
  });

  it('the playback share per device is the library’s own decision, and follows a change', async () => {
    const s = await readJson<StatsOverview>(await t.api('/api/stats'));
    assert.deepEqual(
      s.playback_share.map((d) => d.device),
      ['web', 'safari', 'tv', 'androidtv', 'roku', 'full'],
    );
    for (const d of s.playback_share) {
      assert.deepEqual(d.counts, await libraryShare(d.device), d.device);
      assert.equal(d.counts.unknown, 1, `${d.device}: the file not analysed yet`);
    }
    const web = s.playback_share.find((d) => d.device === 'web');
    assert.ok((web?.counts.direct ?? 0) > 0 && (web?.counts.converted ?? 0) > 0, JSON.stringify(web));

    // A file goes missing: it leaves every device's count (the kept classes follow the generation).
    const gone = lib.files[0] ?? 0;
    await t.server.database.db
      .updateTable('media_files')
      .set({ status: 'missing', missing_since: new Date().toISOString() })
      .where('id', '=', gone)
      .execute();
    const after = await readJson<StatsOverview>(await t.api('/api/stats'));
    assert.deepEqual(
      after.playback_share.map((d) => d.device),
      s.playback_share.map((d) => d.device),
    );
    for (const d of after.playback_share) {
      const total = (x: typeof d.counts) => x.direct + x.converted + x.not_playable + x.unknown;
      assert.equal(total(d.counts), 13, d.device);
    }
    assert.deepEqual(after.films_by_files, { with_file: 13, disc_only: 9, neither: 2 });
    await t.server.database.db
      .updateTable('media_files')
      .set({ status: 'present', missing_since: null })
      .where('id', '=', gone)
      .execute();
    const back = await readJson<StatsOverview>(await t.api('/api/stats'));
    assert.deepEqual(back.playback_share, s.playback_share);
  });

  it('a child with a limit sees no count or title of a film above it', async () => {
    const admin = await readJson<StatsOverview>(await t.api('/api/stats'));
    const kid = await readJson<StatsOverview>(await t.api('/api/stats', as(kidKey)));
    const discs = (o: StatsOverview) => o.discs_by_format.reduce((sum, d) => sum + d.discs, 0);
    assert.equal(discs(kid), discs(admin) - 1);
    assert.equal(
      kid.discs_by_decade.reduce((sum, d) => sum + d.discs, 0),
      21,
    );
    // Film 5 has a file (5 % 4 = 1: the DTS kind) in the Films root.
    assert.deepEqual(kid.films_by_files, { ...admin.films_by_files, with_file: 13 });
    assert.equal(kid.playback_share.length, admin.playback_share.length, 'every device, for the child too');
    for (const [i, d] of kid.playback_share.entries()) {
      const a = admin.playback_share[i];
      const total = (x: typeof d.counts) => x.direct + x.converted + x.not_playable + x.unknown;
      assert.equal(total(d.counts), a === undefined ? -1 : total(a.counts) - 1, d.device);
    }
    const films = (o: StatsOverview) => o.space_by_root.find((r) => r.name === 'Films')?.files ?? 0;
    assert.equal(films(kid), films(admin) - 1);
    const page = await (await t.api('/stats', as(kidKey))).text();
    assert.doesNotMatch(page, new RegExp(lib.restricted));
    // The overview page names no film at all: its numbers are what show the limit, the child's own.
    const formatDesc = (o: StatsOverview) =>
      `<desc id="chart-format-desc">${o.discs_by_format.map((d) => `${d.label}: ${d.discs}`).join('; ')}</desc>`;
    assert.notEqual(formatDesc(kid), formatDesc(admin));
    assert.ok(page.includes(formatDesc(kid)), `${formatDesc(kid)} in the child's /stats`);
    const year = await readJson<YearView>(await t.api('/api/stats/year?year=2025', as(kidKey)));
    assert.equal(year.person.id, kidId);
    assert.equal(year.films, 1);
    assert.equal(year.plays, 1);
    assert.doesNotMatch(JSON.stringify(year), new RegExp(lib.restricted));
    const yearPage = await (await t.api('/stats/year?year=2025', as(kidKey))).text();
    assert.doesNotMatch(yearPage, new RegExp(lib.restricted));
    assert.match(yearPage, /Stats Film 01/);
  });

  it('your year: films, hours, months, genres, device, first and last film', async () => {
    const y = await readJson<YearView>(await t.api('/api/stats/year?year=2025'));
    assert.equal(y.year, 2025);
    assert.equal(y.films, 4);
    assert.equal(y.plays, 5);
    assert.equal(y.hours, 6);
    assert.deepEqual(
      y.months.map((m) => m.plays),
      [1, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1],
    );
    assert.deepEqual(y.devices, [
      { device: 'tv', plays: 3 },
      { device: 'full', plays: 1 },
      { device: 'web', plays: 1 },
    ]);
    assert.deepEqual(y.first, {
      movie_id: lib.movies.get('Stats Film 03'),
      title: 'Stats Film 03',
      at: '2025-01-04T20:00:00.000Z',
    });
    assert.equal(y.last?.title, 'Stats Film 10');
    // Genres by films: 3 → Drama/Crime (3 % 5), 5 → Drama (0), 8 → Drama/Crime, 10 → Drama.
    assert.deepEqual(y.genres, [
      { name: 'Drama', films: 4 },
      { name: 'Crime', films: 2 },
    ]);
    assert.deepEqual(
      y.people.map((p) => p.id),
      [1, kidId],
    );
  });

  it('an admin may see another person’s year; anyone else only their own', async () => {
    const kids = await readJson<YearView>(await t.api(`/api/stats/year?year=2025&person=${kidId}`));
    assert.equal(kids.person.name, 'Kid');
    // The admin sees everything the child played (the admin's own rule applies to the admin).
    assert.equal(kids.films, 2);
    await readJson(await t.api('/api/stats/year?person=1', as(kidKey)), 403);
    await readJson(await t.api('/api/stats/year?person=999'), 404);
    await readJson(await t.api('/api/stats/year?year=abc'), 400);
    assert.equal((await t.api('/stats/year?person=1', as(kidKey))).status, 403);
  });

  it('the typed client reads the stats and a year', async () => {
    const client = new ReelshelfClient({ baseUrl: t.url, token: t.token });
    assert.deepEqual(await client.stats(), await readJson<StatsOverview>(await t.api('/api/stats')));
    const kid = await client.statsYear({ person: kidId, year: 2025 });
    assert.deepEqual([kid.person.name, kid.films], ['Kid', 2]);
    assert.equal((await client.statsYear()).person.id, 1);
  });

  it('the pages draw six charts, each an accessible SVG image', async () => {
    const res = await t.api('/stats', { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    const page = await res.text();
    const charts = [...page.matchAll(/<svg [^>]*role="img"[^>]*aria-labelledby="([^"]+)"/g)];
    assert.equal(charts.length, 6);
    for (const m of charts) {
      for (const id of (m[1] ?? '').split(' ')) assert.match(page, new RegExp(`id="${id}"`));
    }
    assert.match(page, /Discs by format/);
    assert.doesNotMatch(page, /<script/);
    const year = await (await t.api('/stats/year?year=2025')).text();
    assert.match(year, /Films watched<\/dt>\s*<dd>4<\/dd>/);
    assert.match(year, /Most-used device<\/dt>\s*<dd>tv<\/dd>/);
  });
});
