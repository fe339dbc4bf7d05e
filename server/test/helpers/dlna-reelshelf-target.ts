// reelshelf as a target of the DLNA judge (dlna-judge.ts), ready for when the DLNA MediaServer
// (issue 24: dlna-server, dlna-tree, dlna-media, dlna-ssdp) is merged. Until then the test that
// uses it (integration/dlna-peer-reelshelf.test.ts) is skipped: `reelshelfDlnaMissing()` says so
// while server/src/http/dlna/dlna.routes.ts does not exist.
//
// The judge's library (dlna-library.ts) plus a film only a conversion plays on a generic TV (DTS
// audio) and an R-rated film, scanned by reelshelf itself; a member (Anna) whose view the judge
// browses, a PG child (Kid) whose DLNA view must not show the R film. Runs only inside a private
// network namespace (reelshelf's SSDP multicasts), like everything of the judge.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { DLNA_DESCRIPTION_PATH } from '../../src/domain/dlna/paths.ts';
import { createServer, type ReelshelfServer } from '../../src/server.ts';
import { JUDGE_LIBRARY, makeFilm, makeJudgeLibrary } from './dlna-library.ts';
import { CHILD_KID, MEMBER_ANNA } from './household.ts';
import { makeFixture } from './media.ts';
import { REPO } from './netns.ts';
import { testDatabaseEnv } from './test-database.ts';

/** The route file whose existence says reelshelf's DLNA is merged (the lead's switch). */
export const REELSHELF_DLNA_ROUTES = join(REPO, 'server', 'src', 'http', 'dlna', 'dlna.routes.ts');

export function reelshelfDlnaMissing(): string | null {
  return existsSync(REELSHELF_DLNA_ROUTES)
    ? null
    : 'reelshelf DLNA not merged yet (no server/src/http/dlna/dlna.routes.ts)';
}

/** A film the generic TV profile cannot play as it is (DTS audio): its res is a conversion. */
export const CONVERSION_FILM = {
  path: 'Gladiator (2000)/Gladiator (2000).mkv',
  title: 'Gladiator',
  seconds: 14,
};
/** Above the child's PG limit: in Anna's DLNA view, never in Kid's. */
export const R_FILM = { path: 'Razorwire Nocturne (2019).mp4', title: 'Razorwire Nocturne', seconds: 3 };

/**
 * The titles the walk must find in Anna's view, each object once after merging by refID.
 * TO CHECK AT THE MERGE: reelshelf titles a film by its title (the file's "Title (Year)" parsed),
 * and a film with two files ("Fargo") shows its editions as two items under it (issue 24 §3).
 * If dlna-tree titles edition items differently (e.g. "Fargo — 1080p"), write those titles here.
 */
export const REELSHELF_FILMS: Record<string, number> = {
  Alien: 1,
  Brazil: 1,
  Casablanca: 1,
  Dune: 1,
  // A film with several files is a container of its editions, each titled "<film> — <edition label>".
  'Fargo — 240p': 2,
  Gladiator: 1,
  'Razorwire Nocturne': 1,
};

export interface ReelshelfLibrary {
  root: string;
  dataDir: string;
  /** The direct film on disk (the judge compares its bytes with the res). */
  directFile: string;
  cleanup(): void;
}

/** A reelshelf server started as the tests start one (createServer(loadConfig(…))), on every address of the namespace. */
export async function startReelshelf(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ server: ReelshelfServer; url: string }> {
  const server = await createServer(
    loadConfig({
      REELSHELF_DATA_DIR: dataDir,
      // The engine under test (PostgreSQL through its socket: the namespace has a loopback of its own).
      ...testDatabaseEnv(dataDir),
      // Every address of this namespace (lo and the veth end), nothing of the host's.
      REELSHELF_HOST: '0.0.0.0',
      REELSHELF_PORT: '0',
      REELSHELF_LOG_LEVEL: 'silent',
      REELSHELF_WATCH: 'off',
      REELSHELF_JELLYFIN_PORT: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: 'off',
      REELSHELF_TRICKPLAY: 'off',
      ...env,
    }),
  );
  const url = (await server.listen()).replace('://0.0.0.0', '://127.0.0.1');
  return { server, url };
}

/**
 * Generates the films, then (DLNA off) adds Anna and Kid, the root, scans it and rates every film
 * PG but the R one — a child with allow_unrated false would not see unrated films either.
 */
export async function prepareReelshelfLibrary(): Promise<ReelshelfLibrary> {
  const root = mkdtempSync(join(tmpdir(), 'reelshelf-judge-films-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-judge-data-'));
  const cleanup = () => {
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await makeJudgeLibrary(root);
    await makeFixture('h264_dts.mkv', join(root, CONVERSION_FILM.path), CONVERSION_FILM.seconds);
    await makeFilm(join(root, R_FILM.path), R_FILM.seconds, 'mp4');
    const { server, url } = await startReelshelf(dataDir);
    try {
      const api = async (path: string, method = 'GET', body?: unknown) => {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${server.apiToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
        return text === '' ? {} : (JSON.parse(text) as unknown);
      };
      for (const person of [MEMBER_ANNA, CHILD_KID]) await api('/api/users', 'POST', person);
      const created = (await api('/api/library-roots', 'POST', { path: root })) as { id: number };
      await api(`/api/library-roots/${created.id}/scan?wait=true`, 'POST');
      const movies = (await api('/api/movies?limit=100')) as { items: { id: number; title: string }[] };
      for (const movie of movies.items) {
        const certification = movie.title === R_FILM.title ? 'R' : 'PG';
        await api(`/api/movies/${movie.id}`, 'PATCH', { certification });
      }
    } finally {
      await server.close();
    }
    return { root, dataDir, directFile: join(root, JUDGE_LIBRARY[0]?.path ?? ''), cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** reelshelf with DLNA on for `person`; its description URL on loopback. */
export async function startReelshelfDlna(
  library: ReelshelfLibrary,
  person: string,
): Promise<{ server: ReelshelfServer; url: string; location: string }> {
  const { server, url } = await startReelshelf(library.dataDir, {
    REELSHELF_DLNA: person,
    REELSHELF_DLNA_NAME: `reelshelf judge (${person})`,
  });
  return { server, url, location: `${url}${DLNA_DESCRIPTION_PATH}` };
}
