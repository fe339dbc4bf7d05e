import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedSecrets, type SharedSecretRecords } from '../../../../src/services/system/shared-secrets.ts';

/** The database's behaviour: the first value stored under a name stays. */
function records(initial: Record<string, string> = {}): SharedSecretRecords & { rows: Map<string, string> } {
  const rows = new Map(Object.entries(initial));
  return {
    rows,
    get: async (name) => rows.get(name),
    insertIfAbsent: async (name, value) => {
      if (!rows.has(name)) rows.set(name, value);
    },
  };
}

const clock = { now: () => new Date('2026-11-26T12:00:00Z') };

describe('SharedSecrets', () => {
  it('keeps the stored secret', async () => {
    const r = records({ 'playback-key': 'stored' });
    const secrets = new SharedSecrets(r, () => 'file', clock);
    assert.equal(await secrets.getOrCreate('playback-key'), 'stored');
  });

  it("takes over the data dir's file on first use, so tokens signed before stay valid", async () => {
    const r = records();
    const secrets = new SharedSecrets(
      r,
      (name) => (name === 'playback-key' ? 'from-file' : undefined),
      clock,
    );
    assert.equal(await secrets.getOrCreate('playback-key'), 'from-file');
    assert.equal(r.rows.get('playback-key'), 'from-file');
  });

  it('makes a random base64url secret of the asked size when there is none', async () => {
    const r = records();
    const value = await new SharedSecrets(r, () => undefined, clock).getOrCreate('jellyfin-key', 32);
    assert.match(value, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(r.rows.get('jellyfin-key'), value);
  });

  it('nodes racing to make one agree on the first stored', async () => {
    const r = records();
    const a = new SharedSecrets(r, () => undefined, clock);
    const b = new SharedSecrets(r, () => undefined, clock);
    const [x, y] = await Promise.all([a.getOrCreate('playback-key'), b.getOrCreate('playback-key')]);
    assert.equal(x, y);
    assert.equal(r.rows.size, 1);
  });
});
