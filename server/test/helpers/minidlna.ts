// minidlna (Debian's `minidlnad` 1.3.0) as a peer DLNA server for the acceptance judge and the
// DLNA bench: started in the foreground with a throwaway config, data and log folder, waited on
// until it has indexed the films, stopped with its process. It multicasts SSDP NOTIFYs from its
// first second, so it is ONLY ever started inside a private network namespace a test made
// (netns.ts): `startMinidlna` refuses anywhere else, before the process exists.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { linkNames } from './netns.ts';

export const MINIDLNA_BINARY = 'minidlnad';

/** Why minidlna cannot be run here (not installed), or null. */
export function minidlnaMissing(): string | null {
  const found = spawnSync('sh', [
    '-c',
    `command -v ${MINIDLNA_BINARY} || test -x /usr/sbin/${MINIDLNA_BINARY}`,
  ]);
  return found.status === 0 ? null : 'minidlnad is not installed (apt-get install minidlna; npm test does)';
}

/** The binary's path (Debian puts it in /usr/sbin, which a user's PATH may lack). */
function minidlnaPath(): string {
  const found = spawnSync('sh', ['-c', `command -v ${MINIDLNA_BINARY}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : `/usr/sbin/${MINIDLNA_BINARY}`;
}

export interface MinidlnaOptions {
  /** The folder of films (indexed as video: `media_dir=V,<dir>`). */
  mediaDir: string;
  /** How many video files it must have indexed before it counts as ready. */
  expectedFiles: number;
  /** The interfaces it serves and announces on (`lo`, `rsdl0`). */
  interfaces: readonly string[];
  /** The address its LOCATION is given on (the first interface's). */
  host: string;
  port?: number;
  friendlyName?: string;
  /** Seconds between its NOTIFYs (minidlna's default is 895). */
  notifyInterval?: number;
  /** How long indexing may take (generous: it is never asserted on). */
  readyTimeoutMs?: number;
}

export interface RunningMinidlna {
  /** The device description URL (what its SSDP answers give as LOCATION). */
  location: string;
  /** http://host:port */
  base: string;
  friendlyName: string;
  /** How many video files its status page counts. */
  indexed: number;
  /** Its log so far (file log and stderr). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Throws unless this process runs in a private network namespace made by runInPrivateNetns (not
 * the host's, only `lo` and the veth end): the same proof as provePrivateNetns, as an exception
 * instead of an exit, so that a misuse from anywhere fails loudly before minidlna exists.
 */
function assertPrivateNetns(): void {
  const hostNs = process.env.REELSHELF_HOST_NETNS ?? '';
  const ownNs = readlinkSync('/proc/self/ns/net');
  if (hostNs === '' || ownNs === hostNs) {
    throw new Error(`refusing to start minidlna outside a private network namespace (${ownNs})`);
  }
  const links = linkNames();
  if (links.some((name) => name !== 'lo' && name !== 'rsdl0')) {
    throw new Error(`refusing to start minidlna: unexpected links ${links.join(', ')}`);
  }
}

/** The "Video files" count of minidlna's HTTP status page (`GET /`), or null while it cannot answer. */
async function indexedVideos(base: string): Promise<number | null> {
  try {
    const res = await fetch(`${base}/`, { signal: AbortSignal.timeout(2000) });
    const page = await res.text();
    const match = /Video files<\/td><td>(\d+)/i.exec(page) ?? /Video files[^\d]*(\d+)/i.exec(page);
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** Starts minidlna (see above); resolves once it has indexed `expectedFiles` videos. */
export async function startMinidlna(options: MinidlnaOptions): Promise<RunningMinidlna> {
  assertPrivateNetns();
  const port = options.port ?? 8200;
  const friendlyName = options.friendlyName ?? 'minidlna peer';
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-minidlna-'));
  const dbDir = join(dir, 'db');
  const logDir = join(dir, 'log');
  mkdirSync(dbDir);
  mkdirSync(logDir);
  const config = join(dir, 'minidlna.conf');
  writeFileSync(
    config,
    [
      `media_dir=V,${options.mediaDir}`,
      `db_dir=${dbDir}`,
      `log_dir=${logDir}`,
      `port=${port}`,
      `network_interface=${options.interfaces.join(',')}`,
      `friendly_name=${friendlyName}`,
      // The test's library does not change while it runs; no watcher threads.
      'inotify=no',
      `notify_interval=${options.notifyInterval ?? 30}`,
      'strict_dlna=no',
      'enable_tivo=no',
      'log_level=general,artwork,database,inotify,scanner,metadata,http,ssdp,tivo=warn',
      '',
    ].join('\n'),
  );
  // -S: stay in the foreground (its systemd mode: no fork, no pid-file lock by another instance);
  // -R: rebuild the (empty) database, so that nothing of an earlier run is read.
  const child: ChildProcess = spawn(
    minidlnaPath(),
    ['-S', '-R', '-f', config, '-P', join(dir, 'minidlna.pid')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let exited: number | null | undefined;
  const closed = new Promise<void>((resolve) =>
    child.on('close', (code) => {
      exited = code;
      resolve();
    }),
  );
  const log = (): string => {
    let file = '';
    try {
      file = readFileSync(join(logDir, 'minidlna.log'), 'utf8');
    } catch {
      // not written yet
    }
    return `${file}${output}`;
  };
  const stop = async (): Promise<void> => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const killed = await Promise.race([closed.then(() => true), sleep(5000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await closed;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const base = `http://${options.host}:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let indexed: number | null = null;
  try {
    for (;;) {
      if (exited !== undefined)
        throw new Error(`minidlnad exited (${exited}) before it was ready:\n${log()}`);
      indexed = await indexedVideos(base);
      // Its scanner logs the end of the first scan; the count alone could be read mid-scan.
      if (indexed !== null && indexed >= options.expectedFiles && /Scanning .* finished/.test(log())) break;
      if (Date.now() > deadline) {
        throw new Error(
          `minidlnad indexed ${indexed ?? 'nothing'} of ${options.expectedFiles} videos within ${options.readyTimeoutMs ?? 60_000} ms:\n${log().slice(-3000)}`,
        );
      }
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { location: `${base}/rootDesc.xml`, base, friendlyName, indexed, log, stop };
}
