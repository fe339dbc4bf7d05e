// The one Chromium lookup, shared by `npm test`'s prelude (scripts/run-tests.mjs), the browser tests
// (server/test/helpers/chromium.ts) and the playback bench (bench/playback.ts): what the prelude
// accepts is what the tests launch. Plain JavaScript so the prelude runs it without tsx; the types
// are in chromium.d.mts.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The names Chromium is installed under: Debian's package, and Ubuntu's and Alpine's. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser'];

/** Set to a path, it is the Chromium used, alone: a wrong value is reported, not replaced. */
export const CHROMIUM_VARIABLE = 'REELSHELF_CHROMIUM';

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable file `name` in the PATH's folders (then `extraDirs`), or null. */
export function findOnPath(name, env = process.env, extraDirs = []) {
  for (const dir of [...(env.PATH ?? '').split(delimiter), ...extraDirs]) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const path = join(dir, name);
    if (executable(path)) return path;
  }
  return null;
}

/**
 * The Chromium to launch: `REELSHELF_CHROMIUM` when set, else the first of CHROMIUM_NAMES on the
 * PATH. `path` is null when there is none, and `reason` then says where it looked.
 */
export function findChromium(env = process.env) {
  const set = env[CHROMIUM_VARIABLE];
  if (set !== undefined && set !== '') {
    return executable(set)
      ? { path: set, source: 'env', reason: `${CHROMIUM_VARIABLE}=${set}` }
      : { path: null, source: 'env', reason: `${CHROMIUM_VARIABLE}=${set} is not an executable file` };
  }
  for (const name of CHROMIUM_NAMES) {
    const path = findOnPath(name, env);
    if (path !== null) return { path, source: 'path', reason: `${name} on the PATH` };
  }
  return {
    path: null,
    source: 'path',
    reason: `no ${CHROMIUM_NAMES.join(' or ')} on the PATH and ${CHROMIUM_VARIABLE} unset (apt-get install chromium)`,
  };
}
