// The people page's Nodes section: every live node with its role, machine, load and heartbeat.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { nodesSection } from '../../../src/http/pages/nodes.page.ts';

it('lists each node: role, host (pid), load, last heartbeat; the answering one is marked', () => {
  const page = String(
    nodesSection([
      {
        id: 'n-1',
        role: 'api',
        host: 'nas',
        pid: 41,
        version: '1.0.3',
        started_at: '2026-01-01T00:00:00.000Z',
        heartbeat_at: '2026-01-01T00:00:09.000Z',
        heartbeat_age_ms: 400,
        load: { jobs: {}, conversions: { in_use: 0, limit: 1 } },
        self: true,
      },
      {
        id: 'n-2',
        role: 'worker',
        host: 'desktop<b>',
        pid: 42,
        version: '1.0.3',
        started_at: '2026-01-01T00:00:01.000Z',
        heartbeat_at: '2026-01-01T00:00:08.500Z',
        heartbeat_age_ms: 900,
        load: { jobs: { scan: 1, artifact: 2 }, conversions: { in_use: 2, limit: 4 } },
        self: false,
      },
    ]),
  );
  assert.match(page, /<h2 id="nodes">Nodes<\/h2>/);
  assert.match(
    page,
    /n-1 \(this one\)<\/th>\s*<td>api<\/td>\s*<td>nas \(41\)<\/td>\s*<td>no jobs · conversions 0\/1<\/td>/,
  );
  assert.match(page, /n-2<\/th>\s*<td>worker<\/td>\s*<td>desktop&lt;b&gt; \(42\)<\/td>/);
  assert.match(page, /scan 1, artifact 2 · conversions 2\/4/);
  assert.match(page, /2026-01-01T00:00:08.500Z \(0.9 s ago\)/);
});
