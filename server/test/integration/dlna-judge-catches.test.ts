// The DLNA judge must fail a server that breaks the rules, not only pass minidlna: a tiny
// ContentDirectory on loopback (plain HTTP, no SSDP) answers either right or as Gerbera 1.1.0 was
// measured to (players.md §2.4): one film in two containers under distinct ids with no refID, and
// an unknown ObjectID answered 200 with the root's children. The judge's walk, fault and paging
// checks, read by the same asserts as every target's, must reject the second and accept the first.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import DeviceClient from 'upnp-device-client';
import {
  assertFaults,
  assertPaging,
  assertWalk,
  type TargetExpectations,
} from '../helpers/dlna-judge-asserts.ts';
import {
  checkMalformedSoap,
  checkPaging,
  checkUnknownObject,
  CONTENT_DIRECTORY,
  type JudgeFacts,
  walkTree,
} from '../helpers/dlna-judge.ts';

type Flavour = 'right' | 'gerbera';

interface Entry {
  kind: 'container' | 'item';
  id: string;
  title: string;
  refID?: string;
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function tree(flavour: Flavour): Record<string, Entry[]> {
  return {
    '0': [
      { kind: 'container', id: 'all', title: 'All films' },
      { kind: 'container', id: 'years', title: 'By year' },
    ],
    all: [
      { kind: 'item', id: 'alien', title: 'Alien' },
      { kind: 'item', id: 'brazil', title: 'Brazil' },
      { kind: 'item', id: 'casablanca', title: 'Casablanca' },
    ],
    years: [
      flavour === 'right'
        ? { kind: 'item', id: 'years-alien', title: 'Alien', refID: 'alien' }
        : { kind: 'item', id: 'years-alien', title: 'Alien' },
    ],
  };
}

function didl(parent: string, entries: Entry[], base: string): string {
  const body = entries
    .map((entry) =>
      entry.kind === 'container'
        ? `<container id="${entry.id}" parentID="${parent}" restricted="1" childCount="${tree('right')[entry.id]?.length ?? 0}"><dc:title>${entry.title}</dc:title><upnp:class>object.container.storageFolder</upnp:class></container>`
        : `<item id="${entry.id}" parentID="${parent}" restricted="1"${entry.refID ? ` refID="${entry.refID}"` : ''}><dc:title>${entry.title}</dc:title><upnp:class>object.item.videoItem.movie</upnp:class><res protocolInfo="http-get:*:video/mp4:*">${base}/media/${entry.refID ?? entry.id}.mp4</res></item>`,
    )
    .join('');
  return `<DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/">${body}</DIDL-Lite>`;
}

const SCPD = `<?xml version="1.0"?><scpd xmlns="urn:schemas-upnp-org:service-1-0"><specVersion><major>1</major><minor>0</minor></specVersion><actionList><action><name>Browse</name><argumentList>${[
  ['ObjectID', 'in'],
  ['BrowseFlag', 'in'],
  ['Filter', 'in'],
  ['StartingIndex', 'in'],
  ['RequestedCount', 'in'],
  ['SortCriteria', 'in'],
  ['Result', 'out'],
  ['NumberReturned', 'out'],
  ['TotalMatches', 'out'],
  ['UpdateID', 'out'],
]
  .map(([name, direction]) => `<argument><name>${name}</name><direction>${direction}</direction></argument>`)
  .join('')}</argumentList></action></actionList></scpd>`;

const FAULT = (code: number, text: string) =>
  `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>${code}</errorCode><errorDescription>${text}</errorDescription></UPnPError></detail></s:Fault></s:Body></s:Envelope>`;

/** A ContentDirectory that answers Browse (and nothing else) the way `flavour` says. */
function contentDirectory(flavour: Flavour): Server {
  return createServer((req, res) => {
    const base = `http://${req.headers.host ?? ''}`;
    if (req.url === '/description.xml') {
      res.setHeader('content-type', 'text/xml');
      res.end(
        `<?xml version="1.0"?><root xmlns="urn:schemas-upnp-org:device-1-0"><device><deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType><friendlyName>fake</friendlyName><UDN>uuid:00000000-0000-0000-0000-000000000001</UDN><serviceList><service><serviceType>${CONTENT_DIRECTORY}</serviceType><serviceId>urn:upnp-org:serviceId:ContentDirectory</serviceId><SCPDURL>/cds.xml</SCPDURL><controlURL>/control</controlURL><eventSubURL>/events</eventSubURL></service></serviceList></device></root>`,
      );
      return;
    }
    if (req.url === '/cds.xml') {
      res.setHeader('content-type', 'text/xml');
      res.end(SCPD);
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      res.setHeader('content-type', 'text/xml; charset="utf-8"');
      const arg = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
      const objectId = arg('ObjectID');
      if (objectId === undefined || !/<\/s:Envelope>\s*$/.test(body)) {
        res.statusCode = 500;
        res.end(FAULT(402, 'Invalid Args'));
        return;
      }
      const entries = tree(flavour)[objectId] ?? (flavour === 'gerbera' ? tree(flavour)['0'] : undefined);
      if (entries === undefined) {
        res.statusCode = 500;
        res.end(FAULT(701, 'No such object'));
        return;
      }
      const start = Number(arg('StartingIndex') ?? 0);
      const count = Number(arg('RequestedCount') ?? 0);
      const page = entries.slice(start, count === 0 ? undefined : start + count);
      res.end(
        `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><u:BrowseResponse xmlns:u="${CONTENT_DIRECTORY}"><Result>${escape(didl(objectId, page, base))}</Result><NumberReturned>${page.length}</NumberReturned><TotalMatches>${entries.length}</TotalMatches><UpdateID>1</UpdateID></u:BrowseResponse></s:Body></s:Envelope>`,
      );
    });
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The facts of the checks that need no SSDP and no media, in the shape the asserts read. */
async function judge(base: string): Promise<JudgeFacts> {
  const client = new DeviceClient(`${base}/description.xml`);
  const walk = await walkTree(client, 2);
  return {
    walk: { ...walk, ms: 0 },
    paging: { ...(await checkPaging(client, walk)), ms: 0 },
    unknownObject: { ...(await checkUnknownObject(client)), ms: 0 },
    malformed: { ...(await checkMalformedSoap(`${base}/control`)), ms: 0 },
  } as unknown as JudgeFacts;
}

const FILMS = { Alien: 1, Brazil: 1, Casablanca: 1 };

describe('the DLNA judge rejects what breaks the rules', () => {
  const servers: Server[] = [];
  let right: JudgeFacts;
  let gerbera: JudgeFacts;

  before(async () => {
    const [a, b] = [contentDirectory('right'), contentDirectory('gerbera')];
    servers.push(a, b);
    right = await judge(await listen(a));
    gerbera = await judge(await listen(b));
  });
  after(() => {
    for (const server of servers) server.close();
  });

  const expects: TargetExpectations = {
    films: FILMS,
    titleWord: 'Alien',
    location: '',
    peerHost: '',
    unicastSearch: false,
    conversion: false,
    directSeconds: 0,
    vlcSeconds: 0,
  };

  it('accepts a tree whose second listing of a film carries refID, and 701 for an unknown id', () => {
    assertWalk(right, expects);
    assertPaging(right);
    assertFaults(right);
  });

  it('rejects one film listed twice under distinct ids without refID', () => {
    assert.throws(() => assertWalk(gerbera, expects), /Alien/);
  });

  it('rejects an unknown ObjectID answered 200 with the root children', () => {
    // Answered (NumberReturned 2, the root's children) where a fault was due.
    assert.throws(() => assertFaults(gerbera), /"answered":"2"/);
  });
});
