import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LibraryResponse } from '@reelshelf/contract';
import type { SubtitleTrack } from '../../src/domain/subtitles/subtitle-track.ts';
import { AppError } from '../../src/errors.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

interface ScanReport {
  status: string;
  message?: string;
  counts: Record<'found' | 'new' | 'changed' | 'moved' | 'unchanged' | 'missing' | 'errors', number>;
  errors: { path: string; error: string }[];
}

const MOVIE = 'Movie (2010)';
const EMBEDDED = 'Embedded (2011)';
const LOOSE = 'Loose (2012)';
const LOOSE_VIDEO = 'Loose.2012.1080p.BluRay.x264-GRP.mp4';

function srt(...cues: string[]): string {
  return cues.map((text, i) => `${i + 1}\n00:00:0${i},100 --> 00:00:0${i},900\n${text}\n`).join('\n');
}

/** An MKV with an English SubRip and a forced French SubRip, muxed by ffmpeg from .srt files. */
async function makeEmbeddedMkv(path: string, work: string): Promise<void> {
  const base = await makeFixture('h264_aac.mp4', join(work, 'base.mp4'), 1);
  writeFileSync(join(work, 'en.srt'), srt('Hello'));
  writeFileSync(join(work, 'fr.srt'), srt('Bonjour'));
  mkdirSync(join(path, '..'), { recursive: true });
  await run(
    fixtureFfmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-i', base, '-i', join(work, 'en.srt'), '-i', join(work, 'fr.srt')],
      ...['-map', '0:v', '-map', '0:a', '-map', '1:0', '-map', '2:0'],
      ...['-c:v', 'copy', '-c:a', 'copy', '-c:s', 'srt'],
      ...['-metadata:s:s:0', 'language=eng', '-metadata:s:s:1', 'language=fre'],
      ...['-disposition:s:0', '0', '-disposition:s:1', 'forced'],
      path,
    ],
    { timeout: 120_000 },
  );
}

/** The fields a player is told, without the stat of sidecars. */
function summary(tracks: SubtitleTrack[]) {
  return tracks.map((t) => ({
    index: t.index,
    source: t.source.kind === 'embedded' ? `embedded:${t.source.stream}` : t.source.relativePath,
    format: t.format,
    kind: t.kind,
    language: t.language,
    title: t.title,
    forced: t.forced,
    default: t.default,
    sdh: t.sdh,
  }));
}

const plain = { title: null, forced: false, default: false, sdh: false };

describe('subtitle sidecars through the real scan', () => {
  let t: TestServer;
  let root: string;
  let work: string;
  let rootId: number;
  const fileIds = new Map<string, number>();

  const scan = async (): Promise<ScanReport> => {
    const res = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(res.status, 200);
    const report = (await res.json()) as ScanReport;
    assert.equal(report.status, 'committed', report.message);
    assert.deepEqual(report.errors, [], 'subtitle files are neither videos nor errors');
    return report;
  };
  const tracks = (title: string) => t.server.services.subtitleTracks.tracks(fileIds.get(title) ?? -1);

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-subs-'));
    work = mkdtempSync(join(tmpdir(), 'reelshelf-subs-work-'));
    await Promise.all([
      makeFixture('h264_aac.mp4', join(root, MOVIE, `${MOVIE}.mp4`), 1),
      makeEmbeddedMkv(join(root, EMBEDDED, `${EMBEDDED}.mkv`), work),
    ]);
    await makeFixture('h264_aac.mp4', join(root, LOOSE, LOOSE_VIDEO), 1);
    const dir = join(root, MOVIE);
    writeFileSync(join(dir, `${MOVIE}.en.sdh.srt`), srt('[door creaks]', 'Hello'));
    writeFileSync(join(dir, `${MOVIE}.eng.forced.srt`), srt('Hola'));
    writeFileSync(
      join(dir, `${MOVIE}.fr.default.ass`),
      '[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, Start, End, Style, Text\nDialogue: 0,0:00:00.10,0:00:00.90,Default,Bonjour\\Nà tous\n',
    );
    writeFileSync(
      join(dir, `${MOVIE}.idx`),
      '# VobSub index file, v7 (do not modify this line!)\nsize: 720x480\n',
    );
    writeFileSync(join(dir, `${MOVIE}.sub`), Buffer.alloc(2048, 0));
    // the only video of its folder: subtitles named otherwise are its own, also in a Subs/ folder
    writeFileSync(join(root, LOOSE, 'English.forced.srt'), srt('Hi'));
    mkdirSync(join(root, LOOSE, 'Subs'));
    writeFileSync(join(root, LOOSE, 'Subs', '3_French.srt'), srt('Salut'));
    // not subtitles of anything: a folder without a video, an unknown extension
    mkdirSync(join(root, 'Stray'));
    writeFileSync(join(root, 'Stray', 'Stray.en.srt'), srt('Nobody'));
    writeFileSync(join(dir, `${MOVIE}.en.txt`), 'notes');

    t = await startTestServer();
    const created = await t.api('/api/library-roots', jsonBody('POST', { path: root }));
    assert.equal(created.status, 201);
    rootId = ((await created.json()) as { id: number }).id;
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('first scan: three videos, every track listed with its language and flags', async () => {
    const report = await scan();
    assert.equal(report.counts.found, 3);
    assert.equal(report.counts.new, 3);
    const lib = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    for (const item of lib.items) fileIds.set(item.title, item.editions[0]?.media_file_id ?? -1);
    assert.deepEqual([...fileIds.keys()].sort(), ['Embedded', 'Loose', 'Movie']);

    assert.deepEqual(summary(await tracks('Movie')), [
      {
        ...plain,
        index: 0,
        source: `${MOVIE}/${MOVIE}.en.sdh.srt`,
        format: 'srt',
        kind: 'text',
        language: 'eng',
        sdh: true,
      },
      {
        ...plain,
        index: 1,
        source: `${MOVIE}/${MOVIE}.eng.forced.srt`,
        format: 'srt',
        kind: 'text',
        language: 'eng',
        forced: true,
      },
      {
        ...plain,
        index: 2,
        source: `${MOVIE}/${MOVIE}.fr.default.ass`,
        format: 'ass',
        kind: 'text',
        language: 'fre',
        default: true,
      },
      {
        ...plain,
        index: 3,
        source: `${MOVIE}/${MOVIE}.idx`,
        format: 'vobsub',
        kind: 'image',
        language: null,
      },
    ]);
    assert.deepEqual(summary(await tracks('Embedded')), [
      { ...plain, index: 0, source: 'embedded:0', format: 'srt', kind: 'text', language: 'eng' },
      {
        ...plain,
        index: 1,
        source: 'embedded:1',
        format: 'srt',
        kind: 'text',
        language: 'fre',
        forced: true,
      },
    ]);
    // by file name: `3_French.srt` before `English.forced.srt`
    assert.deepEqual(summary(await tracks('Loose')), [
      {
        ...plain,
        index: 0,
        source: `${LOOSE}/Subs/3_French.srt`,
        format: 'srt',
        kind: 'text',
        language: 'fre',
      },
      {
        ...plain,
        index: 1,
        source: `${LOOSE}/English.forced.srt`,
        format: 'srt',
        kind: 'text',
        language: 'eng',
        forced: true,
      },
    ]);
  });

  it('a sidecar is recorded with its stat: VobSub counts its .sub too', async () => {
    const [sdh] = await tracks('Movie');
    assert.equal(sdh?.source.kind, 'sidecar');
    if (sdh?.source.kind === 'sidecar')
      assert.equal(sdh.source.sizeBytes, srt('[door creaks]', 'Hello').length);
    const vobsub = (await tracks('Movie'))[3];
    assert.ok(vobsub?.source.kind === 'sidecar' && vobsub.source.sizeBytes > 2048);
  });

  it('a new sidecar, then a changed one: picked up without re-analysing the video', async () => {
    const probes = t.server.services.analysis.probeCount;
    writeFileSync(join(root, MOVIE, `${MOVIE}.de.srt`), srt('Hallo'));
    writeFileSync(join(root, EMBEDDED, `${EMBEDDED}.de.srt`), srt('Hallo'));
    let report = await scan();
    assert.deepEqual(
      { unchanged: report.counts.unchanged, changed: report.counts.changed, new: report.counts.new },
      { unchanged: 3, changed: 0, new: 0 },
    );
    const movie = await tracks('Movie');
    assert.equal(movie.length, 5, 'one more track');
    assert.deepEqual(summary(movie)[0], {
      ...plain,
      index: 0,
      source: `${MOVIE}/${MOVIE}.de.srt`,
      format: 'srt',
      kind: 'text',
      language: 'ger',
    });
    const embedded = await tracks('Embedded');
    assert.deepEqual(
      embedded.map((track) => [track.index, track.source.kind, track.language]),
      [
        [0, 'embedded', 'eng'],
        [1, 'embedded', 'fre'],
        [2, 'sidecar', 'ger'],
      ],
      'sidecars come after the embedded streams',
    );

    // a changed sidecar (new size and mtime) and a changed VobSub .sub
    writeFileSync(join(root, MOVIE, `${MOVIE}.de.srt`), srt('Hallo', 'Guten Tag'));
    const vobsubBefore = (await tracks('Movie')).find((track) => track.format === 'vobsub');
    writeFileSync(join(root, MOVIE, `${MOVIE}.sub`), Buffer.alloc(4096, 0));
    report = await scan();
    assert.equal(report.counts.unchanged, 3);
    const changed = await tracks('Movie');
    const de = changed.find((track) => track.language === 'ger');
    assert.ok(de?.source.kind === 'sidecar');
    assert.equal(de.source.sizeBytes, srt('Hallo', 'Guten Tag').length);
    const vobsubAfter = changed.find((track) => track.format === 'vobsub');
    assert.ok(vobsubBefore?.source.kind === 'sidecar' && vobsubAfter?.source.kind === 'sidecar');
    assert.equal(vobsubAfter.source.sizeBytes - vobsubBefore.source.sizeBytes, 2048);

    assert.equal(t.server.services.analysis.probeCount, probes, 'no video was analysed again');
  });

  it('a removed sidecar is gone after the next scan; a renamed folder keeps its file and re-reads its sidecars', async () => {
    const probes = t.server.services.analysis.probeCount;
    rmSync(join(root, MOVIE, `${MOVIE}.eng.forced.srt`));
    rmSync(join(root, MOVIE, `${MOVIE}.sub`)); // an .idx without its pictures is no track
    renameSync(join(root, LOOSE), join(root, 'Loose Renamed (2012)'));
    const report = await scan();
    assert.equal(report.counts.moved, 1);
    assert.deepEqual(
      (await tracks('Movie')).map((track) => [track.index, track.format, track.language, track.forced]),
      [
        [0, 'srt', 'ger', false],
        [1, 'srt', 'eng', false],
        [2, 'ass', 'fre', false],
      ],
    );
    assert.deepEqual(
      (await tracks('Loose')).map((track) =>
        track.source.kind === 'sidecar' ? track.source.relativePath : '',
      ),
      ['Loose Renamed (2012)/Subs/3_French.srt', 'Loose Renamed (2012)/English.forced.srt'],
      'same media file, its sidecars at their new paths',
    );
    assert.equal(t.server.services.analysis.probeCount, probes);
  });

  it('an unchanged rescan changes nothing', async () => {
    const before = await Promise.all(['Movie', 'Embedded', 'Loose'].map(tracks));
    const report = await scan();
    assert.equal(report.counts.unchanged, 3);
    assert.deepEqual(await Promise.all(['Movie', 'Embedded', 'Loose'].map(tracks)), before);
  });

  it('an unknown file is not_found', async () => {
    await assert.rejects(
      t.server.services.subtitleTracks.tracks(987654),
      (err: unknown) => err instanceof AppError && err.code === 'not_found' && err.status === 404,
    );
  });

  it('deleting the library root deletes its sidecars with its files', async () => {
    const res = await t.api(`/api/library-roots/${rootId}`, { method: 'DELETE' });
    assert.ok(res.status === 200 || res.status === 204, String(res.status));
    await assert.rejects(
      tracks('Movie'),
      (err: unknown) => err instanceof AppError && err.code === 'not_found',
    );
  });
});
