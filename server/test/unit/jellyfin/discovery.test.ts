// Jellyfin UDP discovery's pure parts (domain/jellyfin/discovery.ts): which datagrams are questions,
// which local address an answer names, and the answer itself (under the Kotlin SDK's 1 KB buffer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answeringAddress,
  discoveryAnswer,
  isDiscoveryQuestion,
  type LocalAddress,
} from '../../../src/domain/jellyfin/discovery.ts';

const lo: LocalAddress = { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', internal: true };
const lan: LocalAddress = {
  address: '192.168.1.5',
  netmask: '255.255.255.0',
  family: 'IPv4',
  internal: false,
};
const vpn: LocalAddress = { address: '10.8.0.1', netmask: '255.255.0.0', family: 'IPv4', internal: false };
const wide: LocalAddress = { address: '10.0.0.2', netmask: '255.0.0.0', family: 'IPv4', internal: false };
const v6: LocalAddress = {
  address: 'fe80::1',
  netmask: 'ffff:ffff:ffff:ffff::',
  family: 'IPv6',
  internal: false,
};
const machine = [lo, v6, lan, vpn, wide];

describe('jellyfin discovery: the question', () => {
  const cases: [string, string | Uint8Array, boolean][] = [
    ['the Kotlin SDK', 'who is JellyfinServer?', true],
    ['any case', 'WHO IS JELLYFINSERVER?', true],
    ['inside other text (Contains)', 'hello, who is jellyfinserver? thanks', true],
    ['bytes', new TextEncoder().encode('Who is JellyfinServer?'), true],
    ['Emby’s question', 'who is EmbyServer?', false],
    ['no question mark', 'who is JellyfinServer', false],
    ['empty', '', false],
    ['longer than a kilobyte', `${'x'.repeat(1100)}who is JellyfinServer?`, false],
  ];
  for (const [name, datagram, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(isDiscoveryQuestion(datagram), expected));
  }
});

describe('jellyfin discovery: the address on the interface the question came in on', () => {
  const cases: [string, string, readonly LocalAddress[], string][] = [
    ['loopback', '127.0.0.1', machine, '127.0.0.1'],
    ['any 127/8 sender', '127.3.4.5', machine, '127.0.0.1'],
    ['a phone on the LAN', '192.168.1.77', machine, '192.168.1.5'],
    ['dual-stack form of a LAN sender', '::ffff:192.168.1.77', machine, '192.168.1.5'],
    ['the narrowest subnet wins (VPN /16 inside a /8)', '10.8.3.4', machine, '10.8.0.1'],
    ['the wider subnet otherwise', '10.9.3.4', machine, '10.0.0.2'],
    ['our own address', '10.8.0.1', machine, '10.8.0.1'],
    ['a sender on no subnet of ours: the first external IPv4', '172.16.0.9', machine, '192.168.1.5'],
    ['an IPv6 sender: the first external IPv4', 'fe80::99', machine, '192.168.1.5'],
    ['nothing but loopback', '172.16.0.9', [lo], '127.0.0.1'],
  ];
  for (const [name, sender, interfaces, expected] of cases) {
    it(`${name}: ${sender} → ${expected}`, () =>
      assert.equal(answeringAddress(sender, interfaces), expected));
  }
});

describe('jellyfin discovery: the answer', () => {
  const target = { port: 8096, path: '', serverId: 'a'.repeat(32), serverName: 'reelshelf on nas' };

  it('names the address, the facade base, the server id and name; no answer to other datagrams', () => {
    const text = discoveryAnswer('who is JellyfinServer?', '192.168.1.77', machine, target);
    assert.deepEqual(JSON.parse(text ?? 'null'), {
      Address: 'http://192.168.1.5:8096',
      Id: 'a'.repeat(32),
      Name: 'reelshelf on nas',
      EndpointAddress: null,
    });
    const main = discoveryAnswer('who is JellyfinServer?', '127.0.0.1', machine, {
      ...target,
      port: 8787,
      path: '/jellyfin',
    });
    assert.equal(JSON.parse(main ?? '{}').Address, 'http://127.0.0.1:8787/jellyfin');
    assert.equal(discoveryAnswer('M-SEARCH * HTTP/1.1', '127.0.0.1', machine, target), null);
  });

  it('stays under 1 KB whatever the host is called', () => {
    const text = discoveryAnswer('who is JellyfinServer?', '192.168.1.77', machine, {
      ...target,
      serverName: `reelshelf on ${'ü'.repeat(5000)}`,
    });
    assert.ok(Buffer.byteLength(text ?? '') < 1024, String(Buffer.byteLength(text ?? '')));
  });
});
