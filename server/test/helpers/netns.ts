// The private network namespace that every test sending SSDP or UDP discovery datagrams runs in
// (players.md §2.6; the rule: such traffic never leaves a namespace the test made itself).
//
// Outside (the test file): `cannotMakeNetns()` says why it cannot run here (the test is then skipped
// with that reason), `runInPrivateNetns(argv)` runs a command inside a fresh namespace holding only
// its own loopback and one end of a veth pair (rsdl0, 198.18.77.1/24); the other end (rsdl1,
// 198.18.77.2/24) sits in a second, peer namespace, which plays "another box on the LAN". Both
// namespaces also get a private PID namespace: when the runner dies — even by SIGKILL — the kernel
// ends everything inside (setpriv's parent-death signal kills unshare, unshare's kills the namespace's
// init, and a PID namespace dies with its init). Nothing persists: no `ip netns add`, no cleanup.
//
// Inside (the command): `provePrivateNetns()` refuses (exit 3, a `{"refused": …}` line) unless the
// process is in a namespace other than the host's whose only links are `lo` and `rsdl0`; call it
// before the first datagram. `inPeer(argv)` gives the argv that runs a command in the peer namespace.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The addresses of the veth pair (RFC 2544 benchmark range: exists only inside the namespaces). */
export const NETNS_ADDRESSES = {
  own: '198.18.77.1',
  peer: '198.18.77.2',
  ownLink: 'rsdl0',
  peerLink: 'rsdl1',
};

/** Why namespaces cannot be made here, or null when they can. */
export function cannotMakeNetns(): string | null {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'creating a network namespace needs root';
  for (const tool of ['unshare', 'nsenter', 'ip', 'setpriv']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  const probe = spawnSync('unshare', ['--net', '--pid', '--fork', '--mount-proc', '--', 'true']);
  if (probe.status !== 0) return `unshare --net --pid failed: ${probe.stderr.toString().trim()}`;
  return null;
}

// Inside the new namespaces: loopback up and multicast-capable with the default multicast route on
// it (minidlna and gssdp work on lo alone); a peer namespace (a shell that ends when this one does)
// joined by a veth pair, its multicast routed over the pair; IPv6 duplicate address detection off
// so libupnp-based peers can bind at once; then the command. "$@" is the command's argv.
const SETUP = `
set -e
ip link set lo up
ip link set lo multicast on
sysctl -qw net.ipv6.conf.all.accept_dad=0 2>/dev/null || true
sysctl -qw net.ipv6.conf.default.accept_dad=0 2>/dev/null || true
unshare --net -- sh -c 'while kill -0 "$0" 2>/dev/null; do sleep 1; done' $$ &
PEER=$!
while [ "$(readlink /proc/$PEER/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
ip link add rsdl0 type veth peer name rsdl1 netns $PEER
ip addr add 198.18.77.1/24 dev rsdl0
ip link set rsdl0 up
ip route add 224.0.0.0/4 dev lo
nsenter --net=/proc/$PEER/ns/net sh -c 'ip link set lo up; ip addr add 198.18.77.2/24 dev rsdl1; ip link set rsdl1 up; ip route add 224.0.0.0/4 dev rsdl1'
export REELSHELF_PEER_PID=$PEER
status=0
"$@" || status=$?
kill $PEER 2>/dev/null || true
exit $status
`;

export interface NetnsRun {
  code: number | null;
  /** stdout and stderr, interleaved as they came. */
  out: string;
  /** Every stdout line that parses as a JSON object. */
  json: Record<string, unknown>[];
}

/**
 * Runs `argv` (from the repository root) inside a fresh private network namespace (see above).
 * Killed after `timeoutMs`. Never call it when `cannotMakeNetns()` gives a reason.
 */
export function runInPrivateNetns(
  argv: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<NetnsRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'setpriv',
      [
        '--pdeathsig',
        'KILL',
        '--',
        'unshare',
        '--net',
        '--pid',
        '--fork',
        '--kill-child=KILL',
        '--mount-proc',
        '--',
        'sh',
        '-c',
        SETUP,
        'netns',
        ...argv,
      ],
      {
        cwd: REPO,
        env: { ...process.env, ...options.env, REELSHELF_HOST_NETNS: readlinkSync('/proc/self/ns/net') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const json: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const value: unknown = JSON.parse(line);
          if (value !== null && typeof value === 'object' && !Array.isArray(value))
            json.push(value as Record<string, unknown>);
        } catch {
          // Not a result line (a tool's own output).
        }
      }
      resolve({ code, out, json });
    });
  });
}

/** The interface names the namespace holds, from netlink (/sys/class/net still shows the host's). */
export function linkNames(): string[] {
  return execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (line.split(':')[1] ?? '').trim().replace(/@.*$/, ''));
}

/**
 * The rule, checked inside before the first datagram: a namespace other than the host's, holding
 * only `lo` and `rsdl0`, with a peer namespace to talk to. Anything else: refuse and exit 3.
 */
export function provePrivateNetns(): { peerPid: string } {
  const refuse = (reason: string): never => {
    process.stdout.write(`${JSON.stringify({ refused: reason })}\n`);
    process.exit(3);
  };
  const hostNs = process.env.REELSHELF_HOST_NETNS ?? '';
  const ownNs = readlinkSync('/proc/self/ns/net');
  if (hostNs === '' || ownNs === hostNs) refuse(`not in a private network namespace (${ownNs})`);
  const links = linkNames();
  if (links.some((name) => name !== 'lo' && name !== NETNS_ADDRESSES.ownLink))
    refuse(`unexpected links: ${links.join(', ')}`);
  const peerPid = process.env.REELSHELF_PEER_PID ?? '';
  if (!/^\d+$/.test(peerPid)) refuse('no peer namespace');
  return { peerPid };
}

/** The argv that runs `argv` in the peer namespace (198.18.77.2 across the veth pair). */
export function inPeer(argv: readonly string[]): string[] {
  const peerPid = process.env.REELSHELF_PEER_PID ?? '';
  if (!/^\d+$/.test(peerPid)) throw new Error('inPeer: not inside runInPrivateNetns');
  return ['nsenter', `--net=/proc/${peerPid}/ns/net`, '--', ...argv];
}
