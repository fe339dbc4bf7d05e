/**
 * SSDP, the discovery half of UPnP (UPnP Device Architecture 1.1 §1; players.md §2.1): the M-SEARCH
 * questions a control point (a TV, VLC, gssdp) multicasts to 239.255.255.250:1900 or sends unicast to
 * a device, the `HTTP/1.1 200 OK` answers, and the `NOTIFY ssdp:alive` / `ssdp:byebye` announcements.
 * Pure: every datagram is read here without throwing (hostile or garbage input gives null) and every
 * message is built here; the socket lives in adapters/ssdp-socket.ts, the timing in
 * services/dlna/ssdp.service.ts.
 */
import { answeringAddress } from '../jellyfin/discovery.ts';
import { DLNA_DESCRIPTION_PATH, DLNA_DEVICE_TYPE, DLNA_SERVICES, serviceType } from './paths.ts';

export const SSDP_MULTICAST_ADDRESS = '239.255.255.250';
export const SSDP_PORT = 1900;
/** How long a control point may keep our announcement (UDA: ≥ 1800 s recommended). */
export const SSDP_MAX_AGE_SECONDS = 1800;
/** UDA 1.1: an MX above 5 is taken as 5, so a searcher cannot make us hold an answer for long. */
export const SSDP_MAX_MX_SECONDS = 5;
/** UDA 1.1 §1.1.2: multicast messages leave with TTL 2 (the link, and one router at most). */
export const SSDP_MULTICAST_TTL = 2;

/** A datagram longer than this is no SSDP message worth reading (real ones are ~300 bytes). */
const MAX_MESSAGE_BYTES = 8192;
const MAX_HEADERS = 64;
/** RFC 9110 token: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII and tab: anything else in a value (CR, LF, NUL, bytes ≥ 0x7f) is refused. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** An SSDP message split into its start line and headers (names lower-cased; a repeated name keeps all). */
export interface SsdpMessage {
  startLine: string;
  headers: ReadonlyMap<string, readonly string[]>;
}

/**
 * Splits a datagram into start line and headers, or null when it is not a well-formed HTTP-over-UDP
 * message: too long, no start line, a header line without `name:`, a folded line, control characters.
 * Lines may end in CRLF or a bare LF (some control points send LF); what follows the blank line is ignored.
 */
export function readSsdpMessage(datagram: Uint8Array | string): SsdpMessage | null {
  if (datagram.length === 0 || datagram.length > MAX_MESSAGE_BYTES) return null;
  // latin1 maps every byte to one character: no decoding error, and bytes ≥ 0x80 fail HEADER_VALUE.
  const text = typeof datagram === 'string' ? datagram : Buffer.from(datagram).toString('latin1');
  const lines = text.split(/\r?\n/);
  const startLine = lines[0] ?? '';
  if (startLine === '' || !HEADER_VALUE.test(startLine)) return null;
  const headers = new Map<string, string[]>();
  let count = 0;
  for (const line of lines.slice(1)) {
    if (line === '') break;
    if (++count > MAX_HEADERS) return null;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (!TOKEN.test(name) || !HEADER_VALUE.test(value)) return null;
    const key = name.toLowerCase();
    headers.set(key, [...(headers.get(key) ?? []), value]);
  }
  return { startLine, headers };
}

/** The one value of a header, null when absent; undefined when repeated (ambiguous: refuse the message). */
export function singleHeader(message: SsdpMessage, name: string): string | null | undefined {
  const values = message.headers.get(name.toLowerCase());
  if (values === undefined) return null;
  return values.length === 1 ? values[0] : undefined;
}

/** A search worth answering. */
export interface SsdpSearch {
  /** ST: what is searched for (`ssdp:all`, `upnp:rootdevice`, `uuid:…`, a device or service type). */
  searchTarget: string;
  /**
   * Seconds the answer may be spread over (MX, capped to 1–5), or null for a unicast search (UDA 1.1:
   * no MX), which is answered at once.
   */
  mxSeconds: number | null;
  /** HOST as sent (`239.255.255.250:1900`, or the device's address for a unicast search); null if absent. */
  host: string | null;
}

const SEARCH_LINE = 'M-SEARCH * HTTP/1.1';
const MAX_SEARCH_TARGET_CHARS = 256;

/**
 * Reads an M-SEARCH, or null for anything else (a NOTIFY, an answer, garbage): the request line must be
 * exactly `M-SEARCH * HTTP/1.1` (HTTP methods are case-sensitive); header names are not. `MAN` must be
 * `"ssdp:discover"` (quoted as UDA writes it; the bare form some clients send is taken too). `ST` must be
 * there, once. `MX`, when there, is a whole number: above 5 it is taken as 5 (UDA 1.1), below 1 as 1.
 */
export function parseSearch(datagram: Uint8Array | string): SsdpSearch | null {
  const message = readSsdpMessage(datagram);
  if (message === null || message.startLine !== SEARCH_LINE) return null;
  const man = singleHeader(message, 'MAN');
  if (typeof man !== 'string' || man.replace(/^"(.*)"$/, '$1').toLowerCase() !== 'ssdp:discover') return null;
  const searchTarget = singleHeader(message, 'ST');
  if (
    typeof searchTarget !== 'string' ||
    searchTarget === '' ||
    searchTarget.length > MAX_SEARCH_TARGET_CHARS
  )
    return null;
  const mx = singleHeader(message, 'MX');
  if (mx === undefined) return null;
  let mxSeconds: number | null = null;
  if (mx !== null) {
    if (!/^\d{1,9}$/.test(mx)) return null;
    mxSeconds = Math.min(SSDP_MAX_MX_SECONDS, Math.max(1, Number(mx)));
  }
  const host = singleHeader(message, 'HOST');
  if (host === undefined) return null;
  return { searchTarget, mxSeconds, host };
}

/** One thing the device announces and answers for: NT (or ST in an answer) and its USN. */
export interface SsdpTarget {
  nt: string;
  usn: string;
}

/** `uuid:…` from a UDN given with or without the prefix; throws on one that could break a header. */
export function normalizeUdn(udn: string): string {
  const bare = udn.trim().replace(/^uuid:/i, '');
  if (!/^[0-9A-Za-z-]{1,128}$/.test(bare)) throw new Error(`not a UDN: ${JSON.stringify(udn)}`);
  return `uuid:${bare}`;
}

/**
 * The 3 + N targets of a root device with N services (UDA 1.1 §1.1.2), in the order minidlna and
 * gerbera answer `ssdp:all`: rootdevice, the UDN, the device type, each service type.
 */
export function deviceTargets(udn: string): SsdpTarget[] {
  const uuid = normalizeUdn(udn);
  return [
    { nt: 'upnp:rootdevice', usn: `${uuid}::upnp:rootdevice` },
    { nt: uuid, usn: uuid },
    { nt: DLNA_DEVICE_TYPE, usn: `${uuid}::${DLNA_DEVICE_TYPE}` },
    ...DLNA_SERVICES.map((name) => ({ nt: serviceType(name), usn: `${uuid}::${serviceType(name)}` })),
  ];
}

/**
 * The targets a search target asks for: all of them for `ssdp:all`, else the one it names (compared
 * without case: a UUID may come upper-cased, and no two targets differ only by case). A type of
 * another version (`MediaServer:2`) is not ours: nothing.
 */
export function matchingTargets(searchTarget: string, targets: readonly SsdpTarget[]): SsdpTarget[] {
  if (searchTarget === 'ssdp:all') return [...targets];
  const wanted = searchTarget.toLowerCase();
  return targets.filter((target) => target.nt.toLowerCase() === wanted);
}

/** What every answer and announcement of this run says about the device. */
export interface SsdpIdentity {
  /** SERVER: `<os>/<version> UPnP/1.1 reelshelf/<version>` (serverHeader). */
  server: string;
  /** BOOTID.UPNP.ORG: changes each time the device starts (UDA 1.1 §1.2.2). */
  bootId: number;
  /** CONFIGID.UPNP.ORG: changes when the description does. */
  configId: number;
  maxAgeSeconds: number;
}

/** A header-safe product token: what is not a token character becomes `_`; empty → `unknown`. */
function productToken(value: string): string {
  const cleaned = value.replace(/[^!#$%&'*+.^_`|~0-9A-Za-z-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'unknown' : cleaned;
}

/** SERVER (and USER-AGENT) as UDA 1.1 writes it: `OS/version UPnP/1.1 product/version`. */
export function serverHeader(osName: string, osVersion: string, version: string): string {
  return `${productToken(osName)}/${productToken(osVersion)} UPnP/1.1 reelshelf/${productToken(version)}`;
}

function message(startLine: string, headers: readonly [string, string][]): string {
  return `${[startLine, ...headers.map(([name, value]) => `${name}: ${value}`.trimEnd())].join('\r\n')}\r\n\r\n`;
}

/** The unicast `200 OK` answering a search with one target (ST is the target's own spelling). */
export function searchAnswer(
  target: SsdpTarget,
  location: string,
  identity: SsdpIdentity,
  date: Date,
): string {
  return message('HTTP/1.1 200 OK', [
    ['CACHE-CONTROL', `max-age=${identity.maxAgeSeconds}`],
    ['DATE', date.toUTCString()],
    ['EXT', ''],
    ['LOCATION', location],
    ['SERVER', identity.server],
    ['ST', target.nt],
    ['USN', target.usn],
    ['BOOTID.UPNP.ORG', String(identity.bootId)],
    ['CONFIGID.UPNP.ORG', String(identity.configId)],
  ]);
}

const HOST = `${SSDP_MULTICAST_ADDRESS}:${SSDP_PORT}`;

/** `NOTIFY ssdp:alive` for one target, naming the description on the address it is sent from. */
export function aliveNotify(target: SsdpTarget, location: string, identity: SsdpIdentity): string {
  return message('NOTIFY * HTTP/1.1', [
    ['HOST', HOST],
    ['CACHE-CONTROL', `max-age=${identity.maxAgeSeconds}`],
    ['LOCATION', location],
    ['NT', target.nt],
    ['NTS', 'ssdp:alive'],
    ['SERVER', identity.server],
    ['USN', target.usn],
    ['BOOTID.UPNP.ORG', String(identity.bootId)],
    ['CONFIGID.UPNP.ORG', String(identity.configId)],
  ]);
}

/** `NOTIFY ssdp:byebye` for one target (UDA 1.1: no LOCATION, no CACHE-CONTROL, no SERVER). */
export function byebyeNotify(target: SsdpTarget, identity: SsdpIdentity): string {
  return message('NOTIFY * HTTP/1.1', [
    ['HOST', HOST],
    ['NT', target.nt],
    ['NTS', 'ssdp:byebye'],
    ['USN', target.usn],
    ['BOOTID.UPNP.ORG', String(identity.bootId)],
    ['CONFIGID.UPNP.ORG', String(identity.configId)],
  ]);
}

/** One IPv4 address of a local interface (os.networkInterfaces() lists one entry per address). */
export interface Ipv4Interface {
  name: string;
  address: string;
  netmask: string;
  internal: boolean;
}

/**
 * LOCATION for an answer to `sender`: the description on the local address of the interface the
 * search came in on. Node's UDP socket does not say which interface received a datagram, so it is
 * the one whose subnet holds the sender, by the rule Jellyfin's discovery answers with
 * (domain/jellyfin/discovery.ts `answeringAddress`: loopback → 127.0.0.1, the narrowest subnet).
 */
export function descriptionLocation(
  sender: string,
  interfaces: readonly Ipv4Interface[],
  httpPort: number,
): string {
  const local = answeringAddress(
    sender,
    interfaces.map((i) => ({ ...i, family: 'IPv4' as const })),
  );
  return locationOn(local, httpPort);
}

/** The description URL on one local address (the LOCATION of a NOTIFY sent from that address). */
export function locationOn(address: string, httpPort: number): string {
  return `http://${address}:${httpPort}${DLNA_DESCRIPTION_PATH}`;
}

/** Group memberships to drop and to add so that every interface listed now is joined once. */
export interface MembershipPlan {
  leave: { name: string; address: string }[];
  join: { name: string; address: string }[];
}

/**
 * A membership is per interface, joined through one of its addresses: an interface that vanished, or
 * whose joining address vanished, is left; an interface not joined is joined through its first address.
 */
export function membershipPlan(
  joined: ReadonlyMap<string, string>,
  now: readonly Ipv4Interface[],
): MembershipPlan {
  const plan: MembershipPlan = { leave: [], join: [] };
  const kept = new Set<string>();
  for (const [name, address] of joined) {
    if (now.some((i) => i.name === name && i.address === address)) kept.add(name);
    else plan.leave.push({ name, address });
  }
  for (const entry of now) {
    if (kept.has(entry.name) || plan.join.some((j) => j.name === entry.name)) continue;
    plan.join.push({ name: entry.name, address: entry.address });
  }
  return plan;
}

/** The addresses listed now that were not listed before (to be announced on at once). */
export function addedAddresses(
  before: readonly Ipv4Interface[],
  now: readonly Ipv4Interface[],
): Ipv4Interface[] {
  return now.filter((i) => !before.some((b) => b.name === i.name && b.address === i.address));
}
