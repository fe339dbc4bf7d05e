import compress from '@fastify/compress';
import { CONTRACT_BUNDLE } from '@reelshelf/contract';
import { Ajv } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Services } from '../services/index.ts';
import { CREDENTIAL_QUERY_PARAMS, looksLikeKey } from '../domain/people/api-keys.ts';
import { AppError } from '../errors.ts';
import { bearerToken, registerAuth } from './plugins/auth.ts';
import { registerContractHeaders } from './plugins/contract-headers.ts';
import { frameworkErrorReply, registerErrorHandling } from './plugins/error-handler.ts';
import { registerRefusedBodyDrain } from './plugins/refused-body.ts';
import { registerSession, SessionCookies } from './plugins/session.ts';
import { registerVisibilityGuard } from './plugins/visibility-guard.ts';
import { registerPeopleRoutes } from './routes/people.routes.ts';
import { isPageRequest, Pages } from './pages/pages.routes.ts';
import { registerDeviceRoutes, registerLibraryRoutes } from './routes/library.routes.ts';
import { registerArtworkRoutes } from './routes/artwork.routes.ts';
import { registerBarcodeRoutes } from './routes/barcode.routes.ts';
import { registerImportExportRoutes } from './routes/import-export.routes.ts';
import { registerJobRoutes } from './routes/jobs.routes.ts';
import { registerTrickplayJobRoutes } from './routes/trickplay.routes.ts';
import { registerLibraryRootRoutes } from './routes/library-roots.routes.ts';
import { registerMovieRoutes } from './routes/movies.routes.ts';
import { registerPlaybackRoutes } from './routes/playback.routes.ts';
import { registerHlsRoutes } from './routes/hls.routes.ts';
import { registerStreamRoutes } from './routes/stream.routes.ts';
import { registerSubtitleRoutes } from './routes/subtitles.routes.ts';
import { registerTrickplayStreamRoutes } from './routes/trickplay-stream.routes.ts';
import { registerPlayRoutes } from './routes/plays.routes.ts';
import { registerBinderRoutes } from './routes/binders.routes.ts';
import { registerStatsRoutes } from './routes/stats.routes.ts';
import { registerWishRoutes } from './routes/wishes.routes.ts';
import { registerLoanRoutes } from './routes/loans.routes.ts';
import { registerShelfReportRoutes } from './routes/shelf-reports.routes.ts';
import { registerSystemRoutes } from './routes/system.routes.ts';
import { hostname } from 'node:os';
import { isJellyfinUrl, jellyfinPrincipal, rewriteJellyfinUrl } from './jellyfin/credentials.ts';
import { registerJellyfinRoutes } from './jellyfin/jellyfin.routes.ts';
import { registerDlnaRoutes } from './dlna/dlna.routes.ts';

/** Time a client has to send its request headers (nginx's client_header_timeout). */
export const HEADERS_TIMEOUT_MS = 60_000;
/** How often Node checks the requests in progress against those times. */
const TIMEOUT_CHECK_MS = 5_000;
/** Time a client has to send a whole request, body included (a 40 MiB import on a slow link). */
export const REQUEST_TIMEOUT_MS = 600_000;

export interface HttpOptions {
  apiToken: string;
  logLevel: string;
  bodyLimitBytes: number;
  /** REELSHELF_ACCEL_REDIRECT: the nginx location complete files are handed to; null = sent in-process. */
  accelRedirect: string | null;
  /** REELSHELF_TRUST_PROXY, handed to Fastify's `trustProxy` (client address and protocol from X-Forwarded-*). */
  trustProxy?: boolean | number | string;
  /** REELSHELF_SESSION_MAX_DAYS: how long the session cookie lives. */
  sessionMaxDays?: number;
  /** Test seam: the slow-client limits at a scale a test can wait for (production: the constants). */
  timeouts?: HttpTimeouts;
}

/** How long a client may take to send its request headers, then its whole request; how often it is checked. */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  checkMs: number;
}

/** The production slow-client limits (both ports). */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: HEADERS_TIMEOUT_MS,
  requestMs: REQUEST_TIMEOUT_MS,
  checkMs: TIMEOUT_CHECK_MS,
};

/** The name the Jellyfin facade gives itself (System/Info/Public, sign-in, UDP discovery). */
export const JELLYFIN_SERVER_NAME = `reelshelf on ${hostname()}`;

const CREDENTIAL_NAMES: ReadonlySet<string> = new Set(CREDENTIAL_QUERY_PARAMS);

/** A query key as the query parser reads it (percent-decoded), lower case; the raw key if it does not decode. */
function queryKeyOf(raw: string): string {
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * A URL as logged: the value of every credential-like query parameter (`token`, `api_key`,
 * `ApiKey`…, in any case) is replaced by `[redacted]`. Keys are compared as the query parser reads
 * them — percent-decoded — since `api%5Fkey=…` reaches the routes as `api_key` too.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1 || !CREDENTIAL_NAMES.has(queryKeyOf(pair.slice(0, equals)))) return pair;
      return `${pair.slice(0, equals)}=[redacted]`;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}

/**
 * Adapts a 2020-12 contract schema to Fastify's serializer (fast-json-stringify): the draft marker
 * goes, and a free-form object (`{"type":"object"}` with no properties, e.g. `capabilities`) is
 * spelled `additionalProperties: true`, because the serializer would otherwise drop its members.
 */
export function forSerializer(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerializer);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== '$schema') out[key] = forSerializer(value);
  }
  if (out.type === 'object' && out.properties === undefined && out.additionalProperties === undefined) {
    out.additionalProperties = true;
  }
  return out;
}

/** The HTTP application: plugins, the contract's schemas, and thin routes over the services. */
export function buildHttpApp(services: Services, options: HttpOptions): FastifyInstance {
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const app = Fastify({
    logger: {
      level: options.logLevel,
      // The req serializer below logs only the method and the redacted URL; these paths guard any
      // log line that carries headers anyway (every header a Jellyfin app sends a token in).
      redact: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-emby-authorization"]',
        'req.headers["x-emby-token"]',
        'req.headers["x-mediabrowser-token"]',
      ],
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }),
      },
    },
    bodyLimit: options.bodyLimitBytes,
    // The router's own errors (a bad %-escape, an over-long id) as ApiError JSON too.
    frameworkErrors: frameworkErrorReply,
    // The Jellyfin facade's paths are case-insensitive and tolerate /emby (http/jellyfin/credentials.ts).
    rewriteUrl: (req) => rewriteJellyfinUrl(req.url ?? '/'),
    // A hop count trusts that many proxies in front (proxy-addr's function form of a number).
    trustProxy:
      typeof options.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(options.trustProxy)
        : (options.trustProxy ?? false),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Slow clients are timed out as nginx does: the request headers within 60 s (a connection that
    // sends none is closed too; Node answers 408; checked every 5 s),
    // the whole request (an upload) within 10 minutes. Responses are never timed: a stream of a
    // two-hour film, or a paused player that stops reading, keeps its connection (no socket idle
    // timeout); an idle keep-alive connection closes after 72 s.
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkMs },
    requestTimeout: timeouts.requestMs,
    connectionTimeout: 0,
  });

  // Bodies are checked strictly (no coercion: "1999" is not a year); query strings and params
  // arrive as text, so they are coerced.
  const bodyAjv = new Ajv({
    allErrors: false,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
  });
  const queryAjv = new Ajv({
    allErrors: false,
    coerceTypes: 'array',
    removeAdditional: false,
    useDefaults: true,
  });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema),
  );
  for (const schema of Object.values(CONTRACT_BUNDLE.schemas)) app.addSchema(forSerializer(schema) as object);

  // A 10,000-movie library is ~4 MB of JSON and ~0.15 MB gzipped; media streams are never compressed.
  app.register(compress, {
    global: true,
    threshold: 4096,
    encodings: ['gzip', 'deflate'],
    customTypes: /^(application\/json|text\/)/,
    // Level 3 gzips a 4 MB listing in ~13 ms instead of ~30 ms (level 6) for 15% more bytes: on a home
    // network the CPU time is what a person waits for.
    zlibOptions: { level: 3 },
  });
  // JSON is the API's only body type unless a route registers its own (CSV import does).
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  // A refused upload's answer must reach the client: drain its body instead of resetting the socket.
  registerRefusedBodyDrain(app);
  // Every write committed before this request (by any node) reaches the caches before it reads them.
  const changes = services.changes;
  if (changes !== undefined) app.addHook('onRequest', () => changes.catchUp());
  // Keys travel in the Authorization header only: a URL ends up in logs, history and shared links.
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const query = request.query as Record<string, unknown> | undefined;
    const names = Object.keys(query ?? {}).map((n) => n.toLowerCase());
    const found = CREDENTIAL_QUERY_PARAMS.find((p) => names.includes(p));
    if (found === undefined) return;
    throw new AppError('unauthorized', {
      message: `A credential in the query string (${found}=) is not accepted on the API.`,
      hint: 'Send it as Authorization: Bearer <key>; a key in a URL ends up in logs and browser history.',
      extra: { parameter: found },
    });
  });
  // Browsers sign in with a name and password (a session cookie + CSRF token, kept in the
  // database); API clients send a bearer token: the admin token or a key.
  const cookies = new SessionCookies(services.sessions, (options.sessionMaxDays ?? 30) * 86_400);
  registerAuth(app, {
    resolve: async (request) => {
      // Jellyfin apps send MediaBrowser headers (or X-Emby-Token, api_key): read in one place.
      if (isJellyfinUrl(request.url)) return jellyfinPrincipal(request, services.sessions);
      const token = bearerToken(request);
      if (token === null) return cookies.authenticate(request);
      const principal = await services.authentication.bearer(token, request.ip);
      if (principal === null) {
        request.log.warn(
          { address: request.ip, account: null, credential: looksLikeKey(token) ? 'key' : 'token' },
          'bearer token refused',
        );
      }
      return principal;
    },
    isPage: isPageRequest,
    unmatchedAccess: (request) => (isJellyfinUrl(request.url) ? 'public' : 'admin'),
  });
  registerSession(app, cookies);
  const pages = new Pages(services, cookies);
  // After the auth hook: a film the person may not see is a missing id on every by-id route.
  registerVisibilityGuard(app, { visibility: services.visibility, pageNotFound: pages.notFoundPage });
  registerContractHeaders(app);
  // Routes live in a child context registered after compress, so its onRoute hook sees them.
  app.register(async (api) => {
    registerSystemRoutes(api, services.status, services.nodes);
    registerJellyfinRoutes(api, {
      sessions: services.sessions,
      ids: services.jellyfin.ids,
      library: services.jellyfin,
      playback: {
        playback: services.jellyfinPlayback,
        streams: services.streams,
        hls: services.hls,
        plays: services.plays,
      },
      playstate: services.jellyfinPlaystate,
      plays: services.plays,
      users: services.users,
      certificationCountry: services.visibility.country,
      images: services.jellyfinImages,
      trickplay: services.jellyfinTrickplay,
      serverName: JELLYFIN_SERVER_NAME,
    });
    registerMovieRoutes(api, services.movies, services.visibility);
    registerLibraryRoutes(api, services.listing, services.devices, pages.library);
    registerDeviceRoutes(api, services.devices);
    registerLibraryRootRoutes(api, services.roots, services.scans, services.watch);
    registerStreamRoutes(api, services.streams, services.artifacts, services.plays, options.accelRedirect);
    registerPlaybackRoutes(api, services.playback);
    registerHlsRoutes(api, services.hls, services.streams, services.tokens, services.plays);
    registerSubtitleRoutes(api, services.subtitles, services.streams);
    registerTrickplayStreamRoutes(api, services.trickplayServing, services.streams);
    registerPlayRoutes(api, services.plays, services.watch, services.visibility);
    pages.register(api);
    registerArtworkRoutes(api, services.artwork);
    registerBarcodeRoutes(api, services.barcodes);
    registerBinderRoutes(api, services.binders, services.visibility);
    registerStatsRoutes(api, services.stats);
    registerWishRoutes(api, services.wishes);
    registerLoanRoutes(api, services.loans, services.visibility);
    registerShelfReportRoutes(api, services.shelfReports, services.visibility);
    registerImportExportRoutes(api, services.importExport);
    registerJobRoutes(api, services.jobViews);
    registerTrickplayJobRoutes(api, services.trickplayJobs);
    registerDlnaRoutes(api, services.dlna);
    registerPeopleRoutes(api, {
      users: services.users,
      sessions: services.sessions,
      keys: services.keys,
      cookies,
    });
  });
  return app;
}
