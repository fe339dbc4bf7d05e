import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  ProviderError,
  ProviderHttp,
  classifyBody,
  joinUrl,
  parseRetryAfter,
  redactSecrets,
  redactUrl,
} from '../../../src/providers/http.ts';
import {
  type FakeControl,
  gatewayPage,
  sendHtml,
  sendJson,
  startFakeServer,
} from '../../fakes/fake-server.ts';
import { caught, clientDeps } from './helpers.ts';

describe('parseRetryAfter', () => {
  const now = new Date('2025-03-01T12:00:00.000Z');
  const cases: [string | null, number | null][] = [
    [null, null],
    ['1', 1000],
    ['25173', 25_173_000],
    ['0', 0],
    ['1.5', 1500],
    ['Sat, 01 Mar 2025 12:00:05 GMT', 5000],
    ['Sat, 01 Mar 2025 11:00:00 GMT', 0],
    ['soon', null],
  ];
  for (const [value, expected] of cases) {
    it(`${String(value)} → ${String(expected)}`, () => assert.equal(parseRetryAfter(value, now), expected));
  }
});

describe('redaction', () => {
  it('hides api_key/apikey/user_key query values', () => {
    assert.equal(
      redactUrl('https://x/3/movie/1?api_key=abc123&language=en-US'),
      'https://x/3/movie/1?api_key=[redacted]&language=en-US',
    );
    assert.equal(redactUrl('https://x/?i=tt1&apikey=zzz'), 'https://x/?i=tt1&apikey=[redacted]');
  });
  it('hides known secrets and bearer tokens anywhere in a text', () => {
    const text = 'failed for sekrit-value with Authorization: Bearer eyJ.abc.def';
    const out = redactSecrets(text, ['sekrit-value']);
    assert.ok(!out.includes('sekrit-value'));
    assert.ok(!out.includes('eyJ.abc.def'));
  });
});

describe('classifyBody', () => {
  it('reads JSON whatever the content type says, spots HTML and junk', () => {
    assert.deepEqual(classifyBody('{"a":1}', 'text/plain'), { kind: 'json', json: { a: 1 } });
    assert.equal(classifyBody('<html><body>502</body></html>', 'application/json').kind, 'html');
    assert.equal(classifyBody('{"a":', 'application/json').kind, 'text');
    assert.equal(classifyBody('  ', null).kind, 'empty');
    assert.equal(classifyBody('oops', 'text/html').kind, 'html');
  });
});

describe('joinUrl', () => {
  it('keeps the base path, with or without a trailing slash', () => {
    assert.equal(joinUrl('http://h/3', 'movie/1').href, 'http://h/3/movie/1');
    assert.equal(joinUrl('http://h/prod/trial/', '/lookup').href, 'http://h/prod/trial/lookup');
  });
});

describe('ProviderHttp against a local server', () => {
  let server: FakeControl;
  let script: ((res: ServerResponse) => void)[] = [];
  before(async () => {
    server = await startFakeServer(
      (_req, res) => {
        const next = script.shift();
        if (next === undefined) sendJson(res, 200, { ok: true });
        else next(res);
      },
      () => undefined,
    );
  });
  after(() => server.close());

  const make = (extra: Record<string, unknown> = {}) => {
    const deps = clientDeps();
    const warnings: Record<string, unknown>[] = [];
    const http = new ProviderHttp('tmdb', {
      ...deps,
      baseUrl: server.origin,
      apiKey: 'topsecretkey',
      logger: { warn: (details) => warnings.push(details) },
      ...extra,
    });
    return { http, deps, warnings };
  };
  const url = () => new URL(`${server.origin}/x?api_key=topsecretkey`);

  it('retries 5xx with backoff and returns the success', async () => {
    server.reset();
    script = [(res) => sendHtml(res, 502, gatewayPage(502)), (res) => sendJson(res, 503, { status_code: 9 })];
    const { http, deps, warnings } = make();
    const res = await http.getJson(url());
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { ok: true });
    assert.equal(server.requests.length, 3);
    assert.equal(deps.waits.length, 2);
    assert.ok((deps.waits[1] ?? 0) > (deps.waits[0] ?? 0), 'exponential');
    assert.equal(warnings.length, 2);
    assert.ok(warnings.every((w) => !JSON.stringify(w).includes('topsecretkey')));
  });

  it('gives up after maxRetries and returns the last 5xx, classified as HTML', async () => {
    server.reset();
    script = [0, 1, 2].map(() => (res: ServerResponse) => sendHtml(res, 500, gatewayPage(500)));
    const { http } = make();
    const res = await http.getJson(url());
    assert.equal(res.status, 500);
    assert.equal(res.bodyKind, 'html');
    assert.equal(server.requests.length, 3);
    const err = http.errorFor(res);
    assert.equal(err.kind, 'unavailable');
    assert.match(err.message, /HTML/);
  });

  it('honours Retry-After on 429 (seconds and HTTP date)', async () => {
    server.reset();
    const { http, deps } = make();
    const at = new Date(deps.clock.now().getTime() + 3000).toUTCString();
    script = [
      (res) => sendJson(res, 429, {}, { 'Retry-After': '2' }),
      (res) => sendJson(res, 429, {}, { 'Retry-After': at }),
    ];
    const res = await http.getJson(url());
    assert.equal(res.status, 200);
    assert.deepEqual(deps.waits, [2000, 3000]);
  });

  it('does not wait out a Retry-After beyond the cap: reports rate_limited', async () => {
    server.reset();
    script = [(res) => sendJson(res, 429, { code: 'EXCEED_LIMIT' }, { 'Retry-After': '25173' })];
    const { http, deps } = make();
    const res = await http.getJson(url());
    assert.equal(res.status, 429);
    assert.equal(res.retryAfterMs, 25_173_000);
    assert.deepEqual(deps.waits, []);
    const err = http.errorFor(res);
    assert.equal(err.kind, 'rate_limited');
    assert.equal(err.retryAfterMs, 25_173_000);
  });

  it('shouldRetry=false stops retrying', async () => {
    server.reset();
    script = [(res) => sendJson(res, 503, { code: 'NO' })];
    const { http } = make();
    const res = await http.getJson(url(), { shouldRetry: () => false });
    assert.equal(res.status, 503);
    assert.equal(server.requests.length, 1);
  });

  it('a hanging server times out → unavailable, after the retries', async () => {
    server.reset();
    server.failNext('hang', 2);
    const { http, deps } = make({ timeoutMs: 150, maxRetries: 1 });
    const err = await caught(() => http.getJson(url()));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.match(err.message, /timed out after 150 ms/);
    assert.equal(deps.waits.length, 1);
    assert.equal(server.requests.length, 2);
  });

  it('connection refused → unavailable, message without the key', async () => {
    const closed = await startFakeServer(
      () => undefined,
      () => undefined,
    );
    await closed.close();
    const { http } = make({ maxRetries: 1 });
    const err = await caught(() => http.getJson(new URL(`${closed.origin}/x?api_key=topsecretkey`)));
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'unavailable');
    assert.ok(!err.message.includes('topsecretkey'));
  });

  it('a caller abort is not retried', async () => {
    server.reset();
    server.failNext('hang', 1);
    const { http, deps } = make();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    const err = await caught(() => http.getJson(url(), { signal: controller.signal }));
    assert.ok(err instanceof Error);
    assert.equal(err.message, 'stop');
    assert.deepEqual(deps.waits, []);
  });

  it('errors built through the client never carry the key', () => {
    const { http } = make();
    const err = http.error('bad_response', 'upstream echoed topsecretkey in ?api_key=topsecretkey');
    assert.ok(!err.message.includes('topsecretkey'));
    assert.ok(!JSON.stringify(err).includes('topsecretkey'));
  });
});
