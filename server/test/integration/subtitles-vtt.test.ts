// GET /stream/media_file/{id}/subtitles/{index}.vtt over real HTTP: sidecars in several encodings and
// formats and embedded tracks of ffmpeg-made files, found by the real scan, checked with a WebVTT
// parser against their sources (cue count, millisecond timings, text).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import iconv from 'iconv-lite';
import webvttParser from 'webvtt-parser';
import type { LibraryResponse } from '@reelshelf/contract';
import { DataStore } from '../../src/adapters/data-store.ts';
import { FfmpegAdapter } from '../../src/adapters/ffmpeg.ts';
import { FileSystemAdapter } from '../../src/adapters/file-system.ts';
import type { SubtitleTrack } from '../../src/domain/subtitles/subtitle-track.ts';
import { MediaFileRepository } from '../../src/repositories/media-file.repository.ts';
import { MediaPathService } from '../../src/services/library/media-path.service.ts';
import { SubtitleVttService } from '../../src/services/playback/subtitle-vtt.service.ts';
import { fixtureFfmpeg, makeFixture } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const { WebVTTParser } = webvttParser;
const run = promisify(execFile);

type Cue = [startMs: number, endMs: number, text: string];

const SIDECARS = 'Sidecars (2010)';
const MOVTEXT = 'Movtext (2011)';
const EMBEDDED = 'Embedded (2012)';

const two = (n: number, width = 2) => String(n).padStart(width, '0');
function srtTime(ms: number): string {
  return `${two(Math.floor(ms / 3_600_000))}:${two(Math.floor(ms / 60_000) % 60)}:${two(Math.floor(ms / 1000) % 60)},${two(ms % 1000, 3)}`;
}
/** A SubRip file of these cues (CRLF when asked, as Windows tools write them). */
function srt(cues: Cue[], eol = '\n'): string {
  return cues
    .map(([start, end, text], i) =>
      [String(i + 1), `${srtTime(start)} --> ${srtTime(end)}`, ...text.split('\n'), ''].join(eol),
    )
    .join(eol);
}

/** French with é, è, ç, ü, written in Windows-1252 (no BOM), CRLF. */
const FRENCH: Cue[] = [
  [1_001, 2_345, 'Café crème pour l’élève ?'],
  [2_400, 3_999, 'Le garçon a reçu très peu.'],
  [4_050, 5_432, 'Über alles, dit Müller.\nÇa va, Hélène ?'],
  [61_007, 62_993, 'Où est la clé ? À côté.'],
];
/** English in UTF-16 LE with a BOM. */
const ENGLISH: Cue[] = [
  [500, 1_500, 'One — “quoted”'],
  [1_500, 2_750, '<i>Two</i> & three'],
  [3_123, 4_987, 'Four'],
];
const ENGLISH_VTT: Cue[] = ENGLISH.map(([s, e, text]) => [s, e, text.replace('&', '&amp;')]);

/** ASS with styles, \N, italics (override and style), an overlap and a drawing. */
const ASS = `[Script Info]
ScriptType: v4.00+
PlayResX: 640
PlayResY: 360

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Arial,24,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,20,20,20,1
Style: Thoughts,Arial,24,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,-1,0,0,100,100,0,0,1,2,1,2,20,20,20,1
Style: Sign,Arial,30,&H0000FFFF,&H000000FF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,2,1,8,20,20,20,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:01.23,0:00:03.45,Default,,0,0,0,,First line\\NSecond {\\i1}italic{\\i0} line
Dialogue: 1,0:00:02.00,0:00:04.00,Sign,,0,0,0,,{\\an8\\pos(320,20)}ROAD CLOSED
Dialogue: 0,0:00:04.10,0:00:05.20,Thoughts,,0,0,0,,I wonder…
Dialogue: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100 0 100{\\p0}
Comment: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,not shown
`;
const ASS_CUES: Cue[] = [
  [1_230, 3_450, 'First line\nSecond <i>italic</i> line'],
  [2_000, 4_000, '<b>ROAD CLOSED</b>'],
  [4_100, 5_200, '<i>I wonder…</i>'],
];

/** Muxed into the MP4 as mov_text (MP4 timed text cannot overlap: these do not). */
const MOVTEXT_CUES: Cue[] = [
  [123, 1_457, 'Timed text one'],
  [1_501, 2_999, 'Line one\nLine two'],
  [3_500, 4_321, 'Fish & chips'],
];
const EMBEDDED_EN: Cue[] = [
  [250, 1_750, 'Hello there'],
  [2_001, 3_999, '<i>Whispered</i>'],
  [4_004, 5_005, 'Goodbye'],
];
const EMBEDDED_FR: Cue[] = [
  [1_100, 2_200, 'Forcé : panneau « Sortie »'],
  [3_300, 4_400, 'Très bien'],
];

/** A video of `seconds` with these subtitle inputs muxed in (`codec` for each), languages and dispositions. */
async function mux(
  path: string,
  video: string,
  subs: { file: string; codec: string; language: string; disposition: string }[],
): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await run(
    fixtureFfmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', video],
      ...subs.flatMap((s) => ['-i', s.file]),
      ...['-map', '0:v', '-map', '0:a', ...subs.flatMap((_, i) => ['-map', `${i + 1}:0`])],
      ...['-c:v', 'copy', '-c:a', 'copy'],
      ...subs.flatMap((s, i) => [
        `-c:s:${i}`,
        s.codec,
        `-metadata:s:s:${i}`,
        `language=${s.language}`,
        `-disposition:s:${i}`,
        s.disposition,
      ]),
      path,
    ],
    { timeout: 120_000 },
  );
}

/** The cues ffprobe reads from the container (non-empty packets: MP4 fills gaps with empty samples). */
async function probedCues(ffprobe: string, path: string, stream: number): Promise<[number, number][]> {
  const { stdout } = await run(ffprobe, [
    ...['-v', 'error', '-select_streams', `s:${stream}`],
    ...['-show_entries', 'packet=pts_time,duration_time,size', '-of', 'json', path],
  ]);
  const packets = (
    JSON.parse(stdout) as { packets: { pts_time: string; duration_time: string; size: string }[] }
  ).packets;
  return packets
    .filter((p) => Number(p.size) > 2)
    .map((p) => {
      const start = Math.round(Number(p.pts_time) * 1000);
      return [start, start + Math.round(Number(p.duration_time) * 1000)];
    });
}

/** When the first video frame is shown, in ms (the container's start). */
async function videoStart(ffprobe: string, path: string): Promise<number> {
  const { stdout } = await run(ffprobe, [
    ...[
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=start_time',
      '-of',
      'csv=p=0',
      path,
    ],
  ]);
  return Math.round(Number(stdout.trim()) * 1000);
}

/** The cues of a served file, through a real WebVTT parser that must report no error. */
function parseVtt(vtt: string): Cue[] {
  assert.match(vtt, /^WEBVTT\n/);
  const result = new WebVTTParser().parse(vtt, 'subtitles');
  assert.deepEqual(result.errors, [], `the WebVTT parser found errors in:\n${vtt}`);
  return result.cues.map((c) => [Math.round(c.startTime * 1000), Math.round(c.endTime * 1000), c.text]);
}

describe('subtitle tracks as WebVTT', () => {
  let t: TestServer;
  let root: string;
  let work: string;
  const fileIds = new Map<string, number>();
  const tracksOf = new Map<string, SubtitleTrack[]>();

  const fileId = (title: string) => fileIds.get(title) ?? -1;
  const track = (title: string, match: (t: SubtitleTrack) => boolean): SubtitleTrack => {
    const found = (tracksOf.get(title) ?? []).find(match);
    assert.ok(found, `no such track of ${title}`);
    return found;
  };
  const sidecar = (title: string, suffix: string) =>
    track(title, (s) => s.source.kind === 'sidecar' && s.source.relativePath.endsWith(suffix));
  const url = (title: string, index: number, device = 'web') =>
    t.server.services.tokens.playbackUrls(fileId(title), device, ADMIN).subtitleUrl(index);
  const get = (path: string, init: RequestInit = {}) => t.api(path, { ...init, auth: false });

  async function served(title: string, index: number): Promise<{ vtt: string; cues: Cue[] }> {
    const res = await get(url(title, index));
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal(res.headers.get('content-type'), 'text/vtt; charset=utf-8');
    return { vtt: body, cues: parseVtt(body) };
  }

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-vtt-'));
    work = mkdtempSync(join(tmpdir(), 'reelshelf-vtt-work-'));
    const base = await makeFixture('h264_aac.mp4', join(work, 'base.mp4'), 6);
    for (const [name, cues] of [
      ['movtext.srt', MOVTEXT_CUES],
      ['en.srt', EMBEDDED_EN],
      ['fr.srt', EMBEDDED_FR],
    ] as const) {
      writeFileSync(join(work, name), srt(cues));
    }
    writeFileSync(join(work, 'signs.ass'), ASS);
    await Promise.all([
      mux(join(root, MOVTEXT, `${MOVTEXT}.mp4`), base, [
        { file: join(work, 'movtext.srt'), codec: 'mov_text', language: 'eng', disposition: 'default' },
      ]),
      mux(join(root, EMBEDDED, `${EMBEDDED}.mkv`), base, [
        { file: join(work, 'en.srt'), codec: 'srt', language: 'eng', disposition: '0' },
        { file: join(work, 'fr.srt'), codec: 'srt', language: 'fre', disposition: 'forced' },
        { file: join(work, 'signs.ass'), codec: 'ass', language: 'eng', disposition: '0' },
      ]),
      makeFixture('h264_aac.mp4', join(root, SIDECARS, `${SIDECARS}.mp4`), 2),
    ]);
    const dir = join(root, SIDECARS);
    writeFileSync(join(dir, `${SIDECARS}.fr.srt`), iconv.encode(srt(FRENCH, '\r\n'), 'windows-1252'));
    writeFileSync(
      join(dir, `${SIDECARS}.en.srt`),
      Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(srt(ENGLISH, '\r\n'), 'utf-16le')]),
    );
    writeFileSync(join(dir, `${SIDECARS}.ass`), ASS);
    const garbage = Buffer.alloc(8192);
    for (let i = 0; i < garbage.length; i += 1) garbage[i] = (i * 2654435761) >>> 24;
    writeFileSync(join(dir, `${SIDECARS}.de.srt`), garbage);
    writeFileSync(join(dir, `${SIDECARS}.it.srt`), 'Just some notes about the film,\nno cue at all.\n');
    writeFileSync(
      join(dir, `${SIDECARS}.es.sub`),
      iconv.encode('{25}{50}Hola|señor\r\n{100}{137}{y:i}Adiós\r\n', 'windows-1252'),
    );
    writeFileSync(join(dir, `${SIDECARS}.sup`), Buffer.from('PG\0\0\0\0\0\0\0\0\x16'));

    t = await startTestServer();
    const created = await t.api('/api/library-roots', jsonBody('POST', { path: root }));
    assert.equal(created.status, 201);
    const rootId = ((await created.json()) as { id: number }).id;
    const scan = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(scan.status, 200, await scan.clone().text());
    const lib = (await (await t.api('/library?device=web')).json()) as LibraryResponse;
    for (const item of lib.items) fileIds.set(item.title, item.editions[0]?.media_file_id ?? -1);
    for (const [title, id] of fileIds) tracksOf.set(title, await t.server.services.subtitleTracks.tracks(id));
  });
  after(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('the scan found every track the tests use', () => {
    assert.deepEqual([...fileIds.keys()].sort(), ['Embedded', 'Movtext', 'Sidecars']);
    assert.equal(tracksOf.get('Sidecars')?.length, 7);
    assert.deepEqual(
      (tracksOf.get('Embedded') ?? []).map((s) => [s.format, s.language, s.forced]),
      [
        ['srt', 'eng', false],
        ['srt', 'fre', true],
        ['ass', 'eng', false],
      ],
    );
    assert.deepEqual(
      (tracksOf.get('Movtext') ?? []).map((s) => s.format),
      ['mov_text'],
    );
  });

  describe('sidecars', () => {
    it('SubRip in Windows-1252: accents decoded, cues and milliseconds as written', async () => {
      const { vtt, cues } = await served('Sidecars', sidecar('Sidecars', '.fr.srt').index);
      assert.deepEqual(cues, FRENCH);
      for (const accent of ['é', 'è', 'ç', 'ü', 'Ç', 'À', 'ô']) assert.ok(vtt.includes(accent), accent);
      assert.ok(!vtt.includes('\uFFFD') && !vtt.includes('Ã'), 'no mojibake');
    });

    it('SubRip in UTF-16 LE with a BOM', async () => {
      const { vtt, cues } = await served('Sidecars', sidecar('Sidecars', '.en.srt').index);
      assert.deepEqual(cues, ENGLISH_VTT);
      assert.ok(!vtt.includes('\uFEFF'), 'the BOM is gone');
    });

    it('ASS with styles, \\N, italics, an overlap and a drawing', async () => {
      const { cues } = await served('Sidecars', sidecar('Sidecars', '.ass').index);
      assert.deepEqual(cues, ASS_CUES);
    });

    it("MicroDVD without a frame rate line: the video's 25 fps, not 23.976", async () => {
      const track = sidecar('Sidecars', '.es.sub');
      assert.equal(track.format, 'microdvd');
      const { cues } = await served('Sidecars', track.index);
      assert.deepEqual(cues, [
        [1_000, 2_000, 'Hola\nseñor'],
        [4_000, 5_480, '<i>Adiós</i>'],
      ]);
    });

    it('a binary file named .srt: 422 subtitle_unreadable with message and hint, also the second time', async () => {
      const index = sidecar('Sidecars', '.de.srt').index;
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const res = await get(url('Sidecars', index));
        assert.equal(res.status, 422);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        const body = (await res.json()) as Record<string, unknown>;
        assert.equal(body.error, 'subtitle_unreadable');
        assert.match(String(body.message), /\.de\.srt cannot be read as SubRip: the bytes are not text/);
        assert.equal(typeof body.hint, 'string');
        assert.equal(body.index, index);
      }
    });

    it('a text file without a cue: 422 subtitle_unreadable', async () => {
      const res = await get(url('Sidecars', sidecar('Sidecars', '.it.srt').index));
      assert.equal(res.status, 422);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.error, 'subtitle_unreadable');
      assert.match(String(body.message), /no SubRip cue/);
    });

    it('an image track (.sup): 409 subtitle_is_image, with the burn-in hint', async () => {
      const index = sidecar('Sidecars', '.sup').index;
      const res = await get(url('Sidecars', index));
      assert.equal(res.status, 409);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.error, 'subtitle_is_image');
      assert.equal(body.format, 'pgs');
      assert.match(String(body.hint), new RegExp(`burn_subtitle=${index}`));
    });

    it('an edited sidecar is converted again; its old conversion is removed', async () => {
      const index = sidecar('Sidecars', '.ass').index;
      const before = await get(url('Sidecars', index));
      const etag = before.headers.get('etag');
      const path = join(root, SIDECARS, `${SIDECARS}.ass`);
      writeFileSync(path, ASS.replace('ROAD CLOSED', 'ROAD OPEN'));
      const later = new Date(Date.now() + 5_000);
      utimesSync(path, later, later);
      const { cues } = await served('Sidecars', index);
      assert.deepEqual(cues[1], [2_000, 4_000, '<b>ROAD OPEN</b>']);
      const res = await get(url('Sidecars', index));
      assert.notEqual(res.headers.get('etag'), etag);
      const prefix = `x${createHash('sha256').update(`${SIDECARS}/${SIDECARS}.ass`).digest('hex').slice(0, 16)}-`;
      const kept = readdirSync(join(t.dataDir, 'subtitles'), { recursive: true })
        .map(String)
        .filter((f) => f.split('/').at(-1)?.startsWith(prefix) === true);
      assert.equal(kept.length, 1, kept.join(', '));
    });
  });

  describe('embedded tracks', () => {
    it('mov_text in MP4: the source cues, timings equal to the packets ffprobe reads', async () => {
      const { cues } = await served('Movtext', 0);
      assert.deepEqual(
        cues,
        MOVTEXT_CUES.map(([s, e, text]) => [s, e, text.replace('&', '&amp;')]),
      );
      const probed = await probedCues(t.server.tools.ffprobe.path, join(root, MOVTEXT, `${MOVTEXT}.mp4`), 0);
      assert.deepEqual(
        cues.map(([s, e]) => [s, e]),
        probed,
      );
    });

    it('MKV: English SubRip, forced French SubRip and ASS: the container timestamps, in sync with the video', async () => {
      const mkv = join(root, EMBEDDED, `${EMBEDDED}.mkv`);
      // ffmpeg writes this MKV with every stream moved later by the AAC priming (the audio started
      // at -21 ms in the MP4): the cues moved with the video, and are served where they now are.
      const videoStartMs = await videoStart(t.server.tools.ffprobe.path, mkv);
      assert.ok(videoStartMs > 0 && videoStartMs < 100, `video starts at ${videoStartMs} ms`);
      const shifted = (cues: Cue[]): Cue[] =>
        cues.map(([s, e, text]) => [s + videoStartMs, e + videoStartMs, text]);
      const expected: Cue[][] = [EMBEDDED_EN, EMBEDDED_FR, ASS_CUES];
      for (const [stream, cues] of expected.entries()) {
        const index = track(
          'Embedded',
          (s) => s.source.kind === 'embedded' && s.source.stream === stream,
        ).index;
        const got = (await served('Embedded', index)).cues;
        assert.deepEqual(got, shifted(cues), `stream ${stream}`);
        const probed = await probedCues(t.server.tools.ffprobe.path, mkv, stream);
        // The ASS stream's drawing event is a packet, and no cue.
        const shown = stream === 2 ? probed.filter(([start]) => start !== 5_000 + videoStartMs) : probed;
        assert.equal(shown.length, probed.length - (stream === 2 ? 1 : 0));
        assert.deepEqual(
          got.map(([s, e]) => [s, e]),
          shown,
          `stream ${stream} against ffprobe`,
        );
      }
    });

    it('one ffmpeg run extracts every text track of a file, and none runs once they are cached', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-vtt-cache-'));
      try {
        const real = new FfmpegAdapter(t.server.tools.ffmpeg.path);
        const runs: string[][] = [];
        const service = new SubtitleVttService({
          files: new MediaFileRepository(t.server.database.db),
          tracks: t.server.services.subtitleTracks,
          paths: new MediaPathService(new FileSystemAdapter(), { followSymlinks: true, dataDir }),
          store: new DataStore(dataDir),
          ffmpeg: {
            run: (args, options) => {
              runs.push(args);
              return real.run(args, options);
            },
          },
          ffmpegAvailable: true,
        });
        const id = fileId('Embedded');
        const first = await Promise.all([service.vtt(id, 0), service.vtt(id, 1)]);
        assert.equal(runs.length, 1, 'two requests at once share one run');
        const maps = (runs[0] ?? []).filter((_, i, all) => all[i - 1] === '-map');
        assert.deepEqual(
          maps,
          ['0:s:0', '0:s:1', '0:s:2', '0:s:2'],
          'all three text tracks (ASS twice: text, times)',
        );
        await service.vtt(id, 2);
        await service.vtt(id, 0);
        assert.equal(runs.length, 1, 'the other tracks came from the cache');
        assert.equal(first[0].etag, (await service.vtt(id, 0)).etag);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('HTTP', () => {
    it('HEAD, ETag → 304, ranges → 206', async () => {
      const path = url('Embedded', 0);
      const full = await get(path);
      const body = await full.text();
      const etag = full.headers.get('etag') ?? '';
      assert.match(etag, /^"[0-9a-f]+"$/);
      assert.equal(full.headers.get('accept-ranges'), 'bytes');
      assert.equal(full.headers.get('cache-control'), 'private, max-age=0, must-revalidate');

      const head = await get(path, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(body)));
      assert.equal(head.headers.get('content-type'), 'text/vtt; charset=utf-8');
      assert.equal(await head.text(), '');

      const notModified = await get(path, { headers: { 'if-none-match': etag } });
      assert.equal(notModified.status, 304);

      const partial = await get(path, { headers: { range: 'bytes=0-6' } });
      assert.equal(partial.status, 206);
      assert.equal(partial.headers.get('content-range'), `bytes 0-6/${Buffer.byteLength(body)}`);
      assert.equal(await partial.text(), 'WEBVTT\n');
    });

    it('the token of another file: 401; no token: 401; the admin bearer: 200', async () => {
      const other = t.server.services.tokens.playbackUrls(fileId('Movtext'), 'web', ADMIN).subtitleUrl(0);
      const stolen = other.replace(`/media_file/${fileId('Movtext')}/`, `/media_file/${fileId('Embedded')}/`);
      const res = await get(stolen);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: string }).error, 'unauthorized');

      const bare = `/stream/media_file/${fileId('Embedded')}/subtitles/0.vtt`;
      assert.equal((await get(bare)).status, 401);
      assert.equal((await t.api(bare)).status, 200);
    });

    it('the token of another device: 401', async () => {
      const tv = url('Embedded', 0, 'tv').replace('device=tv', 'device=web');
      assert.equal((await get(tv)).status, 401);
    });

    it('an unknown index: 404; a name that is not <index>.vtt: 404; an unknown file: 404', async () => {
      const missing = await get(url('Embedded', 9));
      assert.equal(missing.status, 404);
      assert.match(((await missing.json()) as { message: string }).message, /has no subtitle track 9/);
      assert.equal((await get(url('Embedded', 0).replace('/0.vtt', '/0.srt'))).status, 404);
      assert.equal((await t.api('/stream/media_file/99999/subtitles/0.vtt')).status, 404);
    });

    it('the conversions are kept in the subtitles area of the data dir', () => {
      assert.ok(existsSync(join(t.dataDir, 'subtitles')));
      const files = readdirSync(join(t.dataDir, 'subtitles'), { recursive: true }).map(String);
      assert.ok(files.some((f) => f.endsWith('.vtt')));
      assert.ok(!files.some((f) => f.includes('.tmp-')), 'no temporary file left');
    });
  });
});
