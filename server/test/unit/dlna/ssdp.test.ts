import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addedAddresses,
  aliveNotify,
  byebyeNotify,
  descriptionLocation,
  deviceTargets,
  matchingTargets,
  membershipPlan,
  normalizeUdn,
  parseSearch,
  readSsdpMessage,
  searchAnswer,
  serverHeader,
  type Ipv4Interface,
  type SsdpIdentity,
} from '../../../src/domain/dlna/ssdp.ts';

const UDN = 'uuid:4d696e69-444c-164e-9d41-be13216df0ac';
const targets = deviceTargets(UDN);
function target(index: number) {
  const found = targets[index];
  assert.ok(found !== undefined);
  return found;
}

function search(lines: string[], eol = '\r\n'): string {
  return `${lines.join(eol)}${eol}${eol}`;
}

const GOOD = [
  'M-SEARCH * HTTP/1.1',
  'HOST: 239.255.255.250:1900',
  'MAN: "ssdp:discover"',
  'MX: 2',
  'ST: ssdp:all',
];

describe('parseSearch: M-SEARCH in, or null for anything else', () => {
  const cases: [string, string | Uint8Array, ReturnType<typeof parseSearch>][] = [
    [
      'multicast search',
      search(GOOD),
      { searchTarget: 'ssdp:all', mxSeconds: 2, host: '239.255.255.250:1900' },
    ],
    [
      'header names in any case, values trimmed',
      search([
        'M-SEARCH * HTTP/1.1',
        'host:239.255.255.250:1900',
        'man:   "ssdp:discover"  ',
        'Mx:1',
        'sT: upnp:rootdevice',
      ]),
      { searchTarget: 'upnp:rootdevice', mxSeconds: 1, host: '239.255.255.250:1900' },
    ],
    [
      'bare LF line ends',
      search(GOOD, '\n'),
      { searchTarget: 'ssdp:all', mxSeconds: 2, host: '239.255.255.250:1900' },
    ],
    [
      'MAN unquoted (some clients)',
      search([...GOOD.slice(0, 2), 'MAN: ssdp:discover', ...GOOD.slice(3)]),
      {
        searchTarget: 'ssdp:all',
        mxSeconds: 2,
        host: '239.255.255.250:1900',
      },
    ],
    [
      'unicast search (UDA 1.1): no MX → answered at once',
      search([
        'M-SEARCH * HTTP/1.1',
        'HOST: 198.18.77.1:1900',
        'MAN: "ssdp:discover"',
        'ST: upnp:rootdevice',
      ]),
      { searchTarget: 'upnp:rootdevice', mxSeconds: null, host: '198.18.77.1:1900' },
    ],
    [
      'MX above 5 is 5',
      search([...GOOD.slice(0, 3), 'MX: 120', GOOD[4] ?? '']),
      {
        searchTarget: 'ssdp:all',
        mxSeconds: 5,
        host: '239.255.255.250:1900',
      },
    ],
    [
      'MX 0 is 1',
      search([...GOOD.slice(0, 3), 'MX: 0', GOOD[4] ?? '']),
      {
        searchTarget: 'ssdp:all',
        mxSeconds: 1,
        host: '239.255.255.250:1900',
      },
    ],
    [
      'no HOST still answered',
      search([GOOD[0] ?? '', ...GOOD.slice(2)]),
      { searchTarget: 'ssdp:all', mxSeconds: 2, host: null },
    ],
    [
      'as bytes',
      Buffer.from(search(GOOD)),
      { searchTarget: 'ssdp:all', mxSeconds: 2, host: '239.255.255.250:1900' },
    ],
    // Everything below is ignored.
    ['empty', '', null],
    ['garbage bytes', Buffer.from([0xff, 0x00, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a]), null],
    [
      'a NOTIFY',
      aliveNotify(target(0), 'http://127.0.0.1:1/d.xml', {
        server: 'x',
        bootId: 1,
        configId: 1,
        maxAgeSeconds: 1800,
      }),
      null,
    ],
    ['an answer', 'HTTP/1.1 200 OK\r\nST: ssdp:all\r\n\r\n', null],
    ['method in lower case', search(['m-search * HTTP/1.1', ...GOOD.slice(1)]), null],
    ['HTTP/1.0', search(['M-SEARCH * HTTP/1.0', ...GOOD.slice(1)]), null],
    ['a path instead of *', search(['M-SEARCH / HTTP/1.1', ...GOOD.slice(1)]), null],
    ['no MAN', search([GOOD[0] ?? '', GOOD[1] ?? '', GOOD[3] ?? '', GOOD[4] ?? '']), null],
    ['wrong MAN', search([...GOOD.slice(0, 2), 'MAN: "ssdp:alive"', ...GOOD.slice(3)]), null],
    ['no ST', search(GOOD.slice(0, 4)), null],
    ['empty ST', search([...GOOD.slice(0, 4), 'ST:']), null],
    ['two ST', search([...GOOD, 'ST: upnp:rootdevice']), null],
    ['two MX', search([...GOOD, 'MX: 3']), null],
    ['MX not a number', search([...GOOD.slice(0, 3), 'MX: two', GOOD[4] ?? '']), null],
    ['MX negative', search([...GOOD.slice(0, 3), 'MX: -1', GOOD[4] ?? '']), null],
    ['MX fractional', search([...GOOD.slice(0, 3), 'MX: 1.5', GOOD[4] ?? '']), null],
    ['a header line without a colon', search([...GOOD, 'garbage']), null],
    ['a header name with a space', search([...GOOD, 'X Y: z']), null],
    ['a folded header line', search([...GOOD, ' continued']), null],
    ['NUL in a value', search([...GOOD.slice(0, 4), 'ST: ssdp:all\0']), null],
    [
      'a byte above 0x7f in a value',
      Buffer.concat([
        Buffer.from(search(GOOD.slice(0, 4)).slice(0, -2)),
        Buffer.from('ST: \xe9\r\n\r\n', 'latin1'),
      ]),
      null,
    ],
    ['bare CR line ends', GOOD.join('\r'), null],
    ['too long', search([...GOOD, `X-PAD: ${'a'.repeat(9000)}`]), null],
    ['too many headers', search([...GOOD, ...Array.from({ length: 70 }, (_, i) => `X-${i}: 1`)]), null],
    ['an overlong ST', search([...GOOD.slice(0, 4), `ST: urn:${'x'.repeat(300)}`]), null],
  ];
  for (const [name, datagram, expected] of cases) {
    it(name, () => assert.deepEqual(parseSearch(datagram), expected));
  }

  it('never throws, whatever the bytes', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.from(Array.from({ length: next() * 4 }, next));
      // Half of them start like a search, to get past the first check.
      const datagram = i % 2 === 0 ? Buffer.concat([Buffer.from('M-SEARCH * HTTP/1.1\r\n'), bytes]) : bytes;
      assert.doesNotThrow(() => parseSearch(datagram));
    }
  });
});

describe('readSsdpMessage', () => {
  it('keeps repeated headers and ignores a body', () => {
    const message = readSsdpMessage('NOTIFY * HTTP/1.1\r\nX-A: 1\r\nx-a: 2\r\n\r\nbody: here');
    assert.equal(message?.startLine, 'NOTIFY * HTTP/1.1');
    assert.deepEqual(message?.headers.get('x-a'), ['1', '2']);
    assert.equal(message?.headers.has('body'), false);
  });
});

describe('targets: what the MediaServer announces and answers for', () => {
  it('rootdevice, the UDN, the device type and the 3 services, with their USNs', () => {
    assert.deepEqual(targets, [
      { nt: 'upnp:rootdevice', usn: `${UDN}::upnp:rootdevice` },
      { nt: UDN, usn: UDN },
      {
        nt: 'urn:schemas-upnp-org:device:MediaServer:1',
        usn: `${UDN}::urn:schemas-upnp-org:device:MediaServer:1`,
      },
      {
        nt: 'urn:schemas-upnp-org:service:ContentDirectory:1',
        usn: `${UDN}::urn:schemas-upnp-org:service:ContentDirectory:1`,
      },
      {
        nt: 'urn:schemas-upnp-org:service:ConnectionManager:1',
        usn: `${UDN}::urn:schemas-upnp-org:service:ConnectionManager:1`,
      },
      {
        nt: 'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1',
        usn: `${UDN}::urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1`,
      },
    ]);
  });

  it('a UDN without its prefix gets it; one that could break a header is refused', () => {
    assert.equal(normalizeUdn('abc-123'), 'uuid:abc-123');
    assert.equal(normalizeUdn(UDN), UDN);
    assert.throws(() => normalizeUdn('uuid:a\r\nX: y'));
    assert.throws(() => normalizeUdn(''));
  });

  const matches: [string, string[]][] = [
    ['ssdp:all', targets.map((t) => t.nt)],
    ['upnp:rootdevice', ['upnp:rootdevice']],
    [UDN, [UDN]],
    [UDN.toUpperCase().replace('UUID:', 'uuid:'), [UDN]],
    ['urn:schemas-upnp-org:device:MediaServer:1', ['urn:schemas-upnp-org:device:MediaServer:1']],
    ['urn:schemas-upnp-org:service:ContentDirectory:1', ['urn:schemas-upnp-org:service:ContentDirectory:1']],
    [
      'urn:schemas-upnp-org:service:ConnectionManager:1',
      ['urn:schemas-upnp-org:service:ConnectionManager:1'],
    ],
    [
      'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1',
      ['urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1'],
    ],
    ['urn:schemas-upnp-org:device:MediaServer:2', []],
    ['urn:schemas-upnp-org:device:MediaRenderer:1', []],
    ['uuid:someone-else', []],
    ['SSDP:ALL', []],
  ];
  for (const [st, expected] of matches) {
    it(`ST ${st} → ${expected.length} target(s)`, () =>
      assert.deepEqual(
        matchingTargets(st, targets).map((t) => t.nt),
        expected,
      ));
  }
});

const identity: SsdpIdentity = {
  server: serverHeader('Linux', '6.1.0-13-amd64', '0.1.0'),
  bootId: 1764133200,
  configId: 1,
  maxAgeSeconds: 1800,
};

describe('messages sent', () => {
  it('SERVER is OS/version UPnP/1.1 reelshelf/version, header-safe', () => {
    assert.equal(identity.server, 'Linux/6.1.0-13-amd64 UPnP/1.1 reelshelf/0.1.0');
    assert.equal(serverHeader('Win dows\r\n', '', '1 2'), 'Win_dows__/unknown UPnP/1.1 reelshelf/1_2');
  });

  it('the 200 OK answer carries every header UDA 1.1 requires', () => {
    const text = searchAnswer(
      target(2),
      'http://198.18.77.1:8080/dlna/description.xml',
      identity,
      new Date(Date.UTC(2026, 10, 26, 5, 0, 0)),
    );
    assert.equal(
      text,
      [
        'HTTP/1.1 200 OK',
        'CACHE-CONTROL: max-age=1800',
        'DATE: Thu, 26 Nov 2026 05:00:00 GMT',
        'EXT:',
        'LOCATION: http://198.18.77.1:8080/dlna/description.xml',
        'SERVER: Linux/6.1.0-13-amd64 UPnP/1.1 reelshelf/0.1.0',
        'ST: urn:schemas-upnp-org:device:MediaServer:1',
        `USN: ${UDN}::urn:schemas-upnp-org:device:MediaServer:1`,
        'BOOTID.UPNP.ORG: 1764133200',
        'CONFIGID.UPNP.ORG: 1',
        '',
        '',
      ].join('\r\n'),
    );
    // What we send, we can read back.
    assert.equal(readSsdpMessage(text)?.headers.get('ext')?.[0], '');
  });

  it('NOTIFY ssdp:alive and ssdp:byebye', () => {
    assert.equal(
      aliveNotify(target(0), 'http://127.0.0.1:8080/dlna/description.xml', identity),
      [
        'NOTIFY * HTTP/1.1',
        'HOST: 239.255.255.250:1900',
        'CACHE-CONTROL: max-age=1800',
        'LOCATION: http://127.0.0.1:8080/dlna/description.xml',
        'NT: upnp:rootdevice',
        'NTS: ssdp:alive',
        'SERVER: Linux/6.1.0-13-amd64 UPnP/1.1 reelshelf/0.1.0',
        `USN: ${UDN}::upnp:rootdevice`,
        'BOOTID.UPNP.ORG: 1764133200',
        'CONFIGID.UPNP.ORG: 1',
        '',
        '',
      ].join('\r\n'),
    );
    assert.equal(
      byebyeNotify(target(1), identity),
      [
        'NOTIFY * HTTP/1.1',
        'HOST: 239.255.255.250:1900',
        `NT: ${UDN}`,
        'NTS: ssdp:byebye',
        `USN: ${UDN}`,
        'BOOTID.UPNP.ORG: 1764133200',
        'CONFIGID.UPNP.ORG: 1',
        '',
        '',
      ].join('\r\n'),
    );
  });
});

const LO: Ipv4Interface = { name: 'lo', address: '127.0.0.1', netmask: '255.0.0.0', internal: true };
const ETH: Ipv4Interface = {
  name: 'eth0',
  address: '192.168.1.5',
  netmask: '255.255.255.0',
  internal: false,
};
const WIFI: Ipv4Interface = { name: 'wlan0', address: '10.0.0.7', netmask: '255.255.0.0', internal: false };
const ETH2: Ipv4Interface = {
  name: 'eth0',
  address: '192.168.2.5',
  netmask: '255.255.255.0',
  internal: false,
};

describe('LOCATION: the address of the interface the search came in on', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['127.5.5.5', '127.0.0.1'],
    ['192.168.1.40', '192.168.1.5'],
    ['192.168.2.40', '192.168.2.5'],
    ['10.0.200.1', '10.0.0.7'],
    ['192.168.1.5', '192.168.1.5'],
  ];
  for (const [sender, local] of cases) {
    it(`${sender} → ${local}`, () =>
      assert.equal(
        descriptionLocation(sender, [LO, ETH, WIFI, ETH2], 8080),
        `http://${local}:8080/dlna/description.xml`,
      ));
  }
});

describe('interfaces re-read: memberships and new addresses', () => {
  it('joins each interface once, through its first address', () => {
    assert.deepEqual(membershipPlan(new Map(), [LO, ETH, ETH2, WIFI]), {
      leave: [],
      join: [
        { name: 'lo', address: '127.0.0.1' },
        { name: 'eth0', address: '192.168.1.5' },
        { name: 'wlan0', address: '10.0.0.7' },
      ],
    });
  });

  it('keeps what is still there, leaves what vanished, rejoins an interface whose address changed', () => {
    const joined = new Map([
      ['lo', '127.0.0.1'],
      ['eth0', '192.168.1.5'],
      ['wlan0', '10.0.0.7'],
    ]);
    assert.deepEqual(membershipPlan(joined, [LO, ETH2]), {
      leave: [
        { name: 'eth0', address: '192.168.1.5' },
        { name: 'wlan0', address: '10.0.0.7' },
      ],
      join: [{ name: 'eth0', address: '192.168.2.5' }],
    });
    assert.deepEqual(membershipPlan(joined, [LO, ETH, WIFI, ETH2]), { leave: [], join: [] });
  });

  it('names the addresses that appeared', () => {
    assert.deepEqual(addedAddresses([LO, ETH], [LO, ETH, ETH2, WIFI]), [ETH2, WIFI]);
    assert.deepEqual(addedAddresses([LO, ETH], [LO]), []);
  });
});
