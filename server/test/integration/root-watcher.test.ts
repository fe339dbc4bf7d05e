import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { LibraryResponse } from '@reelshelf/contract';
import { makeFixture } from '../helpers/media.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { waitFor, within } from '../helpers/wait.ts';

/** The titles in /library with their badge. */
async function titles(t: Pick<TestServer, 'api'>): Promise<Map<string, string>> {
  const res = await t.api('/library?device=web');
  assert.equal(res.status, 200);
  const body = (await res.json()) as LibraryResponse;
  return new Map(body.items.map((i) => [i.title, i.badge]));
}

/** How many scans the server has run or queued (GET /api/jobs?kind=scan). */
async function scanCount(t: TestServer): Promise<number> {
  const res = await t.api('/api/jobs?kind=scan&limit=500');
  assert.equal(res.status, 200);
  return ((await res.json()) as { items: unknown[] }).items.length;
}

/** Copies `from` to `to` the way a slow copy does: `chunks` writes with `pauseMs` between them. */
async function slowCopy(from: string, to: string, chunks: number, pauseMs: number): Promise<void> {
  const bytes = readFileSync(from);
  mkdirSync(dirname(to), { recursive: true });
  const fd = openSync(to, 'w');
  try {
    const size = Math.ceil(bytes.length / chunks);
    for (let i = 0; i < chunks; i++) {
      writeSync(fd, bytes.subarray(i * size, (i + 1) * size));
      // The pauses are the scenario (a copy in progress), not a synchronisation.
      if (i < chunks - 1) await pause(pauseMs);
    }
  } finally {
    closeSync(fd);
  }
}

describe('watched library roots keep the library current', () => {
  let t: TestServer;
  let root: string;
  let sources: string;
  let seed: string;
  let rootId: number;
  /** While set, the next scan holds after staging its files until it is released. */
  let hold: { reached: () => void; release: Promise<void> } | null = null;

  const state = () => t.server.services.rootWatch.watchState(rootId);
  const idle = () => {
    const s = state();
    return s.pending === 0 && !s.scanning;
  };
  const describeState = () => JSON.stringify(state());

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-watched-'));
    sources = mkdtempSync(join(tmpdir(), 'reelshelf-watch-src-'));
    await Promise.all([
      makeFixture('h264_aac.mp4', join(root, 'Heat (1995)', 'Heat (1995).mp4'), 1),
      makeFixture('h264_aac.mp4', join(sources, 'seed.mp4'), 3),
    ]);
    seed = join(sources, 'seed.mp4');
    t = await startTestServer(
      { REELSHELF_WATCH: 'on', REELSHELF_RESCAN_INTERVAL: '7d' },
      {
        watchTimings: { checkMs: 200 },
        afterStagingWrite: async (_staged, signal) => {
          const h = hold;
          if (h === null) return;
          hold = null;
          h.reached();
          await Promise.race([h.release, new Promise((r) => signal.addEventListener('abort', r))]);
        },
      },
    );
    const res = await t.api('/api/library-roots', jsonBody('POST', { path: root }));
    assert.equal(res.status, 201);
    rootId = ((await res.json()) as { id: number }).id;
    const scan = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(((await scan.json()) as { status: string }).status, 'committed');
  });
  after(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}-away`, { recursive: true, force: true });
    rmSync(sources, { recursive: true, force: true });
  });

  it('arms a watcher when the root is added', async () => {
    await waitFor(
      () => state().watching,
      () => `the watcher armed (${describeState()})`,
      {
        timeoutMs: 10_000,
      },
    );
  });

  it('a file copied slowly (3 s) appears within 10 s of the end of the copy, analysed once, in one scan', async () => {
    const probes = t.server.services.analysis.probeCount;
    const scans = await scanCount(t);
    await slowCopy(seed, join(root, 'Alien (1979)', 'Alien (1979).mp4'), 10, 330);
    const copied = Date.now();
    await waitFor(
      async () => (await titles(t)).get('Alien') === 'playable',
      () => `Alien in /library (${describeState()})`,
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const took = Date.now() - copied;
    assert.ok(took < 10_000, `appeared ${took} ms after the copy`);
    await waitFor(idle, () => `the watcher idle (${describeState()})`, { timeoutMs: 10_000 });
    assert.equal(t.server.services.analysis.probeCount, probes + 1, 'analysed once, when complete');
    assert.equal(await scanCount(t), scans + 1, 'one scan');
  });

  it('a removed file is marked missing', async () => {
    const scans = await scanCount(t);
    rmSync(join(root, 'Heat (1995)'), { recursive: true });
    await waitFor(
      async () => (await titles(t)).get('Heat') === 'missing',
      () => `Heat missing in /library (${describeState()})`,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    await waitFor(idle, () => `the watcher idle (${describeState()})`, { timeoutMs: 10_000 });
    assert.equal(await scanCount(t), scans + 1, 'one scan');
  });

  it('a burst of changes makes one scan', async () => {
    const probes = t.server.services.analysis.probeCount;
    const scans = await scanCount(t);
    const names = ['Brazil (1985)', 'Ran (1985)', 'Tampopo (1985)', 'Witness (1985)'];
    for (const [i, name] of names.entries()) {
      mkdirSync(join(root, name));
      copyFileSync(seed, join(root, name, `${name}.mp4`));
      // distinct content: each file is a film of its own, not a move of another
      appendFileSync(join(root, name, `${name}.mp4`), Buffer.alloc(100 + i, i + 1));
    }
    renameSync(join(root, 'Ran (1985)', 'Ran (1985).mp4'), join(root, 'Ran (1985)', 'Ran.1985.mp4'));
    rmSync(join(root, 'Witness (1985)'), { recursive: true });
    await waitFor(
      async () => {
        const now = await titles(t);
        return ['Brazil', 'Ran', 'Tampopo'].every((n) => now.get(n) === 'playable');
      },
      () => `Brazil, Ran and Tampopo in /library (${describeState()})`,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    await waitFor(idle, () => `the watcher idle (${describeState()})`, { timeoutMs: 10_000 });
    assert.equal(await scanCount(t), scans + 1, 'one scan for the whole burst');
    assert.equal(t.server.services.analysis.probeCount, probes + 3);
    assert.equal((await titles(t)).has('Witness'), false);
  });

  it('a change during a scan makes one more scan after it', async () => {
    const probes = t.server.services.analysis.probeCount;
    const scans = await scanCount(t);
    let reached = () => undefined as void;
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (reached = r));
    hold = { reached, release: new Promise<void>((r) => (release = r)) };
    try {
      copyFileSync(seed, join(root, 'Paris, Texas (1984).mp4'));
      await within(held, 15_000, () => `the first scan to start (${describeState()})`);
      copyFileSync(seed, join(root, 'Repo Man (1984).mp4'));
      appendFileSync(join(root, 'Repo Man (1984).mp4'), Buffer.alloc(64, 7));
      // The second change settles while the first scan is held.
      await waitFor(
        () => state().pending === 0,
        () => `the second change settled (${describeState()})`,
        { timeoutMs: 10_000 },
      );
      assert.equal(state().scanning, true);
    } finally {
      hold = null;
      release();
    }
    await waitFor(
      async () => {
        const now = await titles(t);
        return now.get('Paris, Texas') === 'playable' && now.get('Repo Man') === 'playable';
      },
      () => `both films in /library (${describeState()})`,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    await waitFor(idle, () => `the watcher idle (${describeState()})`, { timeoutMs: 10_000 });
    assert.equal(await scanCount(t), scans + 2, 'the held scan and one after it');
    assert.equal(t.server.services.analysis.probeCount, probes + 2, 'each file analysed once');
  });

  it('a root that goes away marks nothing missing and is watched again when it is back', async () => {
    const missingBefore = [...(await titles(t))].filter(([, badge]) => badge === 'missing').length;
    renameSync(root, `${root}-away`);
    await waitFor(
      () => !state().watching,
      () => `the watcher stopped (${describeState()})`,
      {
        timeoutMs: 10_000,
      },
    );
    const res = await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    assert.equal(((await res.json()) as { status: string }).status, 'failed');
    renameSync(`${root}-away`, root);
    await waitFor(
      () => state().watching,
      () => `the watcher armed again (${describeState()})`,
      {
        timeoutMs: 10_000,
      },
    );
    await waitFor(idle, () => `the catch-up scan done (${describeState()})`, { timeoutMs: 15_000 });
    copyFileSync(seed, join(root, 'Zelig (1983).mp4'));
    appendFileSync(join(root, 'Zelig (1983).mp4'), Buffer.alloc(32, 9));
    await waitFor(
      async () => (await titles(t)).get('Zelig') === 'playable',
      () => `Zelig in /library (${describeState()})`,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const missing = [...(await titles(t))].filter(([, badge]) => badge === 'missing').length;
    assert.equal(missing, missingBefore, 'nothing more marked missing');
  });

  it('a removed root is no longer watched, and the server closes at once with watchers armed', async () => {
    const other = mkdtempSync(join(tmpdir(), 'reelshelf-watched-2-'));
    try {
      const res = await t.api('/api/library-roots', jsonBody('POST', { path: other }));
      const otherId = ((await res.json()) as { id: number }).id;
      await waitFor(
        () => t.server.services.rootWatch.watchState(otherId).watching,
        () => 'the second root watched',
        { timeoutMs: 10_000 },
      );
      assert.equal((await t.api(`/api/library-roots/${otherId}`, { method: 'DELETE' })).status, 204);
      assert.equal(t.server.services.rootWatch.watchState(otherId).watching, false);
      const watchHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
      assert.ok(watchHandles() > 0, 'the root is watched');
      await within(t.close(), 5000, () => 'the server to close');
      // (A closed handle leaves the list on the event loop's next turn.)
      await waitFor(
        () => watchHandles() === 0,
        () => `${watchHandles()} watch handles left open`,
        {
          timeoutMs: 2000,
        },
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('periodic rescans (REELSHELF_RESCAN_INTERVAL) without watching', () => {
  let t: TestServer;
  let root: string;
  let source: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'reelshelf-rescanned-'));
    source = await makeFixture('h264_aac.mp4', join(`${root}-src`, 'seed.mp4'), 1);
    t = await startTestServer({ REELSHELF_WATCH: 'off', REELSHELF_RESCAN_INTERVAL: '1s' });
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}-src`, { recursive: true, force: true });
  });

  it('finds a new file with no event and no scan asked for', async () => {
    const res = await t.api('/api/library-roots', jsonBody('POST', { path: root }));
    const rootId = ((await res.json()) as { id: number }).id;
    assert.equal(t.server.services.rootWatch.watchState(rootId).watching, false, 'REELSHELF_WATCH=off');
    renameSync(source, join(root, 'Metropolis (1927).mp4'));
    await waitFor(
      async () => (await titles(t)).get('Metropolis') === 'playable',
      () => 'Metropolis found by a periodic rescan',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  });
});

describe('the server process watches the roots it has at start', () => {
  let dataDir: string;
  let root: string;
  let seed: string;
  let token: string;
  let child: ChildProcess | null = null;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-watch-proc-'));
    root = mkdtempSync(join(tmpdir(), 'reelshelf-watched-proc-'));
    seed = await makeFixture('h264_aac.mp4', join(`${root}-src`, 'seed.mp4'), 1);
    copyFileSync(seed, join(root, 'Heat (1995).mp4'));
    const t = await startTestServer({ REELSHELF_DATA_DIR: dataDir });
    const res = await t.api('/api/library-roots', jsonBody('POST', { path: root }));
    const rootId = ((await res.json()) as { id: number }).id;
    await t.api(`/api/library-roots/${rootId}/scan?wait=true`, { method: 'POST' });
    token = t.token;
    await t.close();
  });
  after(() => {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL');
    for (const dir of [dataDir, root, `${root}-src`]) rmSync(dir, { recursive: true, force: true });
  });

  it('scans what changed while it was stopped, sees new files, and exits at once on SIGTERM', async () => {
    // Added while no server ran: the scan at start finds it.
    copyFileSync(seed, join(root, 'Ran (1985).mp4'));
    appendFileSync(join(root, 'Ran (1985).mp4'), Buffer.alloc(10, 1));
    const running = await startServerProcess(dataDir, { REELSHELF_WATCH: 'on', REELSHELF_API_TOKEN: token });
    child = running.child;
    const { url, output: out } = running;
    const server = {
      api: (path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } }),
    };
    await waitFor(
      async () => (await titles(server)).get('Ran') === 'playable',
      () => `Ran found by the scan at start (${out()})`,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    copyFileSync(seed, join(root, 'Zelig (1983).mp4'));
    appendFileSync(join(root, 'Zelig (1983).mp4'), Buffer.alloc(20, 2));
    await waitFor(
      async () => (await titles(server)).get('Zelig') === 'playable',
      () => `Zelig found by the watcher (${out()})`,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    running.child.kill('SIGTERM');
    assert.equal(await within(running.exited, 10_000, () => `the process to exit: ${out()}`), 0);
  });
});
