import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLanAddress, isLoopbackHost } from '../../../src/domain/dlna/lan-address.ts';

describe('isLanAddress: who DLNA answers', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.254', true],
    ['192.168.1.20', true],
    ['100.64.0.7', true],
    ['198.18.77.2', true],
    ['198.19.0.1', true],
    ['169.254.10.20', true],
    ['::1', true],
    ['fe80::1', true],
    ['fe80::1%rsdl0', true],
    ['fd12:3456::1', true],
    ['::ffff:192.168.1.5', true],
    ['::FFFF:10.0.0.1', true],
    // Negative cases: reachable from the internet, or not an address at all.
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['172.15.255.255', false],
    ['192.169.0.1', false],
    ['100.128.0.1', false],
    ['198.20.0.1', false],
    ['1.1.1.1', false],
    ['2001:db8::1', false],
    ['2a00:1450::1', false],
    ['::ffff:8.8.8.8', false],
    ['::', false],
    ['0.0.0.0', false],
    ['', false],
    ['localhost', false],
    ['192.168.1', false],
    ['::ffff:999.1.1.1', false],
  ];
  for (const [address, expected] of cases) {
    it(`${JSON.stringify(address)} → ${expected}`, () => assert.equal(isLanAddress(address), expected));
  }
});

describe('isLoopbackHost: a server SSDP announces only on loopback', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['', false],
  ];
  for (const [host, expected] of cases) {
    it(`${JSON.stringify(host)} → ${expected}`, () => assert.equal(isLoopbackHost(host), expected));
  }
});
