import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostname } from 'node:os';
import { ConfigError, DLNA_NAME_MAX_LENGTH, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8787);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.playbackPolicy, 'adaptive');
    assert.equal(c.transcode, true);
    assert.equal(c.artifactCacheMb, 20480);
    assert.equal(c.tmdbApiKey, null);
    assert.equal(c.tmdbBaseUrl, 'https://api.themoviedb.org/3');
    assert.equal(c.upcBaseUrl, 'https://api.upcitemdb.com/prod/trial');
    assert.match(c.databaseUrl, /^sqlite:.*data\/reelshelf\.sqlite$/);
    assert.equal(c.watch, true);
    assert.equal(c.rescanIntervalMs, 6 * 3_600_000);
    assert.equal(c.accelRedirect, null, 'bytes are sent in-process unless nginx is configured');
    assert.equal(c.followSymlinks, true, 'symlinks are followed, as Jellyfin and Plex do');
    assert.equal(c.jellyfinPort, 8096, "Jellyfin's own port, where the apps look");
    assert.equal(c.jellyfinDiscoveryPort, 7359, "Jellyfin's discovery port");
  });

  it('reads the Jellyfin port and discovery port, each a port or off (any case)', () => {
    const c = loadConfig({ REELSHELF_JELLYFIN_PORT: '0', REELSHELF_JELLYFIN_DISCOVERY_PORT: 'OFF' });
    assert.equal(c.jellyfinPort, 0);
    assert.equal(c.jellyfinDiscoveryPort, null);
    const d = loadConfig({ REELSHELF_JELLYFIN_PORT: 'off', REELSHELF_JELLYFIN_DISCOVERY_PORT: '17359' });
    assert.equal(d.jellyfinPort, null);
    assert.equal(d.jellyfinDiscoveryPort, 17359);
    // Both 0: two different free ports are bound.
    assert.equal(loadConfig({ REELSHELF_PORT: '0', REELSHELF_JELLYFIN_PORT: '0' }).jellyfinPort, 0);
  });

  it('reads DLNA: off by default, or a person; the friendly name defaults to the host', () => {
    const off = loadConfig({});
    assert.equal(off.dlnaPerson, null, 'DLNA is off unless a person is named');
    assert.equal(off.dlnaName, `reelshelf on ${hostname()}`.slice(0, DLNA_NAME_MAX_LENGTH));
    assert.equal(loadConfig({ REELSHELF_DLNA: 'OFF' }).dlnaPerson, null);
    assert.equal(loadConfig({ REELSHELF_DLNA: '  Living Room ' }).dlnaPerson, 'Living Room');
    // A person who does not exist yet is accepted here: the server starts, DLNA says why it lists nothing.
    assert.equal(loadConfig({ REELSHELF_DLNA: 'nobody-yet' }).dlnaPerson, 'nobody-yet');
    assert.equal(loadConfig({ REELSHELF_DLNA_NAME: 'Films ✓' }).dlnaName, 'Films ✓');
    assert.equal(loadConfig({ REELSHELF_DLNA_NAME: 'x'.repeat(64) }).dlnaName.length, 64);
  });

  it('refuses a DLNA person or friendly name that cannot be one', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ REELSHELF_DLNA: 'x'.repeat(65) }, /REELSHELF_DLNA=x+ is not valid: expected off, or the name/],
      [{ REELSHELF_DLNA: 'a\u0007b' }, /REELSHELF_DLNA=.* control characters/],
      [{ REELSHELF_DLNA_NAME: 'x'.repeat(65) }, /REELSHELF_DLNA_NAME=x+ is not valid: .*at most 64/],
      [{ REELSHELF_DLNA_NAME: 'tab\there' }, /REELSHELF_DLNA_NAME=.*control characters/],
    ];
    for (const [env, message] of bad)
      assert.throws(
        () => loadConfig(env),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      );
  });

  it('reads the X-Accel-Redirect prefix with its trailing slash', () => {
    assert.equal(
      loadConfig({ REELSHELF_ACCEL_REDIRECT: '/internal-media' }).accelRedirect,
      '/internal-media/',
    );
    assert.equal(loadConfig({ REELSHELF_ACCEL_REDIRECT: '/a/b/' }).accelRedirect, '/a/b/');
  });

  it('reads the rescan interval as a duration, and watching on or off', () => {
    const interval = (value: string) => loadConfig({ REELSHELF_RESCAN_INTERVAL: value }).rescanIntervalMs;
    assert.equal(interval('30m'), 30 * 60_000);
    assert.equal(interval('12h'), 12 * 3_600_000);
    assert.equal(interval('1d'), 86_400_000);
    assert.equal(interval('90'), 90_000, 'a bare number is seconds');
    assert.equal(interval('45s'), 45_000);
    assert.equal(interval('off'), null);
    assert.equal(interval('0'), null);
    assert.equal(loadConfig({ REELSHELF_WATCH: 'off' }).watch, false);
    assert.equal(loadConfig({ REELSHELF_WATCH: 'ON' }).watch, true);
  });

  it('reads trickplay on/off (default on) and its mode (default keyframes)', () => {
    assert.equal(loadConfig({}).trickplay, true);
    assert.equal(loadConfig({}).trickplayMode, 'keyframes');
    assert.equal(loadConfig({ REELSHELF_TRICKPLAY: 'OFF' }).trickplay, false);
    assert.equal(loadConfig({ REELSHELF_TRICKPLAY_MODE: 'Accurate' }).trickplayMode, 'accurate');
  });

  it('reads whether symlinks out of a root are followed', () => {
    assert.equal(loadConfig({ REELSHELF_FOLLOW_SYMLINKS: 'off' }).followSymlinks, false);
    assert.equal(loadConfig({ REELSHELF_FOLLOW_SYMLINKS: 'On' }).followSymlinks, true);
  });

  it('reads the certification country (default US), any case', () => {
    assert.equal(loadConfig({}).certificationCountry, 'US');
    assert.equal(loadConfig({ REELSHELF_CERTIFICATION_COUNTRY: 'gb' }).certificationCountry, 'GB');
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    [
      'certification country',
      { REELSHELF_CERTIFICATION_COUNTRY: 'XX' },
      /REELSHELF_CERTIFICATION_COUNTRY=XX .*US, GB/,
    ],
    ['port not a number', { REELSHELF_PORT: 'eighty' }, /REELSHELF_PORT=eighty/],
    ['port out of range', { REELSHELF_PORT: '70000' }, /0 to 65535/],
    ['jellyfin port', { REELSHELF_JELLYFIN_PORT: 'yes' }, /REELSHELF_JELLYFIN_PORT=yes .*0 to 65535.*or off/],
    ['jellyfin port out of range', { REELSHELF_JELLYFIN_PORT: '80960' }, /REELSHELF_JELLYFIN_PORT=80960/],
    [
      'jellyfin port is the main port',
      { REELSHELF_PORT: '9000', REELSHELF_JELLYFIN_PORT: '9000' },
      /REELSHELF_JELLYFIN_PORT=9000 .*REELSHELF_PORT/,
    ],
    [
      'discovery port',
      { REELSHELF_JELLYFIN_DISCOVERY_PORT: '-1' },
      /REELSHELF_JELLYFIN_DISCOVERY_PORT=-1 .*or off/,
    ],
    ['policy', { REELSHELF_PLAYBACK_POLICY: 'loose' }, /adaptive, strict/],
    ['transcode', { REELSHELF_TRANSCODE: 'maybe' }, /on, off/],
    ['cache size', { REELSHELF_ARTIFACT_CACHE_MB: '-5' }, /REELSHELF_ARTIFACT_CACHE_MB/],
    ['url', { REELSHELF_TMDB_BASE_URL: 'ftp://x' }, /http\(s\) URL/],
    [
      'database engine',
      { REELSHELF_DATABASE_URL: 'mysql://u:secret@h/db' },
      /sqlite:<file> or postgres:\/\//,
    ],
    ['database pool', { REELSHELF_DATABASE_POOL: '0' }, /REELSHELF_DATABASE_POOL/],
    ['short token', { REELSHELF_API_TOKEN: 'abc' }, /too short/],
    ['missing ffmpeg path', { REELSHELF_FFMPEG: '/nope/ffmpeg' }, /no such file/],
    ['watch', { REELSHELF_WATCH: 'sometimes' }, /REELSHELF_WATCH=sometimes .*on, off/],
    ['trickplay', { REELSHELF_TRICKPLAY: 'yes' }, /REELSHELF_TRICKPLAY=yes .*on, off/],
    [
      'trickplay mode',
      { REELSHELF_TRICKPLAY_MODE: 'fast' },
      /REELSHELF_TRICKPLAY_MODE=fast .*keyframes, accurate/,
    ],
    ['follow symlinks', { REELSHELF_FOLLOW_SYMLINKS: 'yes' }, /REELSHELF_FOLLOW_SYMLINKS=yes .*on, off/],
    ['rescan interval', { REELSHELF_RESCAN_INTERVAL: 'daily' }, /REELSHELF_RESCAN_INTERVAL=daily .*6h/],
    ['rescan interval fraction', { REELSHELF_RESCAN_INTERVAL: '1.5h' }, /REELSHELF_RESCAN_INTERVAL/],
    ['rescan interval too long', { REELSHELF_RESCAN_INTERVAL: '8d' }, /from 1 s to 7 d/],
    ['rescan interval negative', { REELSHELF_RESCAN_INTERVAL: '-1h' }, /REELSHELF_RESCAN_INTERVAL/],
    [
      'accel prefix relative',
      { REELSHELF_ACCEL_REDIRECT: 'internal' },
      /REELSHELF_ACCEL_REDIRECT=internal .*nginx/,
    ],
    ['accel prefix dot segment', { REELSHELF_ACCEL_REDIRECT: '/a/../b/' }, /REELSHELF_ACCEL_REDIRECT/],
  ];
  for (const [name, env, message] of bad) {
    it(`refuses a bad value: ${name}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }

  it('reads the household settings: certification country, trusted proxies, session lifetimes', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [
        defaults.certificationCountry,
        defaults.trustProxy,
        defaults.sessionIdleHours,
        defaults.sessionMaxDays,
      ],
      ['US', false, 12, 30],
    );
    assert.equal(loadConfig({ REELSHELF_CERTIFICATION_COUNTRY: 'gb' }).certificationCountry, 'GB');
    assert.equal(loadConfig({ REELSHELF_TRUST_PROXY: 'on' }).trustProxy, true);
    assert.equal(loadConfig({ REELSHELF_TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ REELSHELF_TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(
      loadConfig({ REELSHELF_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).trustProxy,
      '127.0.0.1,10.0.0.0/8,::1',
    );
    assert.equal(loadConfig({ REELSHELF_SESSION_IDLE_HOURS: '1' }).sessionIdleHours, 1);
    for (const [env, message] of [
      [{ REELSHELF_CERTIFICATION_COUNTRY: 'XX' }, /REELSHELF_CERTIFICATION_COUNTRY=XX .*US/],
      [{ REELSHELF_TRUST_PROXY: 'nginx' }, /REELSHELF_TRUST_PROXY=nginx .*CIDR/],
      [{ REELSHELF_TRUST_PROXY: '10.0.0.0/33' }, /REELSHELF_TRUST_PROXY/],
      [{ REELSHELF_TRUST_PROXY: '11' }, /REELSHELF_TRUST_PROXY/],
      [{ REELSHELF_SESSION_IDLE_HOURS: '0' }, /REELSHELF_SESSION_IDLE_HOURS=0/],
      [{ REELSHELF_SESSION_MAX_DAYS: '366' }, /REELSHELF_SESSION_MAX_DAYS=366/],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
        JSON.stringify(env),
      );
    }
  });

  it('takes a PostgreSQL URL and a pool size', () => {
    const c = loadConfig({
      REELSHELF_DATABASE_URL: 'postgresql://u:p@db:5432/lib',
      REELSHELF_DATABASE_POOL: '4',
    });
    assert.equal(c.databaseUrl, 'postgresql://u:p@db:5432/lib');
    assert.equal(c.databasePool, 4);
    assert.equal(loadConfig({}).databasePool, 10);
  });

  it('never echoes a database password', () => {
    assert.throws(
      () => loadConfig({ REELSHELF_DATABASE_URL: 'mysql://u:secret@h/db' }),
      (err: unknown) => err instanceof Error && !err.message.includes('secret'),
    );
  });
});
