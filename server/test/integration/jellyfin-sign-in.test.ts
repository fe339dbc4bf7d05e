// The Jellyfin facade's first routes driven by @jellyfin/sdk 1.0.0 as the apps drive them: the
// server rating (System/Info/Public) and sign-in (Users/AuthenticateByName) against a real
// reelshelf on loopback; the token is a device session of that person.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Jellyfin } from '@jellyfin/sdk/lib/jellyfin.js';
import { RecommendedServerInfoScore } from '@jellyfin/sdk/lib/models/recommended-server-info.js';
import { getSystemApi } from '@jellyfin/sdk/lib/utils/api/system-api.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/test-server.ts';

const jellyfin = new Jellyfin({
  clientInfo: { name: 'Findroid', version: '0.15.0' },
  deviceInfo: { name: 'Living room Shield', id: 'device-1' },
});

describe('jellyfin: server rating and sign-in with @jellyfin/sdk', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const created = await server.api(
      '/api/users',
      jsonBody('POST', { name: 'Anna', password: 'correct horse battery', role: 'member' }),
    );
    assert.equal(created.status, 201, await created.text());
  });
  after(async () => server.close());

  it('System/Info/Public: Jellyfin Server 10.11.0, one stable id, any path case, /emby too', async () => {
    const api = jellyfin.createApi(`${server.url}/jellyfin`);
    const { data } = await getSystemApi(api).getPublicSystemInfo();
    assert.equal(data.ProductName, 'Jellyfin Server');
    assert.equal(data.Version, '10.11.0');
    assert.match(data.Id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(data.StartupWizardCompleted, true);
    assert.ok((data.ServerName ?? '').startsWith('reelshelf on '));
    for (const path of [
      '/jellyfin/system/info/public',
      '/emby/System/Info/Public',
      '/JELLYFIN/System/Info/Public?x=1',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(((await response.json()) as { Id: string }).Id, data.Id, path);
    }
    const raw = await (await fetch(`${server.url}/jellyfin/System/Info/Public`)).text();
    assert.ok(!raw.includes('null'), 'nulls are omitted');
  });

  it("the SDK's own discovery rates reelshelf a usable Jellyfin server", async () => {
    const candidates = await jellyfin.discovery.getRecommendedServerCandidates(`${server.url}/jellyfin`);
    const best = jellyfin.discovery.findBestServer(candidates);
    assert.ok(best !== undefined);
    assert.equal(best.score, RecommendedServerInfoScore.GOOD, JSON.stringify(best.issues));
  });

  it('AuthenticateByName signs in a person; the token is their device session, named by the app', async () => {
    const api = jellyfin.createApi(`${server.url}/jellyfin`);
    const { data } = await api.authenticateUserByName('anna', 'correct horse battery');
    assert.equal(data.User?.Name, 'Anna');
    assert.equal(data.User?.Policy?.IsAdministrator, false);
    assert.equal(data.ServerId, data.User?.ServerId);
    assert.match(data.User?.Id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(data.SessionInfo?.DeviceName, 'Living room Shield');
    const token = data.AccessToken ?? '';
    assert.equal(api.accessToken, token, 'the SDK keeps the token for its next calls');
    const found = await server.server.services.sessions.authenticate(token);
    assert.ok(found !== null, 'the token opens a reelshelf session');
    assert.equal(found.principal.name, 'Anna');
    assert.equal(found.session.kind, 'device');
    assert.equal(found.session.expires_at, null, 'long-lived: the apps cannot sign in again by themselves');
    assert.equal(found.session.app_name, 'Findroid');
    assert.equal(found.session.device_name, 'Living room Shield');
  });

  it('a wrong password is 401 and no session', async () => {
    const api = jellyfin.createApi(`${server.url}/jellyfin`);
    await assert.rejects(api.authenticateUserByName('anna', 'wrong password'), (error: unknown) => {
      assert.equal((error as { response?: { status?: number } }).response?.status, 401);
      return true;
    });
    const missing = await fetch(
      `${server.url}/jellyfin/Users/AuthenticateByName`,
      jsonBody('POST', { Pw: 'x' }),
    );
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { error: string }).error, 'validation_failed');
  });
});
