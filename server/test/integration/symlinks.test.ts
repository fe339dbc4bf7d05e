/**
 * The library path rule (domain/library-path.ts, docs/naming.md "Symlinks") on a real server: a
 * symlink out of the root, into the data dir, a loop and a dangling link, each in the scan report,
 * the listing (GET /library) and the stream, with REELSHELF_FOLLOW_SYMLINKS on (the default) and off.
 * Real files and links, real ffprobe, real SQLite, HTTP on loopback.
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import sharp from 'sharp';
import { makeFixture } from '../helpers/media.ts';
import { ADMIN, jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

interface ScanReport {
  status: string;
  counts: Record<'found' | 'new' | 'changed' | 'moved' | 'unchanged' | 'missing' | 'errors', number>;
  errors: { path: string; error: string }[];
  message?: string;
}

let made: Promise<{ one: string; two: string; three: string; poster: string }> | undefined;
const cache = mkdtempSync(join(tmpdir(), 'reelshelf-symlinks-films-'));
after(() => rmSync(cache, { recursive: true, force: true }));

/** Three distinct short films and a poster, made once for every layout of this file. */
function fixtures(): Promise<{ one: string; two: string; three: string; poster: string }> {
  made ??= (async () => {
    const [one, two] = await Promise.all([
      makeFixture('h264_aac.mp4', join(cache, 'one.mp4'), 1),
      makeFixture('h264_aac.mp4', join(cache, 'two.mp4'), 2),
    ]);
    const three = await makeFixture('h264_aac.mp4', join(cache, 'three.mp4'), 3);
    const poster = join(cache, 'poster.jpg');
    await sharp({ create: { width: 30, height: 45, channels: 3, background: '#0a0' } })
      .jpeg()
      .toFile(poster);
    return { one, two, three, poster };
  })();
  return made;
}

interface Layout {
  root: string;
  outside: string;
  dataDir: string;
  /** The bytes each film's stream must send, by title. */
  bytes: Map<string, Buffer>;
}

/**
 * A root with a film of its own, a file link and a folder link out of it (with a subtitle file and a
 * poster), a file link and a folder link into the data dir (holding a film), a folder loop, a link
 * chain with no end, and a dangling link.
 */
async function makeLayout(): Promise<Layout> {
  const films = await fixtures();
  const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-symlinks-'));
  const root = join(scratch, 'root');
  const outside = join(scratch, 'outside');
  const dataDir = join(scratch, 'data');
  const place = (from: string, to: string) => {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    return to;
  };
  const heat = place(films.one, join(root, 'Heat (1995)', 'Heat (1995).mp4'));
  const escape = place(films.two, join(outside, 'escape.mp4'));
  const alienFolder = join(outside, 'disk2', 'Alien (1979)');
  const alien = place(films.three, join(alienFolder, 'Alien (1979).mp4'));
  writeFileSync(join(alienFolder, 'Alien (1979).en.srt'), '1\n00:00:00,500 --> 00:00:01,500\nIn space\n');
  place(films.poster, join(alienFolder, 'poster.jpg'));
  place(films.one, join(dataDir, 'Smuggled (2004)', 'Smuggled (2004).mp4'));
  writeFileSync(join(dataDir, 'secret'), 'not for anyone');
  // An NFO beside a followed film that leads into the data dir is not read either.
  writeFileSync(join(dataDir, 'stolen.nfo'), '<movie><title>Stolen</title><year>1999</year></movie>');
  symlinkSync(join(dataDir, 'stolen.nfo'), join(root, 'Escape (2002).nfo'));

  symlinkSync(escape, join(root, 'Escape (2002).mp4'));
  symlinkSync(join(outside, 'disk2'), join(root, 'Disk2'));
  symlinkSync(join(dataDir, 'secret'), join(root, 'Leak (2003).mp4'));
  symlinkSync(dataDir, join(root, 'Data'));
  mkdirSync(join(root, 'Loop'));
  symlinkSync(join(root, 'Loop'), join(root, 'Loop', 'again'));
  symlinkSync(join(root, 'Circle (2005).mkv'), join(root, 'Circle (2005).mkv'));
  symlinkSync(join(outside, 'nothing.mp4'), join(root, 'Gone (2006).mp4'));
  return {
    root,
    outside,
    dataDir,
    bytes: new Map([
      ['Heat', readFileSync(heat)],
      ['Escape', readFileSync(escape)],
      ['Alien', readFileSync(alien)],
    ]),
  };
}

async function addRoot(t: TestServer, path: string): Promise<number> {
  const res = await t.api('/api/library-roots', jsonBody('POST', { path }));
  assert.equal(res.status, 201);
  return ((await res.json()) as { id: number }).id;
}

async function scan(t: TestServer, rootId: number): Promise<ScanReport> {
  const res = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
  assert.equal(res.status, 200);
  const report = (await res.json()) as ScanReport;
  assert.equal(report.status, 'committed', report.message);
  return report;
}

/** The report's problems as `path → reason` (the stable first word of each line). */
function reasons(report: ScanReport): Record<string, string> {
  return Object.fromEntries(report.errors.map((e) => [e.path, e.error.split(':')[0] ?? '']));
}

async function listing(t: TestServer): Promise<LibraryResponse> {
  return (await (await t.api('/library?device=web')).json()) as LibraryResponse;
}

/** title → the stream URL of its default edition, for items that are playable. */
function playable(lib: LibraryResponse): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of lib.items) {
    const edition = item.editions[item.default_edition_index];
    if (edition?.is_playable === true) out.set(item.title, edition.stream_url);
  }
  return out;
}

async function fetchStream(t: TestServer, url: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(`${t.url}${url}`);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

async function fileIdOf(t: TestServer, title: string): Promise<number> {
  const item = (await listing(t)).items.find((i) => i.title === title);
  const id = item?.editions[item.default_edition_index]?.media_file_id;
  assert.ok(typeof id === 'number', `a media file for ${title}`);
  return id;
}

/** The stream of a media file by id, with a playback token the server signs for it. */
async function streamById(t: TestServer, fileId: number): Promise<{ status: number; error: unknown }> {
  const token = t.server.services.tokens.sign(fileId, 'web', ADMIN);
  const res = await fetch(`${t.url}/stream/media_file/${fileId}?device=web&token=${token}`);
  const text = await res.text();
  return { status: res.status, error: res.status >= 400 ? JSON.parse(text) : null };
}

describe('symlinks with REELSHELF_FOLLOW_SYMLINKS=on (the default)', () => {
  let layout: Layout;
  let t: TestServer;
  let rootId: number;
  let report: ScanReport;

  before(async () => {
    layout = await makeLayout();
    t = await startTestServer({ REELSHELF_DATA_DIR: layout.dataDir });
    rootId = await addRoot(t, layout.root);
    report = await scan(t, rootId);
  });
  after(async () => {
    await t?.close();
    rmSync(join(layout.root, '..'), { recursive: true, force: true });
  });

  it('scan: links out of the root are followed; the data dir, a loop and a dangling link are reported once', () => {
    assert.equal(report.counts.found, 3, JSON.stringify(report));
    assert.equal(report.counts.new, 3);
    assert.deepEqual(reasons(report), {
      'Circle (2005).mkv': 'symlink_loop',
      Data: 'data_dir',
      'Gone (2006).mp4': 'dangling_symlink',
      'Leak (2003).mp4': 'data_dir',
      'Loop/again': 'symlink_loop',
    });
    assert.equal(report.counts.errors, 5);
  });

  it('listing: the films of the root and behind the links, playable; nothing of the data dir', async () => {
    const lib = await listing(t);
    assert.deepEqual(lib.items.map((i) => i.title).sort(), ['Alien', 'Escape', 'Heat']);
    assert.deepEqual([...playable(lib).keys()].sort(), ['Alien', 'Escape', 'Heat']);
  });

  it('stream: every listed film streams, the linked ones from their targets', async () => {
    for (const [title, url] of playable(await listing(t))) {
      const res = await fetchStream(t, url);
      assert.equal(res.status, 200, `${title}: ${res.body.toString().slice(0, 200)}`);
      assert.ok(res.body.equals(layout.bytes.get(title) ?? Buffer.alloc(0)), `${title}: the target's bytes`);
    }
  });

  it('subtitles and artwork beside a film behind a folder link are served', async () => {
    const alien = await fileIdOf(t, 'Alien');
    const playback = (await (await t.api(`/api/media-file/${alien}/playback?device=web`)).json()) as {
      subtitles: { url: string }[];
    };
    assert.equal(playback.subtitles.length, 1, JSON.stringify(playback));
    const vtt = await fetch(`${t.url}${playback.subtitles[0]?.url}`);
    assert.equal(vtt.status, 200);
    assert.match(await vtt.text(), /In space/);

    const movieId = (await listing(t)).items.find((i) => i.title === 'Alien')?.movie_id;
    const fetched = await t.api('/api/artwork/fetch?wait=true', jsonBody('POST', { movie_ids: [movieId] }));
    assert.equal(((await fetched.json()) as { report: { local: number } }).report.local, 1);
    const poster = await t.api(`/artwork/${movieId}/poster`);
    assert.equal(poster.status, 200);
    assert.equal((await sharp(Buffer.from(await poster.arrayBuffer())).metadata()).width, 30);
  });

  it('a recorded file turned into a link into the data dir, a loop or a dangling link: the stream refuses it, the next scan reports it', async () => {
    const film = join(layout.root, 'Heat (1995)', 'Heat (1995).mp4');
    const heat = await fileIdOf(t, 'Heat');
    const kept = readFileSync(film);
    const cases: [string, () => void, number, string, string][] = [
      [
        'into the data dir',
        () => symlinkSync(join(layout.dataDir, 'secret'), film),
        403,
        'forbidden',
        'data_dir',
      ],
      ['a loop', () => symlinkSync(film, film), 404, 'file_missing', 'symlink_loop'],
      [
        'dangling',
        () => symlinkSync(join(layout.outside, 'nope.mp4'), film),
        404,
        'file_missing',
        'dangling_symlink',
      ],
    ];
    try {
      for (const [name, make, status, code, reason] of cases) {
        unlinkSync(film);
        make();
        const res = await streamById(t, heat);
        assert.equal(res.status, status, name);
        assert.deepEqual(
          [(res.error as { error: string }).error, (res.error as { reason: string }).reason],
          [code, reason],
          name,
        );
      }
      const again = await scan(t, rootId);
      assert.equal(reasons(again)['Heat (1995)/Heat (1995).mp4'], 'dangling_symlink');
      assert.equal(again.counts.missing, 1);
      assert.ok(!playable(await listing(t)).has('Heat'), 'no longer listed as playable');
    } finally {
      unlinkSync(film);
      writeFileSync(film, kept);
    }
  });
});

describe('symlinks with REELSHELF_FOLLOW_SYMLINKS=off', () => {
  let layout: Layout;
  let t: TestServer;
  let rootId: number;
  let report: ScanReport;

  before(async () => {
    layout = await makeLayout();
    t = await startTestServer({ REELSHELF_DATA_DIR: layout.dataDir, REELSHELF_FOLLOW_SYMLINKS: 'off' });
    rootId = await addRoot(t, layout.root);
    report = await scan(t, rootId);
  });
  after(async () => {
    await t?.close();
    rmSync(join(layout.root, '..'), { recursive: true, force: true });
  });

  it('scan: links out of the root are reported and not followed; the others as with on', () => {
    assert.equal(report.counts.found, 1, JSON.stringify(report));
    assert.deepEqual(reasons(report), {
      'Circle (2005).mkv': 'symlink_loop',
      Data: 'data_dir',
      Disk2: 'outside_root',
      'Escape (2002).mp4': 'outside_root',
      'Gone (2006).mp4': 'dangling_symlink',
      'Leak (2003).mp4': 'data_dir',
      'Loop/again': 'symlink_loop',
    });
  });

  it('listing and stream: only the film inside the root', async () => {
    const films = playable(await listing(t));
    assert.deepEqual([...films.keys()], ['Heat']);
    const res = await fetchStream(t, films.get('Heat') ?? '');
    assert.equal(res.status, 200);
    assert.ok(res.body.equals(layout.bytes.get('Heat') ?? Buffer.alloc(0)));
  });
});

describe('turning REELSHELF_FOLLOW_SYMLINKS off on a library scanned with it on', () => {
  it('the stream refuses the link out of the root at once (403 outside_root); the next scan drops it', async () => {
    const layout = await makeLayout();
    let t: TestServer | undefined;
    try {
      t = await startTestServer({ REELSHELF_DATA_DIR: layout.dataDir });
      const rootId = await addRoot(t, layout.root);
      await scan(t, rootId);
      const escape = await fileIdOf(t, 'Escape');
      assert.equal((await streamById(t, escape)).status, 200);
      await t.close();
      t = undefined;

      t = await startTestServer({ REELSHELF_DATA_DIR: layout.dataDir, REELSHELF_FOLLOW_SYMLINKS: 'off' });
      const res = await streamById(t, escape);
      assert.equal(res.status, 403);
      const body = res.error as { error: string; message: string; reason: string };
      assert.deepEqual([body.error, body.reason], ['forbidden', 'outside_root']);
      assert.match(body.message, /REELSHELF_FOLLOW_SYMLINKS=off/);
      const again = await scan(t, rootId);
      assert.equal(again.counts.missing, 2, JSON.stringify(again));
      assert.deepEqual([...playable(await listing(t)).keys()], ['Heat']);
    } finally {
      await t?.close();
      rmSync(join(layout.root, '..'), { recursive: true, force: true });
    }
  });
});
