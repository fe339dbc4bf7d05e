import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../../src/adapters/clock.ts';
import { sourceProtocolInfo } from '../../../src/domain/dlna/connection-manager.ts';
import { GENA_TIMEOUT_SECONDS, parseCallbacks, readGenaRequest } from '../../../src/domain/dlna/gena.ts';
import { readXml } from '../../../src/domain/dlna/soap.ts';
import { ConnectionManagerService } from '../../../src/services/dlna/connection-manager.service.ts';
import { DlnaControlService } from '../../../src/services/dlna/dlna-control.service.ts';
import { DlnaIdentity } from '../../../src/services/dlna/dlna-identity.ts';
import type { DlnaClient, DlnaServiceHandler } from '../../../src/services/dlna/dlna-ports.ts';
import { EventSubscriptions, MAX_SUBSCRIPTIONS } from '../../../src/services/dlna/event-subscriptions.ts';
import { MediaReceiverRegistrarService } from '../../../src/services/dlna/media-receiver-registrar.service.ts';
import { MAX_RECENT_TVS, RecentTvs } from '../../../src/services/dlna/recent-tvs.ts';
import type { UserRow } from '../../../src/repositories/user.repository.ts';

const CDS = 'urn:schemas-upnp-org:service:ContentDirectory:1';
const CM = 'urn:schemas-upnp-org:service:ConnectionManager:1';
const TV: DlnaClient = {
  address: '192.168.1.20',
  userAgent: 'SEC_HHP_[TV] Samsung/1.0 DLNADOC/1.50',
  avClientInfo: null,
  baseUrl: 'http://192.168.1.2:8787',
};

function envelope(serviceType: string, action: string, args: Record<string, string> = {}): string {
  const inner = Object.entries(args)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><u:${action} xmlns:u="${serviceType}">${inner}</u:${action}></s:Body></s:Envelope>`;
}

class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-26T05:00:00Z')) {}
  now(): Date {
    return new Date(this.ms);
  }
}

/** The outputs of a SOAP response, or the fault's code. */
function outputsOf(xml: string): Record<string, string> {
  const read = readXml(xml);
  assert.ok(read.ok, xml);
  const body = read.root.children[0]?.children[0];
  assert.ok(body);
  if (body.local === 'Fault') {
    const code = body.children
      .find((c) => c.local === 'detail')
      ?.children[0]?.children.find((c) => c.local === 'errorCode')?.text;
    return { fault: code ?? '?' };
  }
  return Object.fromEntries(body.children.map((c) => [c.local, c.text]));
}

describe('DlnaControlService: dispatch to the service handlers', () => {
  const calls: [string, Record<string, string>, DlnaClient][] = [];
  const handler: DlnaServiceHandler = {
    handle: (action, args, client) => {
      calls.push([action, { ...args }, client]);
      if (args.ObjectID === 'boom') throw new Error('handler bug');
      if (args.ObjectID === 'nothing') return Promise.resolve({ ok: false, code: 701 });
      return Promise.resolve({ ok: true, values: [['Id', '7']] });
    },
  };
  const recent = new RecentTvs(new TestClock());
  const control = new DlnaControlService(
    {
      ContentDirectory: handler,
      ConnectionManager: new ConnectionManagerService(),
      X_MS_MediaReceiverRegistrar: new MediaReceiverRegistrarService(),
    },
    recent,
  );
  const browseArgs = {
    ObjectID: '0',
    BrowseFlag: 'BrowseDirectChildren',
    Filter: '*',
    StartingIndex: '0',
    RequestedCount: '10',
    SortCriteria: '',
  };

  it('a good action reaches the handler with its arguments and the TV; its outputs are the response', async () => {
    const answer = await control.control(
      'ContentDirectory',
      envelope(CDS, 'Browse', browseArgs),
      `"${CDS}#Browse"`,
      TV,
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(outputsOf(answer.body), { Id: '7' });
    assert.deepEqual(calls.at(-1), ['Browse', browseArgs, TV]);
    assert.equal(recent.list()[0]?.lastAction, 'ContentDirectory#Browse');
  });
  const faults: [string, string, string, string | undefined, number][] = [
    ['unknown action', 'ContentDirectory', envelope(CDS, 'DestroyObject', { ObjectID: '0' }), undefined, 401],
    ['action of another service', 'ConnectionManager', envelope(CDS, 'Browse', browseArgs), undefined, 401],
    [
      'service type of another service',
      'ContentDirectory',
      envelope(CM, 'Browse', browseArgs),
      undefined,
      401,
    ],
    ['missing argument', 'ContentDirectory', envelope(CDS, 'Browse', { ObjectID: '0' }), undefined, 402],
    ['malformed XML', 'ContentDirectory', '<s:Envelope', undefined, 401],
    [
      'DOCTYPE',
      'ContentDirectory',
      `<!DOCTYPE x [<!ENTITY e "e">]>${envelope(CDS, 'GetSystemUpdateID')}`,
      undefined,
      401,
    ],
    [
      'header names another action',
      'ContentDirectory',
      envelope(CDS, 'GetSystemUpdateID'),
      `"${CDS}#Browse"`,
      401,
    ],
    [
      'handler fault',
      'ContentDirectory',
      envelope(CDS, 'Browse', { ...browseArgs, ObjectID: 'nothing' }),
      undefined,
      701,
    ],
  ];
  for (const [name, service, body, header, code] of faults) {
    it(`${name} → fault ${code}, HTTP 500`, async () => {
      const before = calls.length;
      const answer = await control.control(service as 'ContentDirectory', body, header, TV);
      assert.equal(answer.status, 500);
      assert.deepEqual(outputsOf(answer.body), { fault: String(code) });
      if (code !== 701) assert.equal(calls.length, before, 'the handler was not asked');
    });
  }
  it('a handler that throws → 501, the error handed back for the log, no stack trace in the answer', async () => {
    const answer = await control.control(
      'ContentDirectory',
      envelope(CDS, 'Browse', { ...browseArgs, ObjectID: 'boom' }),
      undefined,
      TV,
    );
    assert.equal(answer.status, 500);
    assert.deepEqual(outputsOf(answer.body), { fault: '501' });
    assert.ok(answer.error instanceof Error);
    assert.doesNotMatch(answer.body, /handler bug|at /);
  });
});

describe('ConnectionManager and the registrar', () => {
  const cm = new ConnectionManagerService();
  it('GetProtocolInfo: Source is what reelshelf sends, Sink is empty', async () => {
    const outcome = await cm.handle('GetProtocolInfo', {});
    assert.ok(outcome.ok);
    const values = Object.fromEntries(outcome.values);
    assert.equal(values.Sink, '');
    assert.equal(values.Source, sourceProtocolInfo());
    const entries = (values.Source ?? '').split(',');
    for (const entry of entries) assert.match(entry, /^http-get:\*:[a-z]+\/[\w.+-]+:[^:,]+$/, entry);
    for (const expected of [
      'http-get:*:video/mp4:*',
      'http-get:*:video/x-matroska:*',
      'http-get:*:video/mpeg:DLNA.ORG_PN=AVC_TS_HD_24_AC3_ISO',
      'http-get:*:video/mp4:DLNA.ORG_PN=AVC_MP4_MP_HD_720p_AAC',
      'http-get:*:text/srt:*',
    ])
      assert.ok(entries.includes(expected), expected);
    assert.ok(entries.some((e) => e.startsWith('http-get:*:image/jpeg:DLNA.ORG_PN=JPEG_TN;')));
    assert.equal(new Set(entries).size, entries.length, 'no entry twice');
  });
  it('connection 0 only', async () => {
    assert.deepEqual(await cm.handle('GetCurrentConnectionIDs', {}), {
      ok: true,
      values: [['ConnectionIDs', '0']],
    });
    const zero = await cm.handle('GetCurrentConnectionInfo', { ConnectionID: '0' });
    assert.ok(zero.ok);
    assert.deepEqual(Object.fromEntries(zero.values), {
      RcsID: '-1',
      AVTransportID: '-1',
      ProtocolInfo: '',
      PeerConnectionManager: '',
      PeerConnectionID: '-1',
      Direction: 'Output',
      Status: 'OK',
    });
    assert.deepEqual(await cm.handle('GetCurrentConnectionInfo', { ConnectionID: '3' }), {
      ok: false,
      code: 706,
    });
    const notNumber = await cm.handle('GetCurrentConnectionInfo', { ConnectionID: 'x' });
    assert.equal(notNumber.ok ? 0 : notNumber.code, 402);
    assert.deepEqual(await cm.handle('Browse', {}), { ok: false, code: 401 });
  });
  it('the registrar authorises and validates every LAN device', async () => {
    const registrar = new MediaReceiverRegistrarService();
    assert.deepEqual(await registrar.handle('IsAuthorized'), { ok: true, values: [['Result', '1']] });
    assert.deepEqual(await registrar.handle('IsValidated'), { ok: true, values: [['Result', '1']] });
    assert.deepEqual(await registrar.handle('RegisterDevice'), {
      ok: true,
      values: [['RegistrationRespMsg', '']],
    });
    assert.deepEqual(await registrar.handle('Other'), { ok: false, code: 401 });
  });
});

describe('readGenaRequest (UDA 1.0 §4.1)', () => {
  const cases: [string, 'SUBSCRIBE' | 'UNSUBSCRIBE', Parameters<typeof readGenaRequest>[1], unknown][] = [
    [
      'subscribe',
      'SUBSCRIBE',
      { nt: 'upnp:event', callback: '<http://10.0.0.5:1234/ev>' },
      { kind: 'subscribe', callbacks: ['http://10.0.0.5:1234/ev'] },
    ],
    [
      'two callbacks',
      'SUBSCRIBE',
      { nt: 'upnp:event', callback: '<http://a/x><http://b/y>' },
      { kind: 'subscribe', callbacks: ['http://a/x', 'http://b/y'] },
    ],
    ['renew', 'SUBSCRIBE', { sid: 'uuid:1' }, { kind: 'renew', sid: 'uuid:1' }],
    ['unsubscribe', 'UNSUBSCRIBE', { sid: ' uuid:1 ' }, { kind: 'unsubscribe', sid: 'uuid:1' }],
    ['SID and NT', 'SUBSCRIBE', { sid: 'uuid:1', nt: 'upnp:event' }, { kind: 'invalid', status: 400 }],
    [
      'SID and CALLBACK on unsubscribe',
      'UNSUBSCRIBE',
      { sid: 'uuid:1', callback: '<http://a/>' },
      { kind: 'invalid', status: 400 },
    ],
    ['no NT', 'SUBSCRIBE', { callback: '<http://a/>' }, { kind: 'invalid', status: 412 }],
    ['wrong NT', 'SUBSCRIBE', { nt: 'ssdp:all', callback: '<http://a/>' }, { kind: 'invalid', status: 412 }],
    ['no CALLBACK', 'SUBSCRIBE', { nt: 'upnp:event' }, { kind: 'invalid', status: 412 }],
    [
      'CALLBACK not http',
      'SUBSCRIBE',
      { nt: 'upnp:event', callback: '<file:///etc/passwd>' },
      { kind: 'invalid', status: 412 },
    ],
    [
      'CALLBACK without brackets',
      'SUBSCRIBE',
      { nt: 'upnp:event', callback: 'http://a/' },
      { kind: 'invalid', status: 412 },
    ],
    ['unsubscribe without SID', 'UNSUBSCRIBE', {}, { kind: 'invalid', status: 412 }],
  ];
  for (const [name, method, headers, expected] of cases) {
    it(name, () => {
      const got = readGenaRequest(method, headers);
      const comparable = got.kind === 'invalid' ? { kind: got.kind, status: got.status } : got;
      assert.deepEqual(comparable, expected);
    });
  }
  it('parseCallbacks refuses junk around the URLs', () => {
    assert.equal(parseCallbacks('x<http://a/>'), null);
    assert.equal(parseCallbacks('<not a url>'), null);
  });
});

describe('EventSubscriptions', () => {
  it('subscribe, renew, unsubscribe; a SID of another service or expired is unknown', () => {
    const clock = new TestClock();
    let n = 0;
    const subs = new EventSubscriptions(clock, () => `uuid:sid-${++n}`);
    const first = subs.subscribe('ContentDirectory', ['http://10.0.0.5/ev']);
    assert.deepEqual(first, { sid: 'uuid:sid-1', timeoutSeconds: GENA_TIMEOUT_SECONDS });
    assert.equal(subs.renew('ConnectionManager', first.sid), null);
    clock.ms += 1799_000;
    assert.deepEqual(subs.renew('ContentDirectory', first.sid), first, 'renewed before it ran out');
    clock.ms += 1799_000;
    assert.equal(subs.unsubscribe('ContentDirectory', first.sid), true, 'the renewal moved the expiry on');
    assert.equal(subs.unsubscribe('ContentDirectory', first.sid), false);
    const second = subs.subscribe('ContentDirectory', ['http://10.0.0.5/ev']);
    clock.ms += 1800_000;
    assert.equal(subs.renew('ContentDirectory', second.sid), null, 'expired');
    assert.equal(subs.count(), 0);
  });
  it('keeps at most MAX_SUBSCRIPTIONS, the oldest going first', () => {
    let n = 0;
    const subs = new EventSubscriptions(new TestClock(), () => `uuid:${++n}`);
    for (let i = 0; i < MAX_SUBSCRIPTIONS + 5; i += 1) subs.subscribe('ContentDirectory', ['http://a/']);
    assert.equal(subs.count(), MAX_SUBSCRIPTIONS);
    assert.equal(subs.unsubscribe('ContentDirectory', 'uuid:1'), false);
    assert.equal(subs.unsubscribe('ContentDirectory', `uuid:${MAX_SUBSCRIPTIONS + 5}`), true);
  });
});

describe('RecentTvs', () => {
  it('one entry per address and User-Agent, the last seen first, first seen kept', () => {
    const clock = new TestClock();
    const tvs = new RecentTvs(clock);
    tvs.seen(TV, 'ContentDirectory#Browse');
    clock.ms += 1000;
    tvs.seen({ ...TV, address: '192.168.1.21' }, 'ConnectionManager#GetProtocolInfo');
    clock.ms += 1000;
    tvs.seen(TV, 'ContentDirectory#Search');
    const list = tvs.list();
    assert.equal(list.length, 2);
    assert.equal(list[0]?.address, TV.address);
    assert.equal(list[0]?.lastAction, 'ContentDirectory#Search');
    assert.equal(list[0]?.firstSeen.toISOString(), '2026-11-26T05:00:00.000Z');
    assert.equal(list[0]?.lastSeen.toISOString(), '2026-11-26T05:00:02.000Z');
  });
  it(`keeps at most ${MAX_RECENT_TVS}: the one seen longest ago goes`, () => {
    const tvs = new RecentTvs(new TestClock());
    for (let i = 0; i < 100; i += 1) tvs.seen({ ...TV, userAgent: `TV ${i}` }, 'x');
    const list = tvs.list();
    assert.equal(list.length, MAX_RECENT_TVS);
    assert.equal(list[0]?.userAgent, 'TV 99');
    assert.equal(list.at(-1)?.userAgent, `TV ${100 - MAX_RECENT_TVS}`);
    tvs.seen({ ...TV, userAgent: 'x'.repeat(10_000) }, 'y');
    assert.equal(tvs.list()[0]?.userAgent.length, 256, 'long headers are cut');
  });
});

describe('DlnaIdentity', () => {
  const row = (over: Partial<UserRow>): UserRow =>
    ({
      id: 4,
      name: 'Kids Room',
      role: 'child',
      max_certification: 'PG',
      allow_unrated: 0,
      ...over,
    }) as UserRow;
  it('off: no viewer', async () => {
    const identity = new DlnaIdentity({
      person: null,
      friendlyName: 'x',
      udn: 'uuid:x',
      people: { personNamed: () => Promise.reject(new Error('not asked')) },
    });
    assert.equal(identity.enabled, false);
    assert.deepEqual((await identity.viewer()).viewer, null);
  });
  it('a person not created yet: no viewer and a hint; created later: their view, with their limit', async () => {
    let people: UserRow[] = [];
    const identity = new DlnaIdentity({
      person: 'kids room',
      friendlyName: 'x',
      udn: 'uuid:x',
      people: {
        personNamed: (name) =>
          Promise.resolve(people.find((p) => p.name.toLowerCase() === name.toLowerCase())),
      },
    });
    const missing = await identity.viewer();
    assert.equal(missing.viewer, null);
    assert.ok(
      missing.viewer === null && missing.reason === 'person_not_found' && missing.hint.includes('kids room'),
    );
    people = [row({})];
    const found = await identity.viewer();
    assert.ok(found.viewer !== null);
    assert.equal(found.viewer.userId, 4);
    assert.deepEqual(found.viewer.limit, { maxCertification: 'PG', allowUnrated: false });
    assert.deepEqual(found.person, { id: 4, name: 'Kids Room' });
  });
});
