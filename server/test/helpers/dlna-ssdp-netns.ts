// Runs INSIDE the private network namespace that integration/dlna-ssdp.test.ts creates (netns.ts),
// never on its own: provePrivateNetns() refuses before anything else unless it is in a namespace
// other than the host's holding only `lo` and `rsdl0`. Starts the SSDP service alone on UDP 1900
// (free in here), with a tiny HTTP server answering /dlna/description.xml, and records what control
// points see: NOTIFYs on loopback and across the veth pair in the peer namespace, multicast and unicast
// M-SEARCH answers from both sides, an address added while running, gssdp-discover, the byebyes at
// stop. Prints one JSON line for the test to judge; assertions live in the test.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { DLNA_DESCRIPTION_PATH } from '../../src/domain/dlna/paths.ts';
import { deviceTargets } from '../../src/domain/dlna/ssdp.ts';
import { createSsdpService } from '../../src/services/dlna/ssdp.service.ts';
import {
  listenForNotifies,
  mSearch,
  runSearches,
  type HeardNotify,
  type SearchPlan,
  type SearchStep,
} from './dlna-ssdp-peer.ts';
import { inPeer, NETNS_ADDRESSES, provePrivateNetns } from './netns.ts';

// The rule (players.md §2.6): nothing is sent before this has proved where we are.
provePrivateNetns();

const UDN = 'uuid:5e1f0a2c-7d41-4b1e-9a55-24dd1a0c5b01';
const ADDED = { own: '198.18.78.1', peer: '198.18.78.2' };
const GROUP = '239.255.255.250';
const targets = deviceTargets(UDN);
const PEER_SCRIPT = 'server/test/helpers/dlna-ssdp-peer.ts';
const nodeArgv = [process.execPath, '--import', 'tsx'];

/** Heard NOTIFYs and the waiters for a condition over them (resolved when it holds; no polling). */
class Heard {
  readonly list: HeardNotify[] = [];
  #waiters: { test: (list: HeardNotify[]) => boolean; resolve: () => void }[] = [];
  add(notify: HeardNotify): void {
    this.list.push(notify);
    this.#waiters = this.#waiters.filter((w) => (w.test(this.list) ? (w.resolve(), false) : true));
  }
  /** Resolves true once `test` holds, false after `ms` (a generous bound, not a timing assertion). */
  until(test: (list: HeardNotify[]) => boolean, ms = 30_000): Promise<boolean> {
    if (test(this.list)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.#waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      });
    });
  }
}

/** Every target announced with `nts` from `from` (and LOCATION on `locationHost` for alive). */
function allTargets(nts: string, from: string, locationHost?: string) {
  return (list: HeardNotify[]) =>
    targets.every((t) =>
      list.some(
        (n) =>
          n.nts === nts &&
          n.from === from &&
          n.nt === t.nt &&
          n.usn === t.usn &&
          (locationHost === undefined || n.location?.startsWith(`http://${locationHost}:`) === true),
      ),
    );
}

/** Runs a command in the peer namespace and yields its JSON lines. */
function peerProcess(args: string[]) {
  const [command = '', ...rest] = inPeer([...nodeArgv, PEER_SCRIPT, ...args]);
  const child = spawn(command, rest, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const lines = createInterface({ input: child.stdout });
  return { child, lines };
}

async function peerSearch(plan: SearchPlan): Promise<unknown> {
  const { child, lines } = peerProcess(['search', JSON.stringify(plan)]);
  let result: unknown = null;
  lines.on('line', (line) => {
    if (line.startsWith('{')) result = JSON.parse(line);
  });
  await once(child, 'close');
  return result;
}

function steps(device: string, mx: number | null): SearchStep[] {
  const multicast = mx !== null;
  const to = multicast ? GROUP : device;
  const host = multicast ? `${GROUP}:1900` : `${device}:1900`;
  return [
    { name: 'ssdp:all', text: mSearch('ssdp:all', host, mx), to, expect: 6 },
    ...targets.map((t) => ({ name: t.nt, text: mSearch(t.nt, host, mx), to, expect: 1 })),
    {
      name: 'MediaServer:2',
      text: mSearch('urn:schemas-upnp-org:device:MediaServer:2', host, mx),
      to,
      expect: 0,
    },
    { name: 'garbage', text: '\u0000\u00ff M-SEARCH garbage\r\n\r\n', to, expect: 0 },
    {
      name: 'no MAN',
      text: mSearch('ssdp:all', host, mx).replace('MAN: "ssdp:discover"\r\n', ''),
      to,
      expect: 0,
    },
  ];
}

// The description the LOCATION points at (the real one comes from the dlna-server part).
const http = createServer((request, response) => {
  response.writeHead(request.url === DLNA_DESCRIPTION_PATH ? 200 : 404, { 'content-type': 'text/xml' });
  response.end('<root xmlns="urn:schemas-upnp-org:device-1-0"/>');
});
http.listen(0, '0.0.0.0');
await once(http, 'listening');
const httpPort = (http.address() as { port: number }).port;

// Listeners first, so the very first alive is heard: one on loopback in here, one in the peer.
const onLoopback = new Heard();
const loopbackListener = await listenForNotifies('127.0.0.1', (n) => onLoopback.add(n));
const inPeerNs = new Heard();
const peerListener = peerProcess(['listen', NETNS_ADDRESSES.peer]);
const peerReady = new Promise<void>((resolve) =>
  peerListener.lines.on('line', (line) => {
    if (!line.startsWith('{')) return;
    const value = JSON.parse(line) as { ready?: boolean; notify?: HeardNotify; refused?: string };
    if (value.ready === true || value.refused !== undefined) resolve();
    if (value.refused !== undefined) process.stdout.write(`${line}\n`);
    if (value.notify !== undefined) inPeerNs.add(value.notify);
  }),
);
await peerReady;

const log = {
  debug: () => {},
  info: () => {},
  warn: (f: object, m: string) => process.stderr.write(`${m} ${JSON.stringify(f)}\n`),
};
const ssdp = createSsdpService({
  udn: UDN,
  httpPort,
  version: '0.1.0',
  log,
  rereadMs: 1000,
  announceIntervalMs: 3000,
});
await ssdp.start();

const result: Record<string, unknown> = {
  udn: UDN,
  httpPort,
  server: ssdp.identity.server,
  bootId: ssdp.identity.bootId,
};
try {
  result.aliveOnLoopback = await onLoopback.until(allTargets('ssdp:alive', '127.0.0.1', '127.0.0.1'));
  result.aliveInPeer = await inPeerNs.until(
    allTargets('ssdp:alive', NETNS_ADDRESSES.own, NETNS_ADDRESSES.own),
  );

  result.fromLoopbackMulticast = await runSearches({
    bind: '127.0.0.1',
    device: '127.0.0.1',
    udn: UDN,
    steps: steps('127.0.0.1', 1),
    fetchLocation: true,
  });
  result.fromLoopbackUnicast = await runSearches({
    bind: '127.0.0.1',
    device: '127.0.0.1',
    udn: UDN,
    steps: steps('127.0.0.1', null),
  });
  result.fromPeerMulticast = await peerSearch({
    bind: NETNS_ADDRESSES.peer,
    device: NETNS_ADDRESSES.own,
    udn: UDN,
    steps: steps(NETNS_ADDRESSES.own, 1),
    fetchLocation: true,
  });
  result.fromPeerUnicast = await peerSearch({
    bind: NETNS_ADDRESSES.peer,
    device: NETNS_ADDRESSES.own,
    udn: UDN,
    steps: steps(NETNS_ADDRESSES.own, null),
  });

  // An address added while running: announced on it, and a search from its subnet answered with it.
  execFileSync('ip', ['addr', 'add', `${ADDED.own}/24`, 'dev', NETNS_ADDRESSES.ownLink]);
  const [nsenter = '', ...peerIp] = inPeer([
    'ip',
    'addr',
    'add',
    `${ADDED.peer}/24`,
    'dev',
    NETNS_ADDRESSES.peerLink,
  ]);
  execFileSync(nsenter, peerIp);
  result.aliveOnAddedAddress = await inPeerNs.until(allTargets('ssdp:alive', ADDED.own, ADDED.own));
  result.fromAddedSubnet = await peerSearch({
    bind: ADDED.peer,
    device: ADDED.own,
    udn: UDN,
    steps: [
      { name: 'ssdp:all', text: mSearch('ssdp:all', `${ADDED.own}:1900`, null), to: ADDED.own, expect: 6 },
    ],
    fetchLocation: true,
  });

  // Announced again every announceIntervalMs (3 s here; 900 s in production): a third round at least.
  result.periodicAlive = await onLoopback.until(
    (list) =>
      list.filter((n) => n.nts === 'ssdp:alive' && n.from === '127.0.0.1' && n.nt === 'upnp:rootdevice')
        .length >= 3,
  );

  // A control point no one here wrote.
  const gssdp = spawn(
    'gssdp-discover',
    ['-i', 'lo', '--timeout=3', '--target=urn:schemas-upnp-org:device:MediaServer:1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let gssdpOut = '';
  gssdp.stdout.on('data', (chunk: Buffer) => (gssdpOut += chunk.toString('utf8')));
  gssdp.stderr.on('data', (chunk: Buffer) => (gssdpOut += chunk.toString('utf8')));
  const [gssdpCode] = (await once(gssdp, 'close')) as [number | null];
  result.gssdp = { code: gssdpCode, out: gssdpOut };
} finally {
  await ssdp.stop();
}
result.byebyeOnLoopback = await onLoopback.until(allTargets('ssdp:byebye', '127.0.0.1'));
result.byebyeInPeer = await inPeerNs.until(allTargets('ssdp:byebye', NETNS_ADDRESSES.own));
result.byebyeOnAddedAddress = await inPeerNs.until(allTargets('ssdp:byebye', ADDED.own));
result.notifyCounts = {
  loopback: onLoopback.list.length,
  peer: inPeerNs.list.length,
};
peerListener.child.kill();
loopbackListener.close();
http.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
