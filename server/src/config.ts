import { existsSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isIP } from 'node:net';
import { normaliseAccelPrefix } from './domain/accel-redirect.ts';
import { NODE_ROLES, type NodeRole } from './domain/jobs/cluster-jobs.ts';
import { personName } from './domain/people/accounts.ts';
import { CERTIFICATION_COUNTRIES } from './domain/people/ratings.ts';

/** Runtime configuration, read once from the environment (see README "Configuration"). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** `sqlite:<file>` (the embedded default) or `postgres://…` / `postgresql://…`. */
  databaseUrl: string;
  /** REELSHELF_DATABASE_POOL: connections this process may hold to PostgreSQL (its pool's max). */
  databasePool: number;
  /**
   * REELSHELF_NODE_ROLE (docs/cluster.md): `all` serves and runs jobs, `api` serves and only
   * enqueues, `worker` runs jobs (and serves too: health, and what a load balancer sends it).
   */
  nodeRole: NodeRole;
  /** Admin bearer token from the environment; when null one is generated and kept in the data dir. */
  apiToken: string | null;
  playbackPolicy: 'adaptive' | 'strict';
  transcode: boolean;
  /** REELSHELF_FFMPEG; null = search the PATH, then the bundled static build (adapters/media-tools). */
  ffmpegPath: string | null;
  /** REELSHELF_FFPROBE; null = the bundled static build, then the PATH (see media-tools.ts). */
  ffprobePath: string | null;
  tmdbApiKey: string | null;
  tmdbBaseUrl: string;
  tmdbImageBaseUrl: string;
  omdbApiKey: string | null;
  omdbBaseUrl: string;
  upcBaseUrl: string;
  artifactCacheMb: number;
  /** Conversion runs (HLS ffmpeg jobs) at once on this machine; the next player gets 503 + Retry-After. */
  maxConversions: number;
  /** An HLS run no player has asked anything of for this long is stopped. */
  hlsIdleSeconds: number;
  /** Encoder threads of one conversion run: the cores shared among the runs. */
  conversionThreads: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** REELSHELF_WATCH: whether library roots are watched for changes (a change is scanned once it settles). */
  watch: boolean;
  /** REELSHELF_RESCAN_INTERVAL in ms: every root is rescanned this often (network shares send no events); null = never. */
  rescanIntervalMs: number | null;
  /**
   * REELSHELF_ACCEL_REDIRECT: the prefix of an `internal` nginx location (`/internal-media/`); a
   * complete file is then answered with X-Accel-Redirect and nginx sends the bytes. null = in-process.
   */
  accelRedirect: string | null;
  /**
   * REELSHELF_FOLLOW_SYMLINKS: whether a symlink in a library root that leads out of it is followed
   * (scanned, listed, streamed). Never into the data dir either way (domain/library-path.ts).
   */
  followSymlinks: boolean;
  /** REELSHELF_CERTIFICATION_COUNTRY: the rating system children's limits are written in (US, GB, DE…). */
  certificationCountry: string;
  /**
   * REELSHELF_TRUST_PROXY, as Fastify's `trustProxy`: false (default: the socket's address is the
   * client's), true (trust every hop), a hop count, or the proxies' addresses/CIDRs. Then the client
   * address (rate limits, logs) and https (Secure cookies) come from X-Forwarded-For/-Proto.
   */
  trustProxy: boolean | number | string;
  /** REELSHELF_SESSION_IDLE_HOURS: a browser session unused this long ends. */
  sessionIdleHours: number;
  /** REELSHELF_SESSION_MAX_DAYS: a browser session ends this long after sign-in, used or not. */
  sessionMaxDays: number;
  /**
   * REELSHELF_JELLYFIN_PORT: the Jellyfin facade at the root of its own port (Jellyfin's 8096, where
   * apps and TVs look first); null = `off` (the facade stays under /jellyfin on the main port).
   */
  jellyfinPort: number | null;
  /** REELSHELF_JELLYFIN_DISCOVERY_PORT: UDP `who is JellyfinServer?` answers (Jellyfin's 7359); null = off. */
  jellyfinDiscoveryPort: number | null;
  /**
   * REELSHELF_DLNA: the household person whose view DLNA TVs get (their limit, resume points and
   * history; DLNA has no sign-in); null = `off`. Only the name's form is checked here: a person not
   * created yet does not stop the server (docs/dlna.md).
   */
  dlnaPerson: string | null;
  /** REELSHELF_DLNA_NAME: the friendly name TVs list the server under. */
  dlnaName: string;
  /**
   * REELSHELF_DLNA_SSDP_PORT: SSDP (announcing and answering searches on UDP 1900, the only port TVs
   * use) while DLNA is on; null = `off` (TVs then find the server only by its description URL).
   * Tests keep it off: SSDP multicasts, and a test multicasts only inside its own network namespace.
   */
  dlnaSsdpPort: number | null;
  /**
   * REELSHELF_TRICKPLAY: whether seek thumbnails are made in the background (after scans, one film
   * at a time, paused while a viewer's conversion runs; docs/trickplay.md "Making and keeping").
   */
  trickplay: boolean;
  /**
   * REELSHELF_TRICKPLAY_MODE: `keyframes` decodes keyframes only (the thumbnail nearest each mark,
   * within half a GOP); `accurate` decodes every frame (the frame at the mark; for long-GOP films).
   */
  trickplayMode: 'keyframes' | 'accurate';
}

/** A configuration value that cannot be used; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function text(env: Env, key: string, fallback: string): string {
  const value = env[key]?.trim();
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, key: string): string | null {
  const value = env[key]?.trim();
  return value === undefined || value === '' ? null : value;
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, key);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${key}=${raw} is not valid: expected a whole number from ${min} to ${max}`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, key: string, fallback: T, allowed: readonly T[]): T {
  const raw = optional(env, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  const found = allowed.find((a) => a === raw);
  if (found === undefined) {
    throw new ConfigError(`${key}=${raw} is not valid: expected one of ${allowed.join(', ')}`);
  }
  return found;
}

/** A TCP/UDP port (0 = any free one, for tests), or `off` → null. */
function portOrOff(env: Env, key: string, fallback: number): number | null {
  const raw = optional(env, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'off') return null;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(
      `${key}=${raw} is not valid: expected a port from 0 to 65535 (0 = any free port), or off`,
    );
  }
  return Number(raw);
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `90s`, `30m`, `6h` or `1d` (a bare number is seconds) in ms; `off` or `0` is null. */
function duration(env: Env, key: string, fallbackMs: number, minMs: number, maxMs: number): number | null {
  const raw = optional(env, key)?.toLowerCase();
  if (raw === undefined) return fallbackMs;
  if (raw === 'off' || raw === '0') return null;
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(raw);
  const ms = match === null ? NaN : Number(match[1]) * (DURATION_UNITS_MS[match[2] ?? 's'] ?? NaN);
  if (!(ms >= minMs && ms <= maxMs)) {
    throw new ConfigError(
      `${key}=${raw} is not valid: expected a duration from ${minMs / 1000} s to ${maxMs / 86_400_000} d such as 30m, 6h or 1d (a bare number is seconds), or off`,
    );
  }
  return ms;
}

function url(env: Env, key: string, fallback: string): string {
  const raw = text(env, key, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${key}=${raw} is not valid: expected an http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${key}=${raw} is not valid: expected an http(s) URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** REELSHELF_TRUST_PROXY: off/on, a hop count (1–10), or proxy addresses and CIDRs (comma-separated). */
function trustProxy(env: Env): boolean | number | string {
  const raw = optional(env, 'REELSHELF_TRUST_PROXY');
  if (raw === null) return false;
  const lower = raw.toLowerCase();
  if (['off', 'false', 'no', '0'].includes(lower)) return false;
  if (['on', 'true', 'yes'].includes(lower)) return true;
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 10) return Number(raw);
  const parts = raw.split(',').map((p) => p.trim());
  const valid = parts.every((part) => {
    const [address = '', bits, extra] = part.split('/');
    if (extra !== undefined || isIP(address) === 0) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128);
  });
  if (!valid) {
    throw new ConfigError(
      `REELSHELF_TRUST_PROXY=${raw} is not valid: expected on, off, a hop count from 1 to 10, or the proxy's addresses/CIDRs separated by commas (127.0.0.1,10.0.0.0/8)`,
    );
  }
  return parts.join(',');
}

function certificationCountry(env: Env): string {
  const raw = text(env, 'REELSHELF_CERTIFICATION_COUNTRY', 'US').toUpperCase();
  if (!CERTIFICATION_COUNTRIES.includes(raw)) {
    throw new ConfigError(
      `REELSHELF_CERTIFICATION_COUNTRY=${raw} is not valid: expected one of ${CERTIFICATION_COUNTRIES.join(', ')}`,
    );
  }
  return raw;
}

/** Longest friendly name: UPnP Device Architecture 1.0 §2.1 ("should be < 64 characters"). */
export const DLNA_NAME_MAX_LENGTH = 64;

/** REELSHELF_DLNA: `off` (default) or a person's name, written as people's names are (domain/people/accounts). */
function dlnaPerson(env: Env): string | null {
  const raw = optional(env, 'REELSHELF_DLNA');
  if (raw === null || raw.toLowerCase() === 'off') return null;
  const name = personName(raw);
  if ('problem' in name) {
    throw new ConfigError(
      `REELSHELF_DLNA=${raw} is not valid: expected off, or the name of a household person (a name ${name.problem})`,
    );
  }
  return name.name;
}

/** REELSHELF_DLNA_NAME: any text up to 64 characters, no control characters. */
function dlnaName(env: Env): string {
  const raw = optional(env, 'REELSHELF_DLNA_NAME')?.normalize('NFC') ?? null;
  // The default takes the host name, which may itself be long: cut, never refused.
  if (raw === null) return [...`reelshelf on ${hostname()}`].slice(0, DLNA_NAME_MAX_LENGTH).join('');
  if ([...raw].length > DLNA_NAME_MAX_LENGTH || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ConfigError(
      `REELSHELF_DLNA_NAME=${raw.slice(0, 80)} is not valid: expected a name of at most ${DLNA_NAME_MAX_LENGTH} characters without control characters`,
    );
  }
  return raw;
}

/** A database URL fit for a message or a log: the password (anything between // and @) hidden. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Reads and validates the configuration.
 * @param env the environment (process.env in production, a literal in tests).
 * @returns the validated config; throws ConfigError with a clear message on a bad value.
 */
export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(text(env, 'REELSHELF_DATA_DIR', './data'));
  const databaseUrl = text(env, 'REELSHELF_DATABASE_URL', `sqlite:${resolve(dataDir, 'reelshelf.sqlite')}`);
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(
      `REELSHELF_DATABASE_URL=${redactDatabaseUrl(databaseUrl)} is not valid: expected sqlite:<file> or postgres://user:password@host:port/database`,
    );
  }
  const databasePool = integer(env, 'REELSHELF_DATABASE_POOL', 10, 1, 200);
  const apiToken = optional(env, 'REELSHELF_API_TOKEN');
  if (apiToken !== null && apiToken.length < 16) {
    throw new ConfigError('REELSHELF_API_TOKEN is too short: use at least 16 characters');
  }
  const host = text(env, 'REELSHELF_HOST', '0.0.0.0');
  const ffmpegPath = optional(env, 'REELSHELF_FFMPEG');
  const ffprobePath = optional(env, 'REELSHELF_FFPROBE');
  for (const [key, value] of [
    ['REELSHELF_FFMPEG', ffmpegPath],
    ['REELSHELF_FFPROBE', ffprobePath],
  ] as const) {
    if (value !== null && isAbsolute(value) && !existsSync(value)) {
      throw new ConfigError(`${key}=${value} is not valid: no such file`);
    }
  }
  const accelRaw = optional(env, 'REELSHELF_ACCEL_REDIRECT');
  const accelRedirect = accelRaw === null ? null : normaliseAccelPrefix(accelRaw);
  if (accelRaw !== null && accelRedirect === null) {
    throw new ConfigError(
      `REELSHELF_ACCEL_REDIRECT=${accelRaw} is not valid: expected the path of an internal nginx location such as /internal-media/ (letters, digits, - _ . ~ segments)`,
    );
  }
  const port = integer(env, 'REELSHELF_PORT', 8787, 0, 65535);
  const jellyfinPort = portOrOff(env, 'REELSHELF_JELLYFIN_PORT', 8096);
  if (jellyfinPort !== null && jellyfinPort !== 0 && jellyfinPort === port) {
    throw new ConfigError(
      `REELSHELF_JELLYFIN_PORT=${jellyfinPort} is not valid: it is REELSHELF_PORT too; choose another port, or off (the facade stays under /jellyfin on the main port)`,
    );
  }
  const cores = availableParallelism();
  const maxConversions = integer(
    env,
    'REELSHELF_MAX_CONVERSIONS',
    Math.max(1, Math.floor(cores / 2)),
    1,
    256,
  );
  return {
    host,
    port,
    dataDir,
    databaseUrl,
    databasePool,
    apiToken,
    playbackPolicy: oneOf(env, 'REELSHELF_PLAYBACK_POLICY', 'adaptive', ['adaptive', 'strict'] as const),
    transcode: oneOf(env, 'REELSHELF_TRANSCODE', 'on', ['on', 'off'] as const) === 'on',
    ffmpegPath,
    ffprobePath,
    tmdbApiKey: optional(env, 'REELSHELF_TMDB_API_KEY'),
    tmdbBaseUrl: url(env, 'REELSHELF_TMDB_BASE_URL', 'https://api.themoviedb.org/3'),
    tmdbImageBaseUrl: url(env, 'REELSHELF_TMDB_IMAGE_BASE_URL', 'https://image.tmdb.org/t/p'),
    omdbApiKey: optional(env, 'REELSHELF_OMDB_API_KEY'),
    omdbBaseUrl: url(env, 'REELSHELF_OMDB_BASE_URL', 'https://www.omdbapi.com/'),
    upcBaseUrl: url(env, 'REELSHELF_UPC_BASE_URL', 'https://api.upcitemdb.com/prod/trial'),
    artifactCacheMb: integer(env, 'REELSHELF_ARTIFACT_CACHE_MB', 20480, 16, 100_000_000),
    maxConversions,
    hlsIdleSeconds: integer(env, 'REELSHELF_HLS_IDLE_SECONDS', 60, 1, 86_400),
    conversionThreads: Math.max(1, Math.floor(cores / maxConversions)),
    logLevel: oneOf(env, 'REELSHELF_LOG_LEVEL', 'info', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ] as const),
    bodyLimitBytes: 1024 * 1024,
    watch: oneOf(env, 'REELSHELF_WATCH', 'on', ['on', 'off'] as const) === 'on',
    // At most 7 days: a longer delay overflows Node's timers.
    rescanIntervalMs: duration(env, 'REELSHELF_RESCAN_INTERVAL', 6 * 3_600_000, 1000, 7 * 86_400_000),
    accelRedirect,
    followSymlinks: oneOf(env, 'REELSHELF_FOLLOW_SYMLINKS', 'on', ['on', 'off'] as const) === 'on',
    certificationCountry: certificationCountry(env),
    trustProxy: trustProxy(env),
    sessionIdleHours: integer(env, 'REELSHELF_SESSION_IDLE_HOURS', 12, 1, 24 * 30),
    sessionMaxDays: integer(env, 'REELSHELF_SESSION_MAX_DAYS', 30, 1, 365),
    jellyfinPort,
    jellyfinDiscoveryPort: portOrOff(env, 'REELSHELF_JELLYFIN_DISCOVERY_PORT', 7359),
    dlnaPerson: dlnaPerson(env),
    dlnaName: dlnaName(env),
    dlnaSsdpPort: portOrOff(env, 'REELSHELF_DLNA_SSDP_PORT', 1900),
    trickplay: oneOf(env, 'REELSHELF_TRICKPLAY', 'on', ['on', 'off'] as const) === 'on',
    nodeRole: oneOf(env, 'REELSHELF_NODE_ROLE', 'all', NODE_ROLES),
    trickplayMode: oneOf(env, 'REELSHELF_TRICKPLAY_MODE', 'keyframes', ['keyframes', 'accurate'] as const),
  };
}
