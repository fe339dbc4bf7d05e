import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseSoapActionHeader,
  readSoapRequest,
  renderSoapFault,
  renderSoapResponse,
  requireArguments,
  UpnpError,
} from '../../../src/domain/dlna/soap.ts';
import { readXml } from '../../../src/domain/dlna/soap.ts';

const CDS = 'urn:schemas-upnp-org:service:ContentDirectory:1';
const envelope = (inner: string, prefix = 's'): string =>
  `<?xml version="1.0"?><${prefix}:Envelope xmlns:${prefix}="http://schemas.xmlsoap.org/soap/envelope/" ${prefix}:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><${prefix}:Body>${inner}</${prefix}:Body></${prefix}:Envelope>`;
const browse = envelope(
  `<u:Browse xmlns:u="${CDS}"><ObjectID>0</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter>` +
    `<StartingIndex>0</StartingIndex><RequestedCount>100</RequestedCount><SortCriteria></SortCriteria></u:Browse>`,
);

describe('readSoapRequest: requests TVs send', () => {
  it('reads a Browse', () => {
    const result = readSoapRequest(browse, `"${CDS}#Browse"`);
    assert.ok(result.ok);
    assert.equal(result.request.serviceType, CDS);
    assert.equal(result.request.action, 'Browse');
    assert.deepEqual(Object.fromEntries(result.request.arguments), {
      ObjectID: '0',
      BrowseFlag: 'BrowseDirectChildren',
      Filter: '*',
      StartingIndex: '0',
      RequestedCount: '100',
      SortCriteria: '',
    });
  });
  const accepted: [string, string, string | undefined, Record<string, string>][] = [
    ['no SOAPACTION header', envelope(`<u:GetSystemUpdateID xmlns:u="${CDS}"/>`), undefined, {}],
    ['unquoted header', envelope(`<u:GetSystemUpdateID xmlns:u="${CDS}"/>`), `${CDS}#GetSystemUpdateID`, {}],
    [
      'other envelope prefix, default namespace',
      envelope(`<Browse xmlns="${CDS}"><ObjectID>a&amp;b</ObjectID></Browse>`, 'SOAP-ENV'),
      undefined,
      { ObjectID: 'a&b' },
    ],
    [
      'CDATA, comments, BOM, CRLF',
      '\uFEFF' +
        envelope(
          `<!-- hi -->\r\n<u:Search xmlns:u="${CDS}">\r\n<SearchCriteria><![CDATA[dc:title contains "<x>"]]></SearchCriteria></u:Search>`,
        ),
      undefined,
      { SearchCriteria: 'dc:title contains "<x>"' },
    ],
    [
      'character references',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>&#65;&#x42;</ObjectID></u:Browse>`),
      undefined,
      { ObjectID: 'AB' },
    ],
  ];
  for (const [name, body, header, args] of accepted) {
    it(name, () => {
      const result = readSoapRequest(body, header);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(Object.fromEntries(result.request.arguments), args);
    });
  }
});

describe('readSoapRequest: malformed → typed error, never a throw', () => {
  const rejected: [string, string, string | undefined, number][] = [
    ['empty body', '', undefined, 401],
    ['not XML', 'hello', undefined, 401],
    ['truncated', browse.slice(0, 120), undefined, 401],
    [
      'mismatched tags',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>0</Filter></u:Browse>`),
      undefined,
      401,
    ],
    ['DOCTYPE (XXE)', `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${browse}`, undefined, 401],
    [
      'unknown entity',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>&e;</ObjectID></u:Browse>`),
      undefined,
      401,
    ],
    [
      'bare ampersand',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>a & b</ObjectID></u:Browse>`),
      undefined,
      401,
    ],
    ['undeclared prefix', '<s:Envelope><s:Body/></s:Envelope>', undefined, 401],
    ['not an Envelope', `<Envelope xmlns="urn:other"><Body/></Envelope>`, undefined, 401],
    [
      'SOAP 1.2 envelope',
      browse.replaceAll(
        'http://schemas.xmlsoap.org/soap/envelope/',
        'http://www.w3.org/2003/05/soap-envelope',
      ),
      undefined,
      401,
    ],
    ['empty Body', envelope(''), undefined, 401],
    ['two actions', envelope(`<u:A xmlns:u="${CDS}"/><u:B xmlns:u="${CDS}"/>`), undefined, 401],
    ['action outside a service namespace', envelope('<Browse/>'), undefined, 401],
    ['header names another action', browse, `"${CDS}#Search"`, 401],
    [
      'header names another service',
      browse,
      `"urn:schemas-upnp-org:service:ConnectionManager:1#Browse"`,
      401,
    ],
    ['header malformed', browse, 'Browse', 401],
    ['content after root', browse + '<x/>', undefined, 401],
    ['text after root', browse + 'tail', undefined, 401],
    [
      'internal entities ("billion laughs")',
      `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${browse.replace('<ObjectID>0', '<ObjectID>&b;')}`,
      undefined,
      401,
    ],
    [
      'NUL character reference',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>&#0;</ObjectID></u:Browse>`),
      undefined,
      401,
    ],
    [
      'HTML entity',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>&nbsp;</ObjectID></u:Browse>`),
      undefined,
      401,
    ],
    [
      'too deep',
      envelope(`<u:Browse xmlns:u="${CDS}">${'<a>'.repeat(40)}${'</a>'.repeat(40)}</u:Browse>`),
      undefined,
      401,
    ],
    [
      'too large',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>${'x'.repeat(300_000)}</ObjectID></u:Browse>`),
      undefined,
      401,
    ],
    [
      'repeated argument',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID>0</ObjectID><ObjectID>1</ObjectID></u:Browse>`),
      undefined,
      402,
    ],
    [
      'argument with elements',
      envelope(`<u:Browse xmlns:u="${CDS}"><ObjectID><x/></ObjectID></u:Browse>`),
      undefined,
      402,
    ],
  ];
  for (const [name, body, header, code] of rejected) {
    it(`${name} → ${code}`, () => {
      const result = readSoapRequest(body, header);
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.error.code, code, result.error.reason);
    });
  }
});

describe('parseSoapActionHeader', () => {
  const cases: [string | undefined, ReturnType<typeof parseSoapActionHeader>][] = [
    [`"${CDS}#Browse"`, { serviceType: CDS, action: 'Browse' }],
    [` ${CDS}#X_GetFeatureList `, { serviceType: CDS, action: 'X_GetFeatureList' }],
    [undefined, null],
    ['', null],
    ['"#Browse"', null],
    [`"${CDS}#"`, null],
    [`"${CDS}"`, null],
  ];
  for (const [header, expected] of cases) {
    it(String(header), () => assert.deepEqual(parseSoapActionHeader(header), expected));
  }
});

describe('requireArguments', () => {
  const read = readSoapRequest(browse);
  assert.ok(read.ok);
  it('returns the named ones, tolerating extras', () => {
    const got = requireArguments(read.request, ['ObjectID', 'BrowseFlag']);
    assert.deepEqual(got, { ok: true, values: { ObjectID: '0', BrowseFlag: 'BrowseDirectChildren' } });
  });
  it('a missing one is 402', () => {
    const got = requireArguments(read.request, ['ObjectID', 'ContainerID']);
    assert.equal(got.ok, false);
    if (!got.ok) assert.equal(got.error.code, UpnpError.InvalidArgs);
  });
});

describe('renderSoapResponse and renderSoapFault', () => {
  it('a response is well-formed, with the DIDL Result escaped once', () => {
    const didl = '<DIDL-Lite><item id="1"><dc:title>Tom &amp; Jerry</dc:title></item></DIDL-Lite>';
    const xml = renderSoapResponse(CDS, 'Browse', [
      ['Result', didl],
      ['NumberReturned', 1],
      ['TotalMatches', 1],
      ['UpdateID', 7],
    ]);
    assert.match(xml, /<u:BrowseResponse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1">/);
    assert.match(xml, /<Result>&lt;DIDL-Lite&gt;&lt;item id=&quot;1&quot;&gt;.*Tom &amp;amp; Jerry/);
    const read = readXml(xml);
    assert.ok(read.ok);
    const response = read.root.children[0]?.children[0];
    assert.equal(response?.local, 'BrowseResponse');
    assert.equal(response?.children.find((c) => c.local === 'Result')?.text, didl);
    assert.equal(response?.children.find((c) => c.local === 'UpdateID')?.text, '7');
  });
  const faults: [number, string][] = [
    [401, 'Invalid Action'],
    [402, 'Invalid Args'],
    [701, 'No such object'],
    [720, 'Cannot process the request'],
  ];
  for (const [code, description] of faults) {
    it(`fault ${code}`, () => {
      const xml = renderSoapFault(code as 401, undefined);
      assert.ok(
        xml.includes(`<errorCode>${code}</errorCode><errorDescription>${description}</errorDescription>`),
      );
      assert.ok(xml.includes('<faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring>'));
      assert.ok(readXml(xml).ok);
    });
  }
  it('a custom description is escaped', () =>
    assert.ok(renderSoapFault(701, 'no <object> & more').includes('no &lt;object&gt; &amp; more')));
});

describe('readSoapRequest never throws', () => {
  it('on every prefix of a Browse and on single-character damage', () => {
    for (let end = 0; end < browse.length; end += 1) {
      const result = readSoapRequest(browse.slice(0, end));
      assert.equal(result.ok, false, `prefix of ${end} characters was accepted`);
    }
    for (let at = 0; at < browse.length; at += 1) {
      for (const damage of ['<', '>', '&', '"', '\u0000', '']) {
        assert.doesNotThrow(() => readSoapRequest(browse.slice(0, at) + damage + browse.slice(at + 1)));
      }
    }
  });
});
