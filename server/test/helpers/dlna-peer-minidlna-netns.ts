// Runs INSIDE the private network namespace that integration/dlna-peer-minidlna.test.ts creates
// (runInPrivateNetns; never on its own: it refuses unless it can prove where it is). Generates the
// judge's film library, starts minidlna on lo and the veth end, runs the DLNA judge against it and
// prints one JSON line `{ "facts": … }` for the test outside to assert.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeDlnaServer } from './dlna-judge.ts';
import { JUDGE_LIBRARY, makeJudgeLibrary } from './dlna-library.ts';
import { startMinidlna } from './minidlna.ts';
import { NETNS_ADDRESSES, provePrivateNetns } from './netns.ts';

provePrivateNetns();

const root = mkdtempSync(join(tmpdir(), 'reelshelf-judge-films-'));
try {
  const files = await makeJudgeLibrary(root);
  const minidlna = await startMinidlna({
    mediaDir: root,
    expectedFiles: files.length,
    interfaces: ['lo', NETNS_ADDRESSES.ownLink],
    host: '127.0.0.1',
    friendlyName: 'minidlna peer',
  });
  try {
    // minidlna titles an item by its file name without the extension: one object per file.
    const films: Record<string, number> = {};
    for (const film of JUDGE_LIBRARY) films[film.name] = (films[film.name] ?? 0) + 1;
    const facts = await judgeDlnaServer(
      {
        name: 'minidlna',
        location: minidlna.location,
        films,
        directTitle: 'Alien (1979)',
        directFile: join(root, JUDGE_LIBRARY[0]?.path ?? ''),
        titleWord: 'Fargo',
      },
      { pageSize: 7, vlcSeconds: 10 },
    );
    process.stdout.write(`${JSON.stringify({ facts, films, indexed: minidlna.indexed })}\n`);
  } finally {
    const log = minidlna.log();
    await minidlna.stop();
    process.stderr.write(`--- minidlna log ---\n${log.slice(-4000)}\n`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
