// The DLNA MediaServer's skeleton on the main port (issue 24, dlna-server part): a real reelshelf on
// loopback (a LAN address) answers the description, SCPDs, icons, SOAP control and GENA; off, /dlna
// does not exist; a person named in REELSHELF_DLNA who does not exist yet stops nothing and is used
// once created, without a restart; a non-LAN address (Fastify's inject from 8.8.8.8) gets 403; the
// admin API and page show it all, with the TVs that asked.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import sharp from 'sharp';
import { readXml } from '../../src/domain/dlna/soap.ts';
import { addPeople } from '../helpers/household.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const CDS = 'urn:schemas-upnp-org:service:ContentDirectory:1';
const CM = 'urn:schemas-upnp-org:service:ConnectionManager:1';
const REGISTRAR = 'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1';
const SAMSUNG = 'SEC_HHP_[TV] Samsung Q6 Series (55)/1.0 DLNADOC/1.50';
const LIVING_ROOM = {
  name: 'Living Room',
  password: 'living room password',
  role: 'child',
  max_certification: 'PG',
  allow_unrated: false,
} as const;

function envelope(serviceType: string, action: string, args: Record<string, string> = {}): string {
  const inner = Object.entries(args)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" ' +
    's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>' +
    `<u:${action} xmlns:u="${serviceType}">${inner}</u:${action}></s:Body></s:Envelope>`
  );
}

/** A control POST as a TV sends it. */
function control(
  server: TestServer,
  service: string,
  serviceType: string,
  action: string,
  args: Record<string, string> = {},
  init: { body?: string; contentType?: string } = {},
): Promise<Response> {
  return fetch(`${server.url}/dlna/control/${service}`, {
    method: 'POST',
    headers: {
      ...(init.contentType === '' ? {} : { 'content-type': init.contentType ?? 'text/xml; charset="utf-8"' }),
      soapaction: `"${serviceType}#${action}"`,
      'user-agent': SAMSUNG,
    },
    body: init.body ?? envelope(serviceType, action, args),
  });
}

/** A response's outputs, or `{fault: code}`; asserts it is XML and not JSON or a stack trace. */
async function soapOf(res: Response): Promise<Record<string, string>> {
  assert.equal(res.headers.get('content-type'), 'text/xml; charset="utf-8"');
  const text = await res.text();
  assert.doesNotMatch(text, /"error"|\bat [\w.]+ \(/, 'no JSON, no stack trace');
  const read = readXml(text);
  assert.ok(read.ok, text);
  const body = read.root.children[0]?.children[0];
  assert.ok(body);
  if (body.local === 'Fault') {
    assert.equal(res.status, 500, 'faults travel with HTTP 500');
    const error = body.children.find((c) => c.local === 'detail')?.children[0];
    return { fault: error?.children.find((c) => c.local === 'errorCode')?.text ?? '?' };
  }
  assert.equal(res.status, 200);
  return Object.fromEntries(body.children.map((c) => [c.local, c.text]));
}

/** A GENA request (fetch refuses no method, but node:http shows the headers as sent). */
function gena(
  server: TestServer,
  method: 'SUBSCRIBE' | 'UNSUBSCRIBE',
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('DLNA off (the default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('nothing under /dlna exists: the same 404 as any unknown route', async () => {
    for (const path of ['/dlna/description.xml', '/dlna/ContentDirectory.xml', '/dlna/icon-48.png']) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error, 'not_found');
    }
    const posted = await control(server, 'ConnectionManager', CM, 'GetProtocolInfo');
    assert.equal(posted.status, 404);
    const subscribe = await gena(server, 'SUBSCRIBE', '/dlna/events/ContentDirectory', {
      nt: 'upnp:event',
      callback: '<http://127.0.0.1:9/>',
    });
    assert.equal(subscribe.status, 404);
  });

  it('GET /api/dlna says it is off', async () => {
    const status = await (await server.api('/api/dlna')).json();
    assert.equal(status.enabled, false);
    assert.equal(status.person, null);
    assert.equal(status.person_found, false);
    assert.deepEqual(status.recent_tvs, []);
  });
});

describe('DLNA on, for a person created after the start', () => {
  let server: TestServer;
  let dataDir: string;
  let udn = '';
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-dlna-'));
    server = await startTestServer({
      REELSHELF_DLNA: 'living room',
      REELSHELF_DLNA_NAME: 'Films & more',
      REELSHELF_DATA_DIR: dataDir,
    });
  });
  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts although the person does not exist; the API and the page say so, with a hint', async () => {
    const status = await (await server.api('/api/dlna')).json();
    assert.equal(status.enabled, true);
    assert.equal(status.person, 'living room');
    assert.equal(status.person_found, false);
    assert.match(status.hint, /No person is named “living room”/);
    assert.equal(
      (await server.server.services.dlna.identity.viewer()).viewer,
      null,
      'no viewer: nothing listed',
    );
    const page = await (await server.api('/people', { headers: { accept: 'text/html' } })).text();
    assert.match(page, /<h2[^>]*>DLNA/);
    assert.match(page, /No person is named “living room”/);
  });

  it('the description: MediaServer:1 with the configured name and a UDN kept in the data dir', async () => {
    const res = await fetch(`${server.url}/dlna/description.xml`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/xml; charset="utf-8"');
    const xml = await res.text();
    assert.equal(XMLValidator.validate(xml), true);
    const device = (
      new XMLParser({ parseTagValue: false }).parse(xml) as { root: { device: Record<string, unknown> } }
    ).root.device;
    assert.equal(device.deviceType, 'urn:schemas-upnp-org:device:MediaServer:1');
    assert.equal(device.friendlyName, 'Films & more');
    udn = String(device.UDN);
    assert.match(udn, /^uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(readFileSync(join(dataDir, 'dlna-udn'), 'utf8').trim(), udn);
    const head = await fetch(`${server.url}/dlna/description.xml`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  it('the SCPDs and the icons the description names', async () => {
    for (const service of ['ContentDirectory', 'ConnectionManager', 'X_MS_MediaReceiverRegistrar']) {
      const res = await fetch(`${server.url}/dlna/${service}.xml`);
      assert.equal(res.status, 200, service);
      assert.equal(res.headers.get('content-type'), 'text/xml; charset="utf-8"');
      const xml = await res.text();
      assert.equal(XMLValidator.validate(xml), true);
      assert.match(
        xml,
        /^<\?xml version="1.0" encoding="utf-8"\?><scpd xmlns="urn:schemas-upnp-org:service-1-0">/,
      );
    }
    for (const [path, format, size, type] of [
      ['/dlna/icon-48.png', 'png', 48, 'image/png'],
      ['/dlna/icon-48.jpg', 'jpeg', 48, 'image/jpeg'],
      ['/dlna/icon-120.png', 'png', 120, 'image/png'],
      ['/dlna/icon-120.jpg', 'jpeg', 120, 'image/jpeg'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), type);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.channels], [format, size, size, 3], path);
    }
  });

  it('ConnectionManager over HTTP: GetProtocolInfo, GetCurrentConnectionIDs, GetCurrentConnectionInfo', async () => {
    const info = await soapOf(await control(server, 'ConnectionManager', CM, 'GetProtocolInfo'));
    assert.equal(info.Sink, '');
    assert.ok(info.Source?.split(',').includes('http-get:*:video/mp4:*'));
    assert.deepEqual(
      await soapOf(await control(server, 'ConnectionManager', CM, 'GetCurrentConnectionIDs')),
      {
        ConnectionIDs: '0',
      },
    );
    const zero = await soapOf(
      await control(server, 'ConnectionManager', CM, 'GetCurrentConnectionInfo', { ConnectionID: '0' }),
    );
    assert.equal(zero.Status, 'OK');
    assert.deepEqual(
      await soapOf(
        await control(server, 'ConnectionManager', CM, 'GetCurrentConnectionInfo', { ConnectionID: '9' }),
      ),
      { fault: '706' },
    );
  });

  it('the registrar: authorised, validated, registered', async () => {
    const args = { DeviceID: '' };
    assert.deepEqual(
      await soapOf(await control(server, 'X_MS_MediaReceiverRegistrar', REGISTRAR, 'IsAuthorized', args)),
      {
        Result: '1',
      },
    );
    assert.deepEqual(
      await soapOf(await control(server, 'X_MS_MediaReceiverRegistrar', REGISTRAR, 'IsValidated', args)),
      {
        Result: '1',
      },
    );
    assert.deepEqual(
      await soapOf(
        await control(server, 'X_MS_MediaReceiverRegistrar', REGISTRAR, 'RegisterDevice', {
          RegistrationReqMsg: 'AAAA',
        }),
      ),
      { RegistrationRespMsg: '' },
    );
  });

  it('ContentDirectory is the content directory over the DLNA person (services/dlna/dlna-wiring.ts)', async () => {
    const id = await soapOf(await control(server, 'ContentDirectory', CDS, 'GetSystemUpdateID'));
    assert.match(id.Id ?? '', /^\d+$/);
    const root = await soapOf(
      await control(server, 'ContentDirectory', CDS, 'Browse', {
        ObjectID: '0',
        BrowseFlag: 'BrowseMetadata',
        Filter: '*',
        StartingIndex: '0',
        RequestedCount: '0',
        SortCriteria: '',
      }),
    );
    assert.equal(root.NumberReturned, '1');
    assert.match(root.Result ?? '', /<container id="0" parentID="-1"/);
  });

  it('bad control requests are SOAP faults: unknown action, missing argument, malformed, DOCTYPE, oversize, not XML', async () => {
    const cases: [string, Promise<Response>, string][] = [
      ['unknown action', control(server, 'ConnectionManager', CM, 'PrepareForConnection'), '401'],
      ['missing argument', control(server, 'ConnectionManager', CM, 'GetCurrentConnectionInfo'), '402'],
      ['another service’s action', control(server, 'ConnectionManager', CDS, 'Browse'), '401'],
      [
        'malformed XML',
        control(server, 'ConnectionManager', CM, 'GetProtocolInfo', {}, { body: '<s:Envelope><oops' }),
        '401',
      ],
      ['empty body', control(server, 'ConnectionManager', CM, 'GetProtocolInfo', {}, { body: '' }), '401'],
      [
        'DOCTYPE with entities',
        control(
          server,
          'ConnectionManager',
          CM,
          'GetProtocolInfo',
          {},
          {
            body: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${envelope(CM, 'GetProtocolInfo')}`,
          },
        ),
        '401',
      ],
      [
        'over 64 KiB',
        control(server, 'ConnectionManager', CM, 'GetCurrentConnectionInfo', {
          ConnectionID: '0'.repeat(70_000),
        }),
        '401',
      ],
      [
        'JSON',
        control(
          server,
          'ConnectionManager',
          CM,
          'GetProtocolInfo',
          {},
          { body: '{}', contentType: 'application/json' },
        ),
        '401',
      ],
      [
        'text/plain (what fetch puts on a string): the envelope is judged',
        control(server, 'ConnectionManager', CM, 'GetCurrentConnectionIDs', {}, { contentType: '' }),
        'ok',
      ],
      [
        'application/xml is read too',
        control(
          server,
          'ConnectionManager',
          CM,
          'GetCurrentConnectionIDs',
          {},
          { contentType: 'application/xml' },
        ),
        'ok',
      ],
    ];
    for (const [name, pending, code] of cases) {
      const answer = await soapOf(await pending);
      if (code === 'ok') assert.equal(answer.ConnectionIDs, '0', name);
      else assert.deepEqual(answer, { fault: code }, name);
    }
    const unknown = await control(
      server,
      'AVTransport',
      'urn:schemas-upnp-org:service:AVTransport:1',
      'Play',
    );
    assert.equal(unknown.status, 404, 'a service this server does not have');
    // The server is still well after all that.
    assert.equal((await fetch(`${server.url}/dlna/description.xml`)).status, 200);
  });

  it('GENA: SUBSCRIBE gives a SID and 1800 s, a renewal keeps it, UNSUBSCRIBE ends it, an unknown SID is 412', async () => {
    const path = '/dlna/events/ContentDirectory';
    const first = await gena(server, 'SUBSCRIBE', path, {
      nt: 'upnp:event',
      callback: '<http://127.0.0.1:9/ev>',
    });
    assert.equal(first.status, 200);
    const sid = String(first.headers.sid);
    assert.match(sid, /^uuid:[0-9a-f-]{36}$/);
    assert.equal(first.headers.timeout, 'Second-1800');
    const renewed = await gena(server, 'SUBSCRIBE', path, { sid, timeout: 'Second-1800' });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.headers.sid, sid);
    assert.equal((await gena(server, 'SUBSCRIBE', '/dlna/events/ConnectionManager', { sid })).status, 412);
    assert.equal((await gena(server, 'UNSUBSCRIBE', path, { sid })).status, 200);
    assert.equal((await gena(server, 'UNSUBSCRIBE', path, { sid })).status, 412);
    assert.equal((await gena(server, 'SUBSCRIBE', path, { sid, nt: 'upnp:event' })).status, 400);
    assert.equal((await gena(server, 'SUBSCRIBE', path, { nt: 'upnp:event' })).status, 412);
    assert.equal((await gena(server, 'SUBSCRIBE', '/dlna/events/Nothing', { nt: 'upnp:event' })).status, 404);
  });

  it('the person created now is used from the next request on, no restart', async () => {
    await addPeople(server, [LIVING_ROOM]);
    const resolved = await server.server.services.dlna.identity.viewer();
    assert.ok(resolved.viewer !== null);
    assert.deepEqual(resolved.person, { id: resolved.viewer.userId, name: 'Living Room' });
    assert.deepEqual(resolved.viewer.limit, { maxCertification: 'PG', allowUnrated: false });
    const status = await (await server.api('/api/dlna')).json();
    assert.equal(status.person_found, true);
    assert.equal(status.hint, null);
  });

  it('the TVs that asked: API (admins only) and page', async () => {
    const unauthenticated = await server.api('/api/dlna', { auth: false });
    assert.equal(unauthenticated.status, 401);
    const status = await (await server.api('/api/dlna')).json();
    assert.equal(status.udn, udn);
    assert.equal(status.friendly_name, 'Films & more');
    assert.equal(status.recent_tvs.length, 1, 'one TV: one address and User-Agent');
    const [tv] = status.recent_tvs;
    assert.equal(tv.user_agent, SAMSUNG);
    assert.equal(tv.address, '127.0.0.1');
    assert.match(tv.last_action, /^ConnectionManager#/);
    assert.ok(tv.first_seen <= tv.last_seen);
    const page = await (await server.api('/people', { headers: { accept: 'text/html' } })).text();
    assert.ok(page.includes('SEC_HHP_[TV] Samsung Q6 Series (55)/1.0 DLNADOC/1.50'));
    assert.match(page, /DLNA is on for <strong>living room<\/strong>/);
  });

  it('answers only the LAN: an internet address gets 403 on every /dlna route', async () => {
    const app = server.server.app;
    for (const [method, url] of [
      ['GET', '/dlna/description.xml'],
      ['GET', '/dlna/icon-48.png'],
      ['POST', '/dlna/control/ConnectionManager'],
      ['SUBSCRIBE', '/dlna/events/ContentDirectory'],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        remoteAddress: '8.8.8.8',
        headers: { 'content-type': 'text/xml', nt: 'upnp:event', callback: '<http://8.8.8.8/>' },
        ...(method === 'POST' ? { payload: envelope(CM, 'GetProtocolInfo') } : {}),
      });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.doesNotMatch(res.body, /MediaServer|urn:schemas/);
    }
    const lan = await app.inject({
      method: 'GET',
      url: '/dlna/description.xml',
      remoteAddress: '192.168.1.20',
    });
    assert.equal(lan.statusCode, 200);
    // A reverse proxy on the box: every internet client would come from loopback; refused.
    for (const headers of [{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }]) {
      const proxied = await app.inject({
        method: 'GET',
        url: '/dlna/description.xml',
        remoteAddress: '127.0.0.1',
        headers,
      });
      assert.equal(proxied.statusCode, 403, JSON.stringify(headers));
      assert.equal((JSON.parse(proxied.body) as { error: string }).error, 'forbidden');
    }
  });

  it('the UDN is the same after a restart', async () => {
    await server.close();
    server = await startTestServer({ REELSHELF_DLNA: 'Living Room', REELSHELF_DATA_DIR: dataDir });
    const status = await (await server.api('/api/dlna')).json();
    assert.equal(status.udn, udn);
    assert.equal(status.person_found, true);
    assert.deepEqual(status.recent_tvs, [], 'recent TVs are kept in memory only');
  });

  it('a person removed stops being the DLNA view at once', async () => {
    const resolved = await server.server.services.dlna.identity.viewer();
    assert.ok(resolved.viewer !== null, 'known (and kept in the people cache)');
    const removed = await server.api(`/api/users/${resolved.viewer.userId}`, { method: 'DELETE' });
    assert.equal(removed.status, 204);
    assert.equal((await server.server.services.dlna.identity.viewer()).viewer, null);
    assert.equal((await (await server.api('/api/dlna')).json()).person_found, false);
  });
});
