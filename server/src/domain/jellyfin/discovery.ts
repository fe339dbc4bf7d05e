/**
 * Jellyfin's UDP discovery (players.md §1.2): a datagram containing `who is JellyfinServer?` (any
 * case) gets one unicast JSON answer `{Address, Id, Name, EndpointAddress}` that must fit the
 * Kotlin SDK's 1024-byte buffer. `Address` is a URL on the interface the question came in on, so
 * the asker can reach it: Node's UDP socket does not tell which interface received a datagram, so
 * (as Jellyfin's `GetSmartApiUrl` does) the interface is the one whose subnet holds the sender.
 * Pure: the caller hands in the datagram, the sender and the machine's interfaces.
 */

const QUESTION = 'who is jellyfinserver?';

/** The Kotlin SDK reads each answer into a buffer of this size. */
export const DISCOVERY_ANSWER_MAX_BYTES = 1024;

/** Whether a datagram asks for Jellyfin servers (Jellyfin: a case-insensitive `Contains`). */
export function isDiscoveryQuestion(datagram: Uint8Array | string): boolean {
  // Nothing longer than a kilobyte is a question worth reading.
  if (datagram.length > DISCOVERY_ANSWER_MAX_BYTES) return false;
  const text = typeof datagram === 'string' ? datagram : Buffer.from(datagram).toString('utf8');
  return text.toLowerCase().includes(QUESTION);
}

/** One address of a local interface, as os.networkInterfaces() lists it. */
export interface LocalAddress {
  address: string;
  netmask: string;
  family: 'IPv4' | 'IPv6';
  internal: boolean;
}

function ipv4ToNumber(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** `::ffff:192.168.1.9` (a dual-stack socket's form) → `192.168.1.9`. */
export function plainIpv4(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function prefixLength(netmask: number): number {
  let bits = 0;
  for (let mask = netmask; mask > 0; mask = (mask * 2) % 2 ** 32) bits++;
  return bits;
}

/**
 * The local IPv4 address to name in the answer to a question from `sender`: loopback → 127.0.0.1;
 * one of our own addresses → itself; else the address of the interface whose subnet holds the
 * sender (the narrowest when several do); else the first external IPv4 address; else 127.0.0.1.
 */
export function answeringAddress(sender: string, interfaces: readonly LocalAddress[]): string {
  const from = ipv4ToNumber(plainIpv4(sender));
  if (from === null) return fallbackAddress(interfaces);
  if (Math.floor(from / 2 ** 24) === 127) return '127.0.0.1';
  const v4 = interfaces.filter((i) => i.family === 'IPv4');
  const own = v4.find((i) => ipv4ToNumber(i.address) === from);
  if (own !== undefined) return own.address;
  let best: { address: string; bits: number } | null = null;
  for (const candidate of v4) {
    const address = ipv4ToNumber(candidate.address);
    const mask = ipv4ToNumber(candidate.netmask);
    if (address === null || mask === null || candidate.internal) continue;
    // Unsigned 32-bit: `&` in JavaScript is signed, hence the `>>> 0`.
    if ((address & mask) >>> 0 !== (from & mask) >>> 0) continue;
    const bits = prefixLength(mask);
    if (best === null || bits > best.bits) best = { address: candidate.address, bits };
  }
  return best?.address ?? fallbackAddress(interfaces);
}

function fallbackAddress(interfaces: readonly LocalAddress[]): string {
  return interfaces.find((i) => i.family === 'IPv4' && !i.internal)?.address ?? '127.0.0.1';
}

/** Where the facade is served: its own port's root, or the main port under /jellyfin. */
export interface DiscoveryTarget {
  port: number;
  /** '' at the Jellyfin port's root, '/jellyfin' on the main port. */
  path: string;
  serverId: string;
  serverName: string;
}

/** The answer's fields, in Jellyfin's order (ServerDiscoveryInfo). */
export interface DiscoveryAnswer {
  Address: string;
  Id: string;
  Name: string;
  EndpointAddress: null;
}

/** The longest server name sent: the whole answer stays well under the SDK's 1 KB buffer. */
const MAX_NAME_CHARS = 200;

/** The JSON answer to a question from `sender`, or null when the datagram is no question. */
export function discoveryAnswer(
  datagram: Uint8Array | string,
  sender: string,
  interfaces: readonly LocalAddress[],
  target: DiscoveryTarget,
): string | null {
  if (!isDiscoveryQuestion(datagram)) return null;
  const answer: DiscoveryAnswer = {
    Address: `http://${answeringAddress(sender, interfaces)}:${target.port}${target.path}`,
    Id: target.serverId,
    Name: [...target.serverName].slice(0, MAX_NAME_CHARS).join(''),
    EndpointAddress: null,
  };
  return JSON.stringify(answer);
}
