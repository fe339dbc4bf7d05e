// Runs INSIDE the private network namespace that jellyfin-discovery.test.ts creates (never on its
// own: it refuses unless it can prove it is in a namespace other than the host's, holding only `lo`
// and the test's veth end). Starts reelshelf with UDP discovery on an ephemeral port, asks
// `who is JellyfinServer?` unicast from loopback and from a peer namespace across the veth pair
// (198.18.77.2 → 198.18.77.1, RFC 2544 addresses that exist only in here), and prints one JSON
// line of what it saw for the test to check. No broadcast or multicast is ever sent.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createServer, type ReelshelfServer } from '../../src/server.ts';
import { provePrivateNetns } from './netns.ts';
import { testDatabaseEnv } from './test-database.ts';

const QUESTION = 'who is JellyfinServer?';

// The rule (players.md §2.6): prove the namespace before the first datagram.
const { peerPid } = provePrivateNetns();

/** Sends `text` unicast to host:port from loopback and waits for one answer (null after `waitMs`). */
async function ask(host: string, port: number, text: string, waitMs: number): Promise<string | null> {
  const socket = createSocket('udp4');
  try {
    return await new Promise<string | null>((resolve, reject) => {
      const timer = setTimeout(() => resolve(null), waitMs);
      socket.once('message', (message) => {
        clearTimeout(timer);
        resolve(message.toString('utf8'));
      });
      socket.once('error', reject);
      socket.send(text, port, host);
    });
  } finally {
    socket.close();
  }
}

/** The same question from the peer namespace (its own node, through nsenter), then a GET of its Address. */
function askFromPeer(port: number): Promise<string> {
  const client = `
    import { createSocket } from 'node:dgram';
    import { execFileSync } from 'node:child_process';
    import { readlinkSync } from 'node:fs';
    const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\\n')
      .filter((l) => l.trim() !== '').map((l) => (l.split(':')[1] ?? '').trim().replace(/@.*$/, ''));
    const ns = readlinkSync('/proc/self/ns/net');
    if (ns === process.env.REELSHELF_HOST_NETNS || links.some((n) => n !== 'lo' && n !== 'rsdl1')) {
      console.log(JSON.stringify({ refused: 'peer namespace: ' + ns + ' ' + links.join(',') }));
      process.exit(3);
    }
    const socket = createSocket('udp4');
    socket.bind({ address: '198.18.77.2', port: 0 }, () => {
      const timer = setTimeout(() => { console.log(JSON.stringify({ answer: null })); process.exit(0); }, 3000);
      socket.once('message', async (message, remote) => {
        clearTimeout(timer);
        socket.close();
        const answer = message.toString('utf8');
        const address = JSON.parse(answer).Address;
        const info = await (await fetch(address + '/System/Info/Public')).json();
        console.log(JSON.stringify({ answer, bytes: message.length, from: remote.address, info }));
      });
      socket.send(${JSON.stringify(QUESTION.toUpperCase())}, ${port}, '198.18.77.1');
    });`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      'nsenter',
      [`--net=/proc/${peerPid}/ns/net`, process.execPath, '--input-type=module', '-e', client],
      { stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out.trim());
    });
  });
}

async function start(
  env: Record<string, string>,
): Promise<{ server: ReelshelfServer; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-netns-'));
  const server = await createServer(
    loadConfig({
      REELSHELF_DATA_DIR: dir,
      // Every address of this namespace: lo and the veth end, nothing of the host's.
      REELSHELF_HOST: '0.0.0.0',
      REELSHELF_PORT: '0',
      REELSHELF_LOG_LEVEL: 'silent',
      REELSHELF_WATCH: 'off',
      REELSHELF_JELLYFIN_DISCOVERY_PORT: '0',
      REELSHELF_TRICKPLAY: 'off',
      // The engine under test (PostgreSQL through its socket: the namespace has a loopback of its own).
      ...testDatabaseEnv(dir),
      ...env,
    }),
  );
  const url = (await server.listen()).replace('://0.0.0.0', '://127.0.0.1');
  return { server, url, dir };
}

const own = await start({ REELSHELF_JELLYFIN_PORT: '0' });
const mainOnly = await start({ REELSHELF_JELLYFIN_PORT: 'off' });
try {
  const port = own.server.jellyfin.discoveryPort ?? 0;
  const publicInfo = (await (await fetch(`${own.url}/jellyfin/System/Info/Public`)).json()) as { Id: string };
  const fromLoopback = await ask('127.0.0.1', port, QUESTION, 3000);
  const notAQuestion = await ask('127.0.0.1', port, 'M-SEARCH * HTTP/1.1', 400);
  const fromPeer = await askFromPeer(port);
  const mainOnlyAnswer = await ask('127.0.0.1', mainOnly.server.jellyfin.discoveryPort ?? 0, QUESTION, 3000);
  const mainOnlyAddress = (JSON.parse(mainOnlyAnswer ?? '{}') as { Address?: string }).Address ?? '';
  const mainOnlyInfo =
    mainOnlyAddress === '' ? null : await (await fetch(`${mainOnlyAddress}/System/Info/Public`)).json();
  process.stdout.write(
    `${JSON.stringify({
      publicId: publicInfo.Id,
      jellyfinPort: Number(new URL(own.server.jellyfin.url ?? 'http://x:0').port),
      mainPort: Number(new URL(mainOnly.url).port),
      mainOnlyPublicId: (
        (await (await fetch(`${mainOnly.url}/jellyfin/System/Info/Public`)).json()) as { Id: string }
      ).Id,
      fromLoopback,
      notAQuestion,
      fromPeer,
      mainOnlyAnswer,
      mainOnlyInfo,
    })}\n`,
  );
} finally {
  await own.server.close();
  await mainOnly.server.close();
  rmSync(own.dir, { recursive: true, force: true });
  rmSync(mainOnly.dir, { recursive: true, force: true });
}
