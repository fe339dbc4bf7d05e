import compress from '@fastify/compress';
import { CONTRACT_BUNDLE } from '@reelshelf/contract';
import { Ajv } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Services } from '../services/index.ts';
import { bearerToken, registerAuth, secretsEqual } from './plugins/auth.ts';
import { registerContractHeaders } from './plugins/contract-headers.ts';
import { registerErrorHandling } from './plugins/error-handler.ts';
import { registerRefusedBodyDrain } from './plugins/refused-body.ts';
import { registerSession, SessionManager } from './plugins/session.ts';
import { isPageRequest, Pages } from './pages/pages.routes.ts';
import { registerDeviceRoutes, registerLibraryRoutes } from './routes/library.routes.ts';
import { registerArtworkRoutes } from './routes/artwork.routes.ts';
import { registerBarcodeRoutes } from './routes/barcode.routes.ts';
import { registerImportExportRoutes } from './routes/import-export.routes.ts';
import { registerJobRoutes } from './routes/jobs.routes.ts';
import { registerLibraryRootRoutes } from './routes/library-roots.routes.ts';
import { registerMovieRoutes } from './routes/movies.routes.ts';
import { registerPlaybackRoutes } from './routes/playback.routes.ts';
import { registerHlsRoutes } from './routes/hls.routes.ts';
import { registerStreamRoutes } from './routes/stream.routes.ts';
import { registerSubtitleRoutes } from './routes/subtitles.routes.ts';
import { registerPlayRoutes } from './routes/plays.routes.ts';
import { registerSystemRoutes } from './routes/system.routes.ts';

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
  /** Test seam: the slow-client limits at a scale a test can wait for (production: the constants). */
  timeouts?: HttpTimeouts;
}

/** How long a client may take to send its request headers, then its whole request; how often it is checked. */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  checkMs: number;
}

/** Query strings and any credential-like parameter are scrubbed from logged URLs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|api_key|apikey)=)[^&]*/gi, '$1[redacted]');
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
  const timeouts = options.timeouts ?? {
    headersMs: HEADERS_TIMEOUT_MS,
    requestMs: REQUEST_TIMEOUT_MS,
    checkMs: TIMEOUT_CHECK_MS,
  };
  const app = Fastify({
    logger: {
      level: options.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }),
      },
    },
    bodyLimit: options.bodyLimitBytes,
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
  // Browsers sign in once (session cookie + CSRF token); API clients send the bearer token.
  const sessions = new SessionManager(options.apiToken);
  registerAuth(app, {
    resolve: async (request) => {
      const token = bearerToken(request);
      if (token !== null) {
        if (secretsEqual(token, options.apiToken)) return services.authentication.adminTokenPrincipal();
        // STOPGAP (people/auth replaces this resolve): a stored session secret or key.
        return services.storedBearers.principal(token);
      }
      if (!sessions.authenticate(request)) return null;
      const admin = await services.authentication.adminTokenPrincipal();
      return { ...admin, credential: { kind: 'session', id: null, scope: 'full' } };
    },
    isPage: isPageRequest,
  });
  registerSession(app, sessions);
  const pages = new Pages(services, sessions, options.apiToken);
  registerContractHeaders(app);
  // Routes live in a child context registered after compress, so its onRoute hook sees them.
  app.register(async (api) => {
    registerSystemRoutes(api, services.status);
    registerMovieRoutes(api, services.movies);
    registerLibraryRoutes(api, services.listing, services.devices, pages.library);
    registerDeviceRoutes(api, services.devices);
    registerLibraryRootRoutes(api, services.roots, services.scans, services.watch);
    registerStreamRoutes(api, services.streams, services.artifacts, services.plays, options.accelRedirect);
    registerPlaybackRoutes(api, services.playback);
    registerHlsRoutes(api, services.hls, services.streams, services.tokens, services.plays);
    registerSubtitleRoutes(api, services.subtitles, services.streams);
    registerPlayRoutes(api, services.plays, services.watch);
    pages.register(api);
    registerArtworkRoutes(api, services.artwork);
    registerBarcodeRoutes(api, services.barcodes);
    registerImportExportRoutes(api, services.importExport);
    registerJobRoutes(api, services.jobViews);
  });
  return app;
}
