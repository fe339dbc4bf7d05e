import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LibraryMovieItem, MovieDetail, ScanReport } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readBundledFilesSync, readPackageFileSync } from '../../adapters/file-system.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import type { SearchOptions } from '../../services/library/movie.service.ts';
import type { PlaybackInfo } from '../../services/playback/playback.service.ts';
import type { CertificationFilter } from '../../domain/people/visibility.ts';
import type { ListingViewer } from '../../services/library/library.service.ts';
import { principalOf, principalOrNull } from '../principal.ts';
import { cookieHeader, isHttps, parseCookies, type SessionCookies } from '../plugins/session.ts';
import { signInLogged } from '../routes/people.routes.ts';
import { registerPeoplePages } from './people.pages.ts';
import { registerBinderPages } from './binders.page.ts';
import { registerStatsPages } from './stats.page.ts';
import { registerWishPages } from './wishes.page.ts';
import { registerLoanPages } from './loans.page.ts';
import { registerShelfReportPages } from './shelf-reports.page.ts';
import { prefersHtml } from './accept.ts';
import { type Html, html } from './html.ts';
import { layout } from './layout.ts';
import { type DeviceChoice, type LibraryPageData, libraryPage } from './library.page.ts';
import {
  buildLibraryView,
  type LibraryQuery,
  type LibraryView,
  PAGE_SIZE,
  parseLibraryQuery,
  searchResultView,
  searchStatusView,
} from './library-view.ts';
import { importPage } from './import.page.ts';
import { BROWSER_DEVICES, moviePage } from './movie.page.ts';
import { type ScanPageData, scanPage } from './scan.page.ts';
import { safeNext, signInPage } from './sign-in.page.ts';
import { continueRow, historyPage, nowPlayingPage } from './plays.page.ts';
import { sendBytes } from '../stream-response.ts';
import { formField as field, positiveId } from './forms.ts';

/** What the pages read and do: the same services the API uses. */
export type PageServices = Pick<
  Services,
  | 'library'
  | 'movies'
  | 'devices'
  | 'roots'
  | 'scans'
  | 'playback'
  | 'status'
  | 'users'
  | 'sessions'
  | 'keys'
  | 'dlna'
  | 'nodes'
  | 'visibility'
  | 'watch'
  | 'plays'
  | 'binders'
  | 'stats'
  | 'wishes'
  | 'loans'
  | 'shelfReports'
>;

/** The device the pages show playback for, remembered between pages (not a secret). */
export const DEVICE_COOKIE = 'reelshelf_device';
const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

/**
 * Pages allow only their own scripts and styles; data can never run as code. `media-src blob:` lets
 * hls.js hand the <video> its MediaSource (a blob: URL); its worker is off, so no worker-src.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' https: data:; media-src 'self' blob:; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const ASSET_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
  version: string;
}

/**
 * Scripts of npm packages the pages load, served as `/assets/vendor/<name>` from the installed
 * package (no CDN: the pages work on a LAN without internet, and the CSP allows only 'self').
 */
const VENDOR_ASSETS: Record<string, string> = {
  'hls.min.js': 'hls.js/dist/hls.min.js',
};

function asset(name: string, body: Buffer): Asset | null {
  const type = ASSET_TYPES[extname(name)];
  if (type === undefined) return null;
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/**
 * The files of server/src/http/assets plus the vendor scripts (as `vendor/<name>`), read once
 * (a fixed list: no path ever reaches the disk).
 */
function loadAssets(): Map<string, Asset> {
  const dir = fileURLToPath(new URL('../assets/', import.meta.url));
  const out = new Map<string, Asset>();
  for (const { name, bytes } of readBundledFilesSync(dir)) {
    const found = asset(name, bytes);
    if (found !== null) out.set(name, found);
  }
  for (const [name, specifier] of Object.entries(VENDOR_ASSETS)) {
    const found = asset(name, readPackageFileSync(specifier));
    if (found !== null) out.set(`vendor/${name}`, found);
  }
  return out;
}

/** The pages (GET) outside `/library`: every one a person opens in a browser, the shelf's too. */
const PAGE_PATHS = new Set([
  '/',
  '/scan',
  '/import',
  '/history',
  '/now-playing',
  '/who',
  '/people',
  '/loans',
  '/binders',
  '/wishes',
  '/stats',
  '/stats/year',
  '/rip-queue',
  '/upgrades',
]);
const PAGE_PREFIXES = ['/movie/', '/binders/'];
/** The pages' form posts. */
const FORM_PATHS = new Set(['/sign-out', '/wishes']);
const FORM_PREFIXES = ['/scan/', '/who/', '/people/', '/now-playing/', '/loans/', '/binders/', '/wishes/'];

/**
 * True for a request a person makes in a browser: without auth it is sent to the sign-in page
 * (303) instead of getting a 401 JSON body. `/library` is a page only when HTML is preferred.
 */
export function isPageRequest(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0] ?? '/';
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (PAGE_PATHS.has(path) || PAGE_PREFIXES.some((prefix) => path.startsWith(prefix))) return true;
    return path === '/library' && prefersHtml(request.headers.accept);
  }
  return request.method === 'POST' && (FORM_PATHS.has(path) || FORM_PREFIXES.some((p) => path.startsWith(p)));
}

/** The HTML pages: sign-in, library, movie, scan, and the static assets they load. */
export class Pages {
  private readonly assets = loadAssets();

  constructor(
    private readonly services: PageServices,
    private readonly sessions: SessionCookies,
  ) {}

  /** `/assets/<name>?v=<content hash>`: a changed file gets a new URL, so it may be cached long. */
  readonly assetUrl = (name: string): string => {
    const asset = this.assets.get(name);
    return asset === undefined ? `/assets/${name}` : `/assets/${name}?v=${asset.version}`;
  };

  /** Sends a page with the headers every page carries (for the people pages too). */
  send(reply: FastifyReply, status: number, body: string): FastifyReply {
    return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
  }

  /** The CSRF token of the session that authenticated the request ('' for a bearer or none). */
  csrf(request: FastifyRequest): string {
    const session = this.sessions.authenticatedBy(request);
    return session === null ? '' : this.sessions.csrfToken(session);
  }

  /** A page inside the layout (navigation, sign-out, the signed-in person). */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    options: {
      status?: number;
      title: string;
      current?: string;
      body: Html;
      scripts?: string[];
      head?: Html;
    },
  ): FastifyReply {
    const principal = principalOrNull(request);
    const doc = layout({
      title: options.title,
      csrf: this.csrf(request),
      ...(principal === null ? {} : { person: { name: principal.name, admin: principal.role === 'admin' } }),
      body: options.body,
      assetUrl: this.assetUrl,
      ...(options.current === undefined ? {} : { current: options.current }),
      ...(options.scripts === undefined ? {} : { scripts: options.scripts }),
      ...(options.head === undefined ? {} : { head: options.head }),
    });
    return this.send(reply, options.status ?? 200, doc);
  }

  /** The not-found page (the visibility guard's answer for a film hidden from the person). */
  readonly notFoundPage = (request: FastifyRequest, reply: FastifyReply, what: string): FastifyReply =>
    this.notFound(request, reply, what);

  private notFound(request: FastifyRequest, reply: FastifyReply, what: string): FastifyReply {
    return this.page(request, reply, {
      status: 404,
      title: 'Not found',
      body: html`<h1>Not found</h1>
        <p>${what}</p>
        <p><a href="/library">Back to the library</a></p>`,
    });
  }

  private deviceChoices(): DeviceChoice[] {
    return this.services.devices.list().map((d) => ({ id: d.id, name: d.name }));
  }

  /**
   * The device to show: `?device=` when it names a known profile (then remembered in a cookie),
   * else the remembered one, else `web`. An unknown value is ignored rather than an error page.
   */
  private device(request: FastifyRequest, reply: FastifyReply): string {
    const known = new Set(this.services.devices.ids());
    const asked: unknown = (request.query as Record<string, unknown> | undefined)?.device;
    if (typeof asked === 'string' && known.has(asked)) {
      if (parseCookies(request.headers.cookie).get(DEVICE_COOKIE) !== asked) {
        reply.header(
          'set-cookie',
          cookieHeader(DEVICE_COOKIE, asked, {
            maxAgeSeconds: DEVICE_COOKIE_MAX_AGE,
            secure: isHttps(request),
          }),
        );
      }
      return asked;
    }
    const remembered = parseCookies(request.headers.cookie).get(DEVICE_COOKIE);
    return remembered !== undefined && known.has(remembered) ? remembered : 'web';
  }

  /** GET /library with Accept: text/html (called by the /library route, which also serves JSON). */
  readonly library = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const query = parseLibraryQuery(request.query);
    const device = this.device(request, reply);
    // The person's own state, and stream URLs signed for their credential; only what they may see.
    const viewer = principalOf(request);
    const view = await this.search(query, device, viewer, this.services.visibility.filter(viewer));
    let data: Pick<LibraryPageData, 'view' | 'healthSummary' | 'systemWarning'>;
    if (view !== null) {
      // The health line sums up the whole library, which a search page does not build.
      data = { view, healthSummary: null, systemWarning: this.services.status.systemWarning() };
    } else {
      const library = await this.services.library.getLibrary(viewer, device);
      data = {
        view: buildLibraryView(library, query),
        healthSummary: library.health_summary ?? null,
        systemWarning: library.system_warning ?? null,
      };
    }
    // The person's films to continue, on top of the plain first page.
    const plain = query.q === '' && query.page === 1;
    const resume = plain
      ? await this.services.watch.continueWatching(viewer.userId, 12, this.services.visibility.filter(viewer))
      : [];
    return this.page(request, reply, {
      title: query.q === '' ? 'Library' : `“${query.q}” in the library`,
      current: 'library',
      body: libraryPage({
        ...data,
        device,
        devices: this.deviceChoices(),
        continueRow: continueRow(resume),
      }),
    });
  };

  /**
   * A search on the library page, through the search index; only matching movies are presented,
   * never the whole listing. Without a status filter: one page of matching ids. With one (a badge
   * depends on each movie's playback on the device): every match, narrowed here. Null without a
   * word to search for (then the page is the plain listing).
   */
  private async search(
    query: LibraryQuery,
    device: string,
    viewer: ListingViewer,
    visible: CertificationFilter | null,
  ): Promise<LibraryView | null> {
    if (query.q === '') return null;
    const { movies } = this.services;
    const options: SearchOptions = {
      order: query.sort,
      visible,
      ...(query.format === '' ? {} : { format: query.format }),
      ...(query.binder === '' ? {} : { binder: query.binder }),
      ...(query.on_loan ? { onLoan: true } : {}),
    };
    if (query.badge !== '') {
      const ids = await movies.searchAll(query.q, options);
      if (ids === null) return null;
      const [items, facets] = await Promise.all([
        this.present(ids, device, viewer),
        movies.listingFacets(visible),
      ]);
      return searchStatusView(query, items, facets);
    }
    const found = await movies.searchPage(query.q, options, PAGE_SIZE, query.page);
    if (found === null) return null;
    const [items, facets] = await Promise.all([
      this.present(found.ids, device, viewer),
      movies.listingFacets(visible),
    ]);
    return searchResultView(query, { items, matched: found.matched, page: found.page }, facets);
  }

  /** These movies' items as /library lists them, in the order of `ids`. */
  private async present(
    ids: readonly number[],
    device: string,
    viewer: ListingViewer,
  ): Promise<LibraryMovieItem[]> {
    const { movies } = await this.services.library.presentMovies(viewer, device, ids);
    const byId = new Map(movies.map((p) => [p.item.movie_id, p.item]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  private async movie(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const id = positiveId(request.params.id);
    if (id === null) return this.notFound(request, reply, 'There is no such movie.');
    let movie: MovieDetail;
    try {
      movie = await this.services.movies.get(id);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) {
        return this.notFound(request, reply, `There is no movie with id ${id}.`);
      }
      throw err;
    }
    const device = this.device(request, reply);
    const viewer = principalOf(request);
    const item: LibraryMovieItem | null = await this.services.library.getMovieItem(viewer, id, device);
    // Which URL each edition's player opens (HLS for conversions), as GET …/playback answers it.
    const playback = new Map<number, PlaybackInfo>();
    if (BROWSER_DEVICES.has(device)) {
      for (const e of item?.editions ?? []) {
        const info = await this.services.playback.info(e.media_file_id, device, viewer).catch(() => null);
        if (info !== null) playback.set(e.media_file_id, info);
      }
    }
    return this.page(request, reply, {
      title: movie.title,
      current: 'library',
      body: moviePage({
        movie,
        item,
        device,
        devices: this.deviceChoices(),
        playback,
        loans: {
          items: await this.services.loans.ofMovie(id, this.services.visibility.filter(viewer)),
          admin: viewer.role === 'admin',
          csrf: this.csrf(request),
        },
      }),
      // hls.js first: movie.js finds it on window.Hls (plain scripts run in order).
      scripts: ['vendor/hls.min.js', 'movie.js', 'seek-thumbnails.js'],
    });
  }

  private async scan(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Pick<ScanPageData, 'addError' | 'addValues'> & { status?: number } = {},
  ) {
    const scanId = positiveId((request.query as Record<string, unknown> | undefined)?.scan);
    let scan: ScanReport | null = null;
    if (scanId !== null) scan = await this.services.scans.report(scanId).catch(() => null);
    const body = scanPage({
      roots: await this.services.roots.list(),
      csrf: this.csrf(request),
      scan,
      ...extra,
    });
    return this.page(request, reply, {
      status: extra.status ?? 200,
      title: 'Scan folders',
      current: 'scan',
      body,
      scripts: ['scan.js'],
      // Without JavaScript, a running scan's page reloads itself to show progress.
      ...(scan?.status === 'running'
        ? { head: html`<noscript><meta http-equiv="refresh" content="2" /></noscript>` }
        : {}),
    });
  }

  private signIn(
    reply: FastifyReply,
    next: string,
    error: { message: string; status: number; name: string } | null,
  ) {
    return this.send(
      reply,
      error === null ? 200 : error.status,
      layout({
        title: 'Sign in',
        csrf: null,
        body: signInPage(next, error === null ? null : error.message, error?.name ?? ''),
        assetUrl: this.assetUrl,
      }),
    );
  }

  /** Registers every page route in its own scope, which also accepts HTML form posts. */
  register(app: FastifyInstance): void {
    app.register(async (scope) => {
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 64 * 1024 },
        (_request, body, done) => {
          done(null, Object.fromEntries(new URLSearchParams(String(body))));
        },
      );

      scope.get('/', async (_request, reply) => reply.redirect('/library', 303));

      // `?v=<content hash>` (as assetUrl writes it) is cached for a year; any other URL revalidates.
      const serveAsset = (
        request: FastifyRequest<{ Querystring: { v?: string } }>,
        reply: FastifyReply,
        name: string,
      ): FastifyReply => {
        const asset = this.assets.get(name);
        if (asset === undefined) {
          throw new AppError('not_found', { message: `No asset ${name.slice(0, 100)}.` });
        }
        reply.header('x-content-type-options', 'nosniff');
        return sendBytes(
          request,
          reply,
          { body: asset.body, etag: `"${asset.version}"`, lastModified: null, contentType: asset.type },
          request.query.v === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      };
      scope.get<{ Params: { name: string }; Querystring: { v?: string } }>(
        '/assets/:name',
        async (request, reply) => serveAsset(request, reply, request.params.name),
      );
      scope.get<{ Params: { name: string }; Querystring: { v?: string } }>(
        '/assets/vendor/:name',
        async (request, reply) => serveAsset(request, reply, `vendor/${request.params.name}`),
      );

      scope.get<{ Querystring: { next?: string } }>('/sign-in', async (request, reply) => {
        const next = safeNext(request.query.next);
        if ((await this.sessions.read(request)) !== null) return reply.redirect(next, 303);
        return this.signIn(reply, next, null);
      });

      // Name and password; the first admin may give the admin token as the password (and an empty
      // name means the first admin). `token` is the field's old name, still taken from scripts.
      scope.post('/sign-in', async (request, reply) => {
        const next = safeNext(field(request.body, 'next'));
        const name = field(request.body, 'name');
        const password = field(request.body, 'password') || field(request.body, 'token');
        try {
          const signedIn = await signInLogged(request, this.services.sessions, name, password);
          reply.header('set-cookie', this.sessions.setCookie(signedIn.secret, isHttps(request)));
          return reply.redirect(next, 303);
        } catch (err) {
          if (!(err instanceof AppError) || (err.code !== 'unauthorized' && err.code !== 'rate_limited'))
            throw err;
          for (const [header, value] of Object.entries(err.headers)) reply.header(header, value);
          const message =
            err.code === 'rate_limited'
              ? err.message
              : 'That name and password are not right. Check them and try again.';
          return this.signIn(reply, next, { message, status: err.status, name });
        }
      });

      scope.post('/sign-out', async (request, reply) => {
        const session = this.sessions.authenticatedBy(request);
        if (session !== null) await this.services.sessions.signOut(session.id);
        reply.header('set-cookie', this.sessions.clearCookie(isHttps(request)));
        return reply.redirect('/sign-in', 303);
      });

      registerPeoplePages(scope, this, this.services, this.sessions);
      registerBinderPages(scope, this, this.services);
      registerStatsPages(scope, this, this.services);
      registerWishPages(scope, this, this.services);
      registerLoanPages(scope, this, this.services);
      registerShelfReportPages(scope, this, this.services);

      scope.get<{ Params: { id: string } }>('/movie/:id', (request, reply) => this.movie(request, reply));

      scope.get('/scan', (request, reply) => this.scan(request, reply));

      scope.get('/history', async (request, reply) => {
        const limit = 50;
        const asked = positiveId((request.query as Record<string, unknown> | undefined)?.offset);
        const offset = asked ?? 0;
        const { items, total } = await this.services.plays.history(
          principalOf(request).userId,
          limit,
          offset,
          this.services.visibility.filter(principalOf(request)),
        );
        return this.page(request, reply, {
          title: 'Your history',
          current: 'history',
          body: historyPage({ items, total, offset, limit }),
        });
      });

      const nowPlaying = async (request: FastifyRequest, reply: FastifyReply, stopped: string | null) =>
        this.page(request, reply, {
          title: 'Now playing',
          current: 'now-playing',
          body: nowPlayingPage(await this.services.plays.active(), this.csrf(request), stopped),
        });
      scope.get('/now-playing', (request, reply) => nowPlaying(request, reply, null));
      // The stop button's form (CSRF-checked like every page form): the play ends, the page again.
      scope.post<{ Params: { id: string } }>('/now-playing/:id/stop', async (request, reply) => {
        const id = positiveId(request.params.id);
        if (id === null) return this.notFound(request, reply, 'There is no such play.');
        try {
          const stopped = await this.services.plays.stop(id);
          return nowPlaying(request, reply, `${stopped.title} for ${stopped.user_name}`);
        } catch (err) {
          if (err instanceof AppError && err.status === 404) {
            return this.notFound(request, reply, 'That play has already ended.');
          }
          throw err;
        }
      });

      scope.get('/import', async (request, reply) =>
        this.page(request, reply, {
          title: 'Import and export',
          current: 'import',
          body: importPage(),
          scripts: ['import.js'],
        }),
      );

      // The scan page's forms, for a browser without JavaScript (scan.js calls the API instead).
      scope.post('/scan/roots', async (request, reply) => {
        const values = {
          path: field(request.body, 'path').trim().slice(0, 4096),
          name: field(request.body, 'name').trim().slice(0, 200),
          collection: field(request.body, 'collection').trim().slice(0, 200),
        };
        try {
          await this.services.roots.create({
            path: values.path,
            ...(values.name === '' ? {} : { name: values.name }),
            ...(values.collection === '' ? {} : { collection: values.collection }),
          });
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          const message = err.hint === undefined ? err.message : `${err.message} ${err.hint}`;
          return this.scan(request, reply, { addError: message, addValues: values, status: err.status });
        }
        return reply.redirect('/scan', 303);
      });

      scope.post<{ Params: { id: string } }>('/scan/roots/:id/scan', async (request, reply) => {
        const id = positiveId(request.params.id);
        if (id === null) return this.notFound(request, reply, 'There is no such folder.');
        try {
          const { scan_id } = await this.services.scans.start(id);
          return reply.redirect(`/scan?scan=${scan_id}`, 303);
        } catch (err) {
          if (err instanceof AppError && err.status === 404) {
            return this.notFound(request, reply, `There is no folder with id ${id}.`);
          }
          throw err;
        }
      });
    });
  }
}
