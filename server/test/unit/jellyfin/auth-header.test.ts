// How the Jellyfin apps send their tokens (players.md §1.4), read by domain/jellyfin/auth-header.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseMediaBrowserHeader,
  readJellyfinCredentials,
} from '../../../src/domain/jellyfin/auth-header.ts';

const TOKEN = '0123456789abcdef0123456789abcdef';

describe('jellyfin: the MediaBrowser authorization header', () => {
  it('reads every token form, in Jellyfin order, and says where it came from', () => {
    const cases: [
      string,
      Record<string, string | string[]>,
      Record<string, unknown>,
      string | null,
      string | null,
    ][] = [
      [
        'quoted, Infuse order',
        {
          authorization: `MediaBrowser Client="Infuse-Direct", Device="Mac", DeviceId="abc", Version="8.0.9", Token="${TOKEN}"`,
        },
        {},
        TOKEN,
        'authorization',
      ],
      [
        'token first, no spaces',
        {
          authorization: `MediaBrowser Token="${TOKEN}",Client="Findroid",Device="Pixel",DeviceId="d",Version="0.15"`,
        },
        {},
        TOKEN,
        'authorization',
      ],
      [
        'unquoted (Kodi)',
        { authorization: `MediaBrowser Client=Kodi, Device=LibreELEC, Token=${TOKEN}` },
        {},
        TOKEN,
        'authorization',
      ],
      ['scheme case and Emby', { authorization: `emby token="${TOKEN}"` }, {}, TOKEN, 'authorization'],
      [
        'MEDIABROWSER, key case',
        { authorization: `MEDIABROWSER TOKEN="${TOKEN}"` },
        {},
        TOKEN,
        'authorization',
      ],
      [
        'X-Emby-Authorization (Infuse)',
        { 'x-emby-authorization': `MediaBrowser Token="${TOKEN}", Client="Infuse-Direct"` },
        {},
        TOKEN,
        'x-emby-authorization',
      ],
      [
        'X-Emby-Authorization beside a Bearer Authorization',
        { authorization: 'Bearer other', 'x-emby-authorization': `MediaBrowser Token="${TOKEN}"` },
        {},
        TOKEN,
        'x-emby-authorization',
      ],
      ['X-Emby-Token', { 'x-emby-token': TOKEN }, {}, TOKEN, 'x-emby-token'],
      ['X-MediaBrowser-Token', { 'x-mediabrowser-token': TOKEN }, {}, TOKEN, 'x-mediabrowser-token'],
      ['api_key query', {}, { api_key: TOKEN }, TOKEN, 'query'],
      ['ApiKey query', {}, { ApiKey: TOKEN }, TOKEN, 'query'],
      ['apikey any case, repeated', {}, { APIKEY: ['', TOKEN] }, TOKEN, 'query'],
      [
        'header wins over X-Emby-Token',
        { authorization: `MediaBrowser Token="${TOKEN}"`, 'x-emby-token': 'other' },
        {},
        TOKEN,
        'authorization',
      ],
      [
        'X-Emby-Token wins over the query',
        { 'x-emby-token': TOKEN },
        { api_key: 'other' },
        TOKEN,
        'x-emby-token',
      ],
      ['ApiKey wins over api_key', {}, { api_key: 'other', ApiKey: TOKEN }, TOKEN, 'query'],
      [
        'empty Token="" before sign-in is no token',
        { authorization: 'MediaBrowser Client="Jellyfin Web", Token=""' },
        {},
        null,
        null,
      ],
      [
        'empty Token="" falls through to X-Emby-Token',
        { authorization: 'MediaBrowser Token=""', 'x-emby-token': TOKEN },
        {},
        TOKEN,
        'x-emby-token',
      ],
      ['a Bearer header is not ours', { authorization: `Bearer ${TOKEN}` }, {}, null, null],
      ['nothing', {}, {}, null, null],
      ['blank X-Emby-Token', { 'x-emby-token': '  ' }, {}, null, null],
    ];
    for (const [name, headers, query, token, source] of cases) {
      const read = readJellyfinCredentials(headers, query);
      assert.equal(read.token, token, name);
      assert.equal(read.source, source, name);
    }
  });

  it('reads the app and device, URL-decoded, from either header', () => {
    const kodi = readJellyfinCredentials(
      {
        authorization:
          'MediaBrowser Client=Kodi, Device=Living%20room%20%C3%A9cran, DeviceId=a%2Cb, Version=1.0.3, Token=t',
      },
      {},
    );
    assert.deepEqual(kodi.client, {
      client: 'Kodi',
      device: 'Living room écran',
      deviceId: 'a,b',
      version: '1.0.3',
    });
    const quoted = readJellyfinCredentials(
      {
        'x-emby-authorization':
          'MediaBrowser Client="Swiftfin iOS", Device="iPhone, 15", DeviceId="X1", Version="1.2"',
      },
      {},
    );
    assert.deepEqual(quoted.client, {
      client: 'Swiftfin iOS',
      device: 'iPhone, 15',
      deviceId: 'X1',
      version: '1.2',
    });
    assert.deepEqual(readJellyfinCredentials({}, {}).client, {
      client: null,
      device: null,
      deviceId: null,
      version: null,
    });
  });

  it('keeps a plus, a malformed escape and the first of a repeated key as sent', () => {
    const params = parseMediaBrowserHeader('MediaBrowser Device="a+b", Client="100%", Client="second"');
    assert.equal(params?.get('device'), 'a+b');
    assert.equal(params?.get('client'), '100%');
    assert.equal(parseMediaBrowserHeader('Basic dXNlcjpwYXNz'), null);
    assert.deepEqual(parseMediaBrowserHeader('MediaBrowser'), new Map());
  });
});
