// The Jellyfin facade at the root of its own port (REELSHELF_JELLYFIN_PORT), driven by
// @jellyfin/sdk 1.0.0 as an app pointed at http://host:8096 would: the same routes, hooks and
// services as /jellyfin on the main port, and nothing else. Ports are always ephemeral (0): a test
// never binds Jellyfin's 8096.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import { RecommendedServerInfoScore } from '@jellyfin/sdk/lib/models/recommended-server-info.js';
import { getSystemApi } from '@jellyfin/sdk/lib/utils/api/system-api.js';
import { getUserViewApi } from '@jellyfin/sdk/lib/utils/api/user-view-api.js';
import { jellyfinPortUrl } from '../../src/http/jellyfin/jellyfin-port.ts';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Jellyfin Android TV', version: '0.18.0' },
  deviceInfo: { name: 'Bedroom TV', id: 'device-tv' },
});

describe('jellyfin port: the path mapping', () => {
  const cases: [string, string][] = [
    ['/System/Info/Public', '/jellyfin/System/Info/Public'],
    ['/Items?ParentId=x&Fields=A,B', '/jellyfin/Items?ParentId=x&Fields=A,B'],
    ['/emby/System/Info/Public', '/emby/System/Info/Public'],
    ['/Emby/Users/AuthenticateByName', '/Emby/Users/AuthenticateByName'],
    ['/api/health', '/jellyfin/api/health'],
    ['/embyish', '/jellyfin/embyish'],
    ['/', '/jellyfin/'],
  ];
  for (const [given, expected] of cases) {
    it(`${given} → ${expected}`, () => assert.equal(jellyfinPortUrl(given), expected));
  }
});

describe('jellyfin port: the facade at the root of its own port', () => {
  let server: TestServer;
  let root = '';

  before(async () => {
    server = await startTestServer({ REELSHELF_JELLYFIN_PORT: '0' });
    root = server.server.jellyfin.url ?? '';
    assert.match(root, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(root, server.url);
    const created = await server.api(
      '/api/users',
      jsonBody('POST', { name: 'Tom', password: 'correct horse battery', role: 'member' }),
    );
    assert.equal(created.status, 201, await created.text());
  });
  after(async () => server.close());

  it('System/Info/Public at the root (the SDK), the same server as /jellyfin on the main port; /emby and any case too', async () => {
    const { data } = await getSystemApi(jellyfin.createApi(root)).getPublicSystemInfo();
    assert.equal(data.ProductName, 'Jellyfin Server');
    const main = await getSystemApi(jellyfin.createApi(`${server.url}/jellyfin`)).getPublicSystemInfo();
    assert.equal(data.Id, main.data.Id);
    assert.equal(data.ServerName, main.data.ServerName);
    for (const path of ['/emby/System/Info/Public', '/system/info/public', '/SYSTEM/INFO/PUBLIC?x=1']) {
      const response = await fetch(`${root}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(((await response.json()) as { Id: string }).Id, data.Id, path);
    }
  });

  it("the SDK's own discovery rates the bare port as it does /jellyfin", async () => {
    const candidates = await jellyfin.discovery.getRecommendedServerCandidates(root);
    const best = jellyfin.discovery.findBestServer(candidates);
    assert.equal(best?.score, RecommendedServerInfoScore.GOOD, JSON.stringify(best?.issues));
  });

  it('sign in and browse at the root: the token is a reelshelf session that works on both ports', async () => {
    const api = jellyfin.createApi(root);
    const { data } = await api.authenticateUserByName('tom', 'correct horse battery');
    const token = data.AccessToken ?? '';
    const views = await getUserViewApi(api).getUserViews();
    assert.equal(views.data.Items?.[0]?.Name, 'Movies');
    const onMain = await fetch(`${server.url}/jellyfin/UserViews`, { headers: { 'x-emby-token': token } });
    assert.equal(onMain.status, 200);
    assert.equal((await fetch(`${root}/UserViews`)).status, 401, 'the same auth hook runs');
  });

  it("only the facade: reelshelf's own API and pages are not reachable on the Jellyfin port", async () => {
    for (const path of ['/api/health', '/api/contract', '/library', '/sign-in', '/stream/media_file/1']) {
      const response = await fetch(`${root}${path}`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      assert.ok([401, 404].includes(response.status), `${path}: ${response.status}`);
      const text = await response.text();
      assert.ok(!text.includes('contract_version') && !text.includes('<html'), path);
    }
    assert.equal((await server.api('/api/health')).status, 200, 'the main port still serves it');
  });
});

describe('jellyfin port: off, busy, and closing', () => {
  it('off: no second port', async () => {
    const server = await startTestServer({ REELSHELF_JELLYFIN_PORT: 'off' });
    try {
      assert.equal(server.server.jellyfin.url, null);
      assert.deepEqual(server.server.jellyfin.warnings, []);
      assert.equal((await fetch(`${server.url}/jellyfin/System/Info/Public`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it('a port already in use leaves the facade on the main port only, with a warning; the server runs', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busy = (blocker.address() as { port: number }).port;
    const server = await startTestServer({ REELSHELF_JELLYFIN_PORT: String(busy) });
    try {
      assert.equal(server.server.jellyfin.url, null);
      assert.match(
        server.server.jellyfin.warnings.join('\n'),
        /REELSHELF_JELLYFIN_PORT=\d+ .*EADDRINUSE.*off/,
      );
      assert.equal((await server.api('/api/health')).status, 200);
    } finally {
      await server.close();
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('close() ends promptly with a kept-alive connection open on the Jellyfin port', async () => {
    const server = await startTestServer({ REELSHELF_JELLYFIN_PORT: '0' });
    const root = server.server.jellyfin.url ?? '';
    // fetch keeps the connection alive (72 s) after this answer.
    assert.equal((await fetch(`${root}/System/Info/Public`)).status, 200);
    const started = performance.now();
    await server.close();
    const took = performance.now() - started;
    assert.ok(took < 5000, `close took ${Math.round(took)} ms`);
    await assert.rejects(fetch(`${root}/System/Info/Public`), 'the port is closed');
  });
});
