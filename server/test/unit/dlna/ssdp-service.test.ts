// The SSDP service's rules over a fake socket (no datagram is sent anywhere): who is answered, when,
// with which LOCATION; what is announced at start, on a new address, and at stop. The real socket is
// judged in integration/dlna-ssdp.test.ts, inside a private network namespace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SsdpSocketEvents } from '../../../src/adapters/ssdp-socket.ts';
import { readSsdpMessage, singleHeader, type Ipv4Interface } from '../../../src/domain/dlna/ssdp.ts';
import { SsdpService, type SsdpTransport } from '../../../src/services/dlna/ssdp.service.ts';

const UDN = 'uuid:0b7c3a4e-1111-4222-8333-944455556666';
const LO: Ipv4Interface = { name: 'lo', address: '127.0.0.1', netmask: '255.0.0.0', internal: true };
const ETH: Ipv4Interface = {
  name: 'eth0',
  address: '192.168.1.5',
  netmask: '255.255.255.0',
  internal: false,
};
const NEW: Ipv4Interface = { name: 'eth1', address: '10.9.0.1', netmask: '255.255.0.0', internal: false };

interface Sent {
  kind: 'multicast' | 'unicast';
  to: string;
  text: string;
}

class FakeTransport implements SsdpTransport {
  events: SsdpSocketEvents | null = null;
  list: Ipv4Interface[] = [LO, ETH];
  sent: Sent[] = [];
  closed = false;
  #waiters: { count: number; resolve: () => void }[] = [];
  open(events: SsdpSocketEvents): Promise<void> {
    this.events = events;
    return Promise.resolve();
  }
  interfaces(): readonly Ipv4Interface[] {
    return this.list;
  }
  sendMulticast(text: string, fromAddress: string): Promise<void> {
    return this.#record({ kind: 'multicast', to: fromAddress, text });
  }
  sendUnicast(text: string, address: string, port: number): Promise<void> {
    return this.#record({ kind: 'unicast', to: `${address}:${port}`, text });
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
  #record(sent: Sent): Promise<void> {
    this.sent.push(sent);
    this.#waiters = this.#waiters.filter((w) => (this.sent.length >= w.count ? (w.resolve(), false) : true));
    return Promise.resolve();
  }
  /** Resolves once `count` datagrams have been sent in all. */
  sentCount(count: number): Promise<void> {
    if (this.sent.length >= count) return Promise.resolve();
    // The service's timers are unref'd (the HTTP server keeps a real process alive): hold the loop open.
    const hold = setInterval(() => {}, 1_000);
    return new Promise<void>((resolve) => this.#waiters.push({ count, resolve })).finally(() =>
      clearInterval(hold),
    );
  }
  search(from: string, st: string, mx: number | null): void {
    const text = ['M-SEARCH * HTTP/1.1', 'HOST: 239.255.255.250:1900', 'MAN: "ssdp:discover"']
      .concat(mx === null ? [] : [`MX: ${mx}`], [`ST: ${st}`, '', ''])
      .join('\r\n');
    this.events?.datagram(Buffer.from(text), { address: from, port: 50000 });
  }
}

const silent = { debug: () => {}, info: () => {}, warn: () => {} };

function header(sent: Sent, name: string): string | null | undefined {
  const message = readSsdpMessage(sent.text);
  return message === null ? undefined : singleHeader(message, name);
}

async function started(options: { random?: () => number; repeatMs?: number } = {}) {
  const transport = new FakeTransport();
  const service = new SsdpService({
    udn: UDN,
    httpPort: 8080,
    version: '0.1.0',
    transport,
    log: silent,
    os: { name: 'Linux', release: '6.1' },
    repeatMs: options.repeatMs ?? 60_000,
    random: options.random,
  });
  await service.start();
  return { transport, service };
}

describe('SsdpService', () => {
  it('announces every target on every address at start, twice, each with its own LOCATION', async () => {
    const { transport, service } = await started({ repeatMs: 5 });
    await transport.sentCount(24); // 6 targets × 2 addresses × 2 rounds
    await service.stop();
    const alive = transport.sent.filter((s) => header(s, 'NTS') === 'ssdp:alive');
    assert.equal(alive.length, 24);
    for (const s of alive) {
      assert.equal(s.kind, 'multicast');
      assert.equal(header(s, 'LOCATION'), `http://${s.to}:8080/dlna/description.xml`);
    }
    assert.deepEqual(
      [...new Set(alive.map((s) => `${s.to} ${header(s, 'NT')}`))].length,
      12,
      'each (address, target) in each round',
    );
  });

  it('answers a LAN sender on the subnet it came from; unicast searches at once', async () => {
    const { transport, service } = await started();
    const before = transport.sent.length;
    transport.search('192.168.1.77', 'urn:schemas-upnp-org:device:MediaServer:1', null);
    transport.search('127.0.0.1', 'upnp:rootdevice', null);
    const answers = transport.sent.slice(before);
    await service.stop();
    assert.deepEqual(
      answers.map((s) => [s.kind, s.to, header(s, 'ST'), header(s, 'LOCATION')]),
      [
        [
          'unicast',
          '192.168.1.77:50000',
          'urn:schemas-upnp-org:device:MediaServer:1',
          'http://192.168.1.5:8080/dlna/description.xml',
        ],
        ['unicast', '127.0.0.1:50000', 'upnp:rootdevice', 'http://127.0.0.1:8080/dlna/description.xml'],
      ],
    );
  });

  it('never answers an address the internet could send from', async () => {
    const { transport, service } = await started();
    const before = transport.sent.length;
    for (const sender of ['8.8.8.8', '203.0.113.9', '2001:db8::1'])
      transport.search(sender, 'ssdp:all', null);
    // A LAN search after them is answered: the ones before it were dropped, not delayed.
    transport.search('192.168.1.77', 'upnp:rootdevice', null);
    const answers = transport.sent.slice(before);
    await service.stop();
    assert.deepEqual(
      answers.map((s) => s.to),
      ['192.168.1.77:50000'],
    );
  });

  it('spreads a multicast search over MX: the random delay, then all its answers', async () => {
    const { transport, service } = await started({ random: () => 0 });
    const before = transport.sent.length;
    transport.search('192.168.1.77', 'ssdp:all', 3);
    assert.equal(transport.sent.length, before, 'not at once');
    await transport.sentCount(before + 6);
    const answers = transport.sent.slice(before);
    await service.stop();
    assert.deepEqual(
      answers.map((s) => header(s, 'ST')),
      [
        'upnp:rootdevice',
        UDN,
        'urn:schemas-upnp-org:device:MediaServer:1',
        'urn:schemas-upnp-org:service:ContentDirectory:1',
        'urn:schemas-upnp-org:service:ConnectionManager:1',
        'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1',
      ],
    );
  });

  it('announces on an address that appears, and says byebye everywhere at stop, dropping pending answers', async () => {
    const { transport, service } = await started({ random: () => 0.99 });
    const before = transport.sent.length;
    transport.list = [LO, ETH, NEW];
    transport.events?.addressesAdded([NEW]);
    assert.deepEqual(
      transport.sent.slice(before).map((s) => [s.to, header(s, 'NTS'), header(s, 'LOCATION')]),
      Array.from({ length: 6 }, () => [
        '10.9.0.1',
        'ssdp:alive',
        'http://10.9.0.1:8080/dlna/description.xml',
      ]),
    );
    transport.search('192.168.1.77', 'ssdp:all', 5); // would be answered ~5 s later
    const beforeStop = transport.sent.length;
    await service.stop();
    const atStop = transport.sent.slice(beforeStop);
    assert.equal(atStop.length, 18, '6 targets × 3 addresses, no answer left');
    assert.ok(atStop.every((s) => s.kind === 'multicast' && header(s, 'NTS') === 'ssdp:byebye'));
    assert.equal(transport.closed, true);
  });

  it('ignores what is not a search it can answer, without throwing', async () => {
    const { transport, service } = await started();
    const before = transport.sent.length;
    for (const datagram of [
      Buffer.from([0, 1, 2, 255]),
      Buffer.from('NOTIFY * HTTP/1.1\r\n\r\n'),
      Buffer.alloc(0),
    ]) {
      transport.events?.datagram(datagram, { address: '192.168.1.77', port: 1 });
    }
    transport.search('192.168.1.77', 'urn:schemas-upnp-org:device:MediaRenderer:1', null);
    assert.equal(transport.sent.length, before);
    await service.stop();
  });

  it('stopped while its socket opens: sends nothing, closes what opened', async () => {
    const transport = new FakeTransport();
    let opened: () => void = () => {};
    transport.open = (events) => {
      transport.events = events;
      return new Promise<void>((resolve) => (opened = resolve));
    };
    const service = new SsdpService({ udn: UDN, httpPort: 8080, version: '0.1.0', transport, log: silent });
    const starting = service.start();
    const stopping = service.stop();
    opened();
    await Promise.all([starting, stopping]);
    assert.deepEqual(transport.sent, []);
    assert.equal(transport.closed, true);
  });
});
