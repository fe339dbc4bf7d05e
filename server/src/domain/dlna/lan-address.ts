/**
 * Who DLNA answers (INTERFACE.md "DLNA"): DLNA has no sign-in, so the MediaServer, its media URLs and
 * SSDP answer only addresses that cannot come from the internet. That is every range IANA's
 * special-purpose registries mark "globally reachable: false" that a home network uses: loopback,
 * RFC 1918 private, RFC 6598 shared (carrier-grade NAT, some mesh routers), RFC 2544 benchmarking
 * (198.18.0.0/15, which the tests' private namespaces use), IPv4 and IPv6 link-local, and IPv6 unique
 * local. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.2`, as a dual-stack socket reports them) are judged
 * by their IPv4 address. Pure (node:net's BlockList does the prefix matching).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const LAN = new BlockList();
for (const [network, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['198.18.0.0', 15],
  ['169.254.0.0', 16],
] as const) {
  LAN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::1', 128],
  ['fe80::', 10],
  ['fc00::', 7],
] as const) {
  LAN.addSubnet(network, prefix, 'ipv6');
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** Whether a peer address (as a socket reports it) may use DLNA. Anything unparsable: no. */
export function isLanAddress(address: string): boolean {
  // A zone id (`fe80::1%eth0`) names the interface, not the address.
  const bare = address.replace(/%[\w.-]+$/, '');
  const mapped = MAPPED_V4.exec(bare);
  if (mapped !== null) return isIPv4(mapped[1] ?? '') && LAN.check(mapped[1] ?? '', 'ipv4');
  if (isIPv4(bare)) return LAN.check(bare, 'ipv4');
  if (isIPv6(bare)) return LAN.check(bare, 'ipv6');
  return false;
}

/** Whether a listen host (REELSHELF_HOST) is loopback only: then SSDP announces nothing else. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIPv4(bare) && bare.startsWith('127.'));
}
