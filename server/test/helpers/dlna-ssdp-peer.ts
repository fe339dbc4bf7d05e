// A control point for the SSDP tests (integration/dlna-ssdp.test.ts). Imported by the script inside
// the test's private namespace (helpers/dlna-ssdp-netns.ts), and run as a command in the PEER namespace
// (through netns.ts `inPeer`), where it refuses to do anything unless it sits in a namespace other
// than the host's holding only `lo` and `rsdl1`:
//   dlna-ssdp-peer.ts listen <interface address>   prints every NOTIFY heard on 239.255.255.250:1900
//   dlna-ssdp-peer.ts search <json SearchPlan>     runs the searches and prints what came back
// Every line printed is one JSON object.
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readSsdpMessage, singleHeader } from '../../src/domain/dlna/ssdp.ts';

export interface HeardNotify {
  from: string;
  nts: string | null;
  nt: string | null;
  usn: string | null;
  location: string | null;
}

/**
 * Listens as a member of the group on `interfaceAddress`; NOTIFYs only. Bound to the group address
 * itself (as minidlna does), not 0.0.0.0: it shares port 1900 with the device's socket and must never
 * take a unicast search meant for it (Linux hands a unicast datagram to one of the sockets sharing a port).
 */
export function listenForNotifies(
  interfaceAddress: string,
  heard: (notify: HeardNotify) => void,
): Promise<Socket> {
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  socket.on('message', (datagram, remote) => {
    const message = readSsdpMessage(datagram);
    if (message?.startLine !== 'NOTIFY * HTTP/1.1') return;
    const header = (name: string) => singleHeader(message, name) ?? null;
    heard({
      from: remote.address,
      nts: header('NTS'),
      nt: header('NT'),
      usn: header('USN'),
      location: header('LOCATION'),
    });
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ port: 1900, address: '239.255.255.250' }, () => {
      socket.addMembership('239.255.255.250', interfaceAddress);
      resolve(socket);
    });
  });
}

export interface Answer {
  from: string;
  st: string | null;
  usn: string | null;
  location: string | null;
  server: string | null;
  ext: string | null;
  cacheControl: string | null;
  date: string | null;
  bootId: string | null;
  configId: string | null;
}

export interface SearchStep {
  name: string;
  /** The datagram sent (an M-SEARCH, or garbage). */
  text: string;
  /** Where: 239.255.255.250 for a multicast search, a device address for a unicast one. */
  to: string;
  /** How many answers it should bring: the step waits for that many, then for the sentinel. */
  expect: number;
}

export interface SearchPlan {
  /** The address the searching socket binds (picks the interface and the source address). */
  bind: string;
  /** The device's unicast address, where the sentinel search goes. */
  device: string;
  udn: string;
  steps: SearchStep[];
  /** GET the LOCATION of the first answer and report its status. */
  fetchLocation?: boolean;
}

export interface StepResult {
  name: string;
  answers: Answer[];
  timedOut: boolean;
}

export function mSearch(st: string, host: string, mx: number | null): string {
  return [
    'M-SEARCH * HTTP/1.1',
    `HOST: ${host}`,
    'MAN: "ssdp:discover"',
    ...(mx === null ? [] : [`MX: ${mx}`]),
    `ST: ${st}`,
    '',
    '',
  ].join('\r\n');
}

function readAnswer(datagram: Buffer, from: string): Answer | null {
  const message = readSsdpMessage(datagram);
  if (message?.startLine !== 'HTTP/1.1 200 OK') return null;
  const header = (name: string) => singleHeader(message, name) ?? null;
  return {
    from,
    st: header('ST'),
    usn: header('USN'),
    location: header('LOCATION'),
    server: header('SERVER'),
    ext: header('EXT'),
    cacheControl: header('CACHE-CONTROL'),
    date: header('DATE'),
    bootId: header('BOOTID.UPNP.ORG'),
    configId: header('CONFIGID.UPNP.ORG'),
  };
}

/**
 * One step on a fresh socket: send, wait for `expect` answers, then send a unicast search for the UDN
 * (the sentinel) from the same socket and keep everything until its answer. The device answers in the
 * order it sends, over one path, so anything the step brought beyond `expect` arrives before the
 * sentinel's answer: the count is exact without waiting for a quiet time.
 */
function runStep(plan: SearchPlan, step: SearchStep): Promise<StepResult> {
  const socket = createSocket('udp4');
  const answers: Answer[] = [];
  let sentinelSent = false;
  return new Promise<StepResult>((resolve, reject) => {
    const finish = (timedOut: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve({ name: step.name, answers, timedOut });
    };
    const timer = setTimeout(() => finish(true), 20_000);
    const sendSentinel = () => {
      sentinelSent = true;
      socket.send(mSearch(plan.udn, `${plan.device}:1900`, null), 1900, plan.device);
    };
    socket.on('message', (datagram, remote) => {
      const answer = readAnswer(datagram, remote.address);
      if (answer === null) return;
      if (sentinelSent && answer.st === plan.udn && answers.length >= step.expect) {
        finish(false);
        return;
      }
      answers.push(answer);
      if (!sentinelSent && answers.length === step.expect) sendSentinel();
    });
    socket.once('error', reject);
    socket.bind({ address: plan.bind, port: 0 }, () => {
      socket.send(step.text, 1900, step.to);
      if (step.expect === 0) sendSentinel();
    });
  });
}

export async function runSearches(
  plan: SearchPlan,
): Promise<{ steps: StepResult[]; locationStatus?: number }> {
  const steps: StepResult[] = [];
  for (const step of plan.steps) steps.push(await runStep(plan, step));
  if (plan.fetchLocation !== true) return { steps };
  const location = steps.flatMap((s) => s.answers)[0]?.location;
  if (location === undefined || location === null) return { steps };
  const response = await fetch(location);
  await response.arrayBuffer();
  return { steps, locationStatus: response.status };
}

/** In the peer namespace: another namespace than the host's, holding only lo and rsdl1. */
function provePeerNamespace(): void {
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (line.split(':')[1] ?? '').trim().replace(/@.*$/, ''));
  const ns = readlinkSync('/proc/self/ns/net');
  const host = process.env.REELSHELF_HOST_NETNS ?? '';
  if (host === '' || ns === host || links.some((name) => name !== 'lo' && name !== 'rsdl1')) {
    process.stdout.write(`${JSON.stringify({ refused: `peer namespace: ${ns} ${links.join(',')}` })}\n`);
    process.exit(3);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  provePeerNamespace();
  const [mode, argument] = process.argv.slice(2);
  if (mode === 'listen') {
    await listenForNotifies(argument ?? '', (notify) =>
      process.stdout.write(`${JSON.stringify({ notify })}\n`),
    );
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    // Until the test's script ends it (the parent's death kills it too: it runs in the namespace's PID space).
  } else if (mode === 'search') {
    const result = await runSearches(JSON.parse(argument ?? '{}') as SearchPlan);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    process.stderr.write('usage: dlna-ssdp-peer.ts listen <address> | search <json>\n');
    process.exit(2);
  }
}
