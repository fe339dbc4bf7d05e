// No token of any form is ever written to a log (issue 23): a real server process at the most
// verbose level (trace), its whole output captured, driven on both ports with every way a token
// travels — Authorization: MediaBrowser … Token=… (quoted, unquoted, URL-encoded),
// X-Emby-Authorization, X-Emby-Token, X-MediaBrowser-Token, api_key/ApiKey in the query in any
// case or percent-encoded, a bearer, and a sign-in password — on routes that answer 200, 401, 404
// and 400. The secrets must appear nowhere in what the process printed, in any encoding.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/wait.ts';

const PASSWORD = 'Pw-secret-horse-battery-7731';

describe('log redaction: no token in any form reaches the log', () => {
  let server: ServerProcess;
  let dataDir = '';
  let jellyfinRoot = '';
  let token = '';
  let keyToken = '';

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-redact-'));
    server = await startServerProcess(dataDir, {
      REELSHELF_LOG_LEVEL: 'trace',
      REELSHELF_JELLYFIN_PORT: '0',
      // Set, so the start does not print it (a generated admin token is shown once, by design).
      REELSHELF_API_TOKEN: 'Admin-Secret-Token-For-Redaction-0001',
    });
    jellyfinRoot = await waitFor(
      () => /Jellyfin apps: (http:\/\/\S+)/.exec(server.output())?.[1],
      () => `the Jellyfin port line: ${server.output()}`,
    );
    const admin = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Lena', password: PASSWORD, role: 'member' }),
    });
    assert.equal(created.status, 201, await created.text());
    const signIn = await fetch(`${jellyfinRoot}/Users/AuthenticateByName`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization:
          'MediaBrowser Client="Infuse-Direct", Device="Mac", DeviceId="d1", Version="8", Token=""',
      },
      body: JSON.stringify({ Username: 'lena', Pw: PASSWORD }),
    });
    assert.equal(signIn.status, 200, await signIn.clone().text());
    token = ((await signIn.json()) as { AccessToken: string }).AccessToken;
    const key = await fetch(`${server.url}/api/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'tv', scope: 'read' }),
    });
    assert.equal(key.status, 201, await key.clone().text());
    keyToken = ((await key.json()) as { key: string }).key;
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every header and query form, on both ports, answered 200/401/404/400: no secret in the output', async () => {
    const headerForms = (secret: string): Record<string, string>[] => [
      {
        authorization: `MediaBrowser Client="Infuse-Direct", Device="Mac", DeviceId="d1", Version="8", Token="${secret}"`,
      },
      { authorization: `MediaBrowser Token=${encodeURIComponent(secret)}, Client=Kodi` },
      { authorization: `Emby UserId="x", Client="Kodi", Token="${secret}"` },
      { 'x-emby-authorization': `MediaBrowser Token="${secret}", Client="Infuse-Direct"` },
      { 'x-emby-token': secret },
      { 'x-mediabrowser-token': secret },
      { authorization: `Bearer ${secret}` },
    ];
    const queryForms = (secret: string): string[] => [
      `api_key=${secret}`,
      `ApiKey=${secret}`,
      `API_KEY=${secret}`,
      `apikey=${encodeURIComponent(secret)}`,
      `api%5Fkey=${secret}`,
      `Api%4Bey=${secret}`,
      `x=1&api_key=${secret}&y=2`,
      `token=${secret}`,
    ];
    const paths = [
      '/UserViews',
      '/Items?Recursive=true',
      '/System/Info/Public',
      '/Items/0123456789abcdef0123456789abcdef',
      '/Items/0123456789abcdef0123456789abcdef/Images/Primary',
      '/Videos/0123456789abcdef0123456789abcdef/stream',
      '/no/such/route',
    ];
    const bases = [jellyfinRoot, `${server.url}/jellyfin`, `${server.url}/emby`];
    const statuses = new Set<number>();
    // Each secret: the real session token, a key, and a made-up one (refused: the refusal path logs too).
    for (const secret of [token, keyToken, 'Made-Up-Secret-Token-0042', server.token]) {
      for (const base of bases) {
        for (const path of paths) {
          for (const headers of headerForms(secret)) {
            statuses.add((await fetch(`${base}${path}`, { headers })).status);
          }
          for (const query of queryForms(secret)) {
            const url = `${base}${path}${path.includes('?') ? '&' : '?'}${query}`;
            statuses.add((await fetch(url)).status);
          }
        }
      }
      // reelshelf's own API: a bearer, and a credential in the query (refused with 401).
      for (const path of ['/api/me', '/api/movies?limit=bad', '/library', '/api/nope']) {
        statuses.add(
          (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${secret}` } })).status,
        );
        for (const query of queryForms(secret)) {
          statuses.add((await fetch(`${server.url}${path}${path.includes('?') ? '&' : '?'}${query}`)).status);
        }
      }
    }
    for (const expected of [200, 401, 404])
      assert.ok(statuses.has(expected), `a ${expected} was driven: ${[...statuses].join(',')}`);
    // Let the last lines reach the pipe.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const log = server.output();
    assert.ok(log.length > 10_000, 'trace logging was on');
    for (const secret of [token, keyToken, 'Made-Up-Secret-Token-0042', PASSWORD, server.token]) {
      for (const form of new Set([secret, encodeURIComponent(secret), secret.slice(0, 16)])) {
        const at = log.indexOf(form);
        assert.equal(
          at,
          -1,
          `secret ${secret.slice(0, 4)}… logged as ${form.slice(0, 6)}…: ${log.slice(Math.max(0, at - 300), at + 80)}`,
        );
      }
    }
  });
});
