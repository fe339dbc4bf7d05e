import { startTestServer } from './test/helpers/test-server.ts';
const t = await startTestServer({ REELSHELF_LOG_LEVEL: 'error' });
await t.api('/api/movies', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Inception' }) });
for (const p of ['/library', '/library?q=inc', '/library?q=inc&sort=year']) {
  const res = await t.api(p, { headers: { accept: 'text/html' } });
  console.log(p, res.status, res.status === 200 ? '' : (await res.text()).slice(0, 500));
}
await t.close();
