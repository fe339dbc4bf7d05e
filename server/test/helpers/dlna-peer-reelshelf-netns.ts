// Runs INSIDE the private network namespace that integration/dlna-peer-reelshelf.test.ts creates
// (runInPrivateNetns; it refuses anywhere else). The same judge as minidlna's, against reelshelf:
// the library scanned by reelshelf, DLNA on for Anna (a member) — every check — then for Kid (a PG
// child) — the walk alone, which must not find the R film. Prints one JSON line
// `{ "facts": …, "child": … }` for the test outside.
import DeviceClient from 'upnp-device-client';
import { judgeDlnaServer, walkTree } from './dlna-judge.ts';
import {
  CONVERSION_FILM,
  prepareReelshelfLibrary,
  REELSHELF_FILMS,
  startReelshelfDlna,
} from './dlna-reelshelf-target.ts';
import { CHILD_KID, MEMBER_ANNA } from './household.ts';
import { provePrivateNetns } from './netns.ts';

provePrivateNetns();

const library = await prepareReelshelfLibrary();
try {
  const adult = await startReelshelfDlna(library, MEMBER_ANNA.name);
  let facts;
  try {
    facts = await judgeDlnaServer(
      {
        name: 'reelshelf',
        location: adult.location,
        films: REELSHELF_FILMS,
        directTitle: 'Alien',
        directFile: library.directFile,
        conversionTitle: CONVERSION_FILM.title,
        titleWord: 'Fargo',
      },
      { pageSize: 7, vlcSeconds: 10 },
    );
  } finally {
    await adult.server.close();
  }
  const child = await startReelshelfDlna(library, CHILD_KID.name);
  let childWalk;
  try {
    childWalk = await walkTree(new DeviceClient(child.location), 7);
  } finally {
    await child.server.close();
  }
  process.stdout.write(
    `${JSON.stringify({ facts, location: adult.location, child: { byTitle: childWalk.byTitle, pageIssues: childWalk.pageIssues } })}\n`,
  );
} finally {
  library.cleanup();
}
