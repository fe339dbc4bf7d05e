import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Badge, editionBadge, healthSummary, movieBadge } from '../../src/domain/badges.ts';
import { normalizeTitle, sortTitle } from '../../src/domain/titles.ts';
import { redactUrl } from '../../src/http/app.ts';
import { sameSecret } from '../../src/services/people/secrets.ts';
import { routeAccess } from '../../src/http/route-access.ts';

describe('normalizeTitle', () => {
  const cases: [string, string][] = [
    ['The Matrix', 'matrix'],
    ['Matrix, The', 'matrix'],
    ['Amélie', 'amelie'],
    ['Crouching Tiger, Hidden Dragon', 'crouching tiger hidden dragon'],
    ['Fast & Furious', 'fast and furious'],
    ['  Se7en  ', 'se7en'],
    ['WALL·E', 'wall e'],
    ['A Beautiful Mind', 'beautiful mind'],
    ['Léon: The Professional', 'leon the professional'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${expected}`, () => assert.equal(normalizeTitle(input), expected));
  }
  it('sortTitle drops a leading article only', () => {
    assert.equal(sortTitle('The Matrix'), 'matrix');
    assert.equal(sortTitle('Theory of Everything'), 'theory of everything');
    assert.equal(sortTitle('Éclair'), 'eclair');
  });
});

describe('badges and health summary', () => {
  const playable = { integrity_flagged: false, is_playable: true };
  const table: [string, Parameters<typeof editionBadge>, Badge][] = [
    ['playable', [playable, { fileStatus: 'present', analysis: 'analyzed' }], 'playable'],
    [
      'not supported',
      [
        { ...playable, is_playable: false },
        { fileStatus: 'present', analysis: 'analyzed' },
      ],
      'not_supported',
    ],
    [
      'missing wins',
      [
        { ...playable, integrity_flagged: true },
        { fileStatus: 'missing', analysis: 'analyzed' },
      ],
      'missing',
    ],
    [
      'integrity',
      [
        { ...playable, integrity_flagged: true },
        { fileStatus: 'present', analysis: 'analyzed' },
      ],
      'integrity_flagged',
    ],
    ['failed', [playable, { fileStatus: 'present', analysis: 'failed' }], 'analysis_failed'],
    ['not analyzed', [playable, { fileStatus: 'present', analysis: 'not_analyzed' }], 'not_analyzed'],
  ];
  for (const [name, args, expected] of table) {
    it(`edition badge: ${name}`, () => assert.equal(editionBadge(...args), expected));
  }
  it('movie badge: on_disc only without files', () => {
    assert.equal(movieBadge(null, true), 'on_disc');
    assert.equal(movieBadge(null, false), 'missing');
    assert.equal(movieBadge('playable', true), 'playable');
  });
  it('counts items as INTERFACE.md says', () => {
    const summary = healthSummary([
      'playable',
      'playable',
      'on_disc',
      'integrity_flagged',
      'analysis_failed',
      'not_analyzed',
      'not_supported',
      'missing',
    ]);
    assert.equal(summary, '2 playable · 3 need review · 2 not playable');
  });
});

describe('auth helpers', () => {
  it('compares secrets of any length', () => {
    assert.equal(sameSecret('abc', 'abc'), true);
    assert.equal(sameSecret('abc', 'abd'), false);
    assert.equal(sameSecret('', 'abc'), false);
    assert.equal(sameSecret('abc'.repeat(100), 'abc'), false);
  });
  it('knows the public routes, and closes what it does not name', () => {
    assert.equal(routeAccess('GET', '/api/health'), 'public');
    assert.equal(routeAccess('HEAD', '/api/health'), 'public');
    assert.equal(routeAccess('POST', '/api/health'), 'admin');
    assert.equal(routeAccess('GET', '/api/contract'), 'public');
    assert.equal(routeAccess('GET', '/stream/media_file/:id'), 'public');
    assert.equal(routeAccess('GET', '/library'), 'read');
    assert.equal(routeAccess('POST', '/api/movies'), 'admin');
    assert.equal(routeAccess('GET', '/api/some-new-route'), 'admin');
    // DLNA has no sign-in: its routes are public (and answer LAN addresses only); its status is the admins'.
    for (const [method, url] of [
      ['GET', '/dlna/description.xml'],
      ['HEAD', '/dlna/description.xml'],
      ['GET', '/dlna/ContentDirectory.xml'],
      ['GET', '/dlna/ConnectionManager.xml'],
      ['GET', '/dlna/X_MS_MediaReceiverRegistrar.xml'],
      ['GET', '/dlna/icon-48.png'],
      ['GET', '/dlna/icon-120.jpg'],
      ['POST', '/dlna/control/:service'],
      ['SUBSCRIBE', '/dlna/events/:service'],
      ['UNSUBSCRIBE', '/dlna/events/:service'],
    ])
      assert.equal(routeAccess(method ?? '', url ?? ''), 'public', `${method} ${url}`);
    assert.equal(routeAccess('GET', '/dlna/control/:service'), 'admin', 'only what is registered is opened');
    assert.equal(routeAccess('GET', '/api/dlna'), 'admin');
  });
  it('redacts tokens and keys from logged URLs', () => {
    assert.equal(
      redactUrl('/stream/media_file/1?device=tv&token=abc.def'),
      '/stream/media_file/1?device=tv&token=[redacted]',
    );
    assert.equal(redactUrl('/x?api_key=123&q=1'), '/x?api_key=[redacted]&q=1');
    // Jellyfin's forms: any case, and a percent-encoded key (the query parser decodes it).
    assert.equal(
      redactUrl('/jellyfin/items?ApiKey=s1&API_KEY=s2'),
      '/jellyfin/items?ApiKey=[redacted]&API_KEY=[redacted]',
    );
    assert.equal(
      redactUrl('/jellyfin/x?api%5Fkey=s3&Api%4Bey=s4&a=%'),
      '/jellyfin/x?api%5Fkey=[redacted]&Api%4Bey=[redacted]&a=%',
    );
    assert.equal(redactUrl('/x?monkey=1&keys=2'), '/x?monkey=1&keys=2');
    assert.equal(redactUrl('/x'), '/x');
  });
});
