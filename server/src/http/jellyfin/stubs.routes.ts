import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userDto } from '../../domain/jellyfin/user-dto.ts';
import { toWireJson } from '../../domain/jellyfin/wire.ts';
import { certificationNames, certificationScore } from '../../domain/people/ratings.ts';
import { AppError, notFound } from '../../errors.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import type { UserService } from '../../services/people/user.service.ts';
import { principalOf } from '../principal.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';
import { acceptAnyJsonBody } from './lenient-body.ts';

export interface JellyfinStubDeps {
  ids: JellyfinIds;
  users: Pick<UserService, 'get'>;
  serverName: string;
  version: string;
  /** REELSHELF_CERTIFICATION_COUNTRY: the ratings `/Localization/ParentalRatings` lists. */
  certificationCountry: string;
  /** Whether the person sees an item (the routes about an item answer 404 otherwise). */
  library: Pick<JellyfinLibraryService, 'sees'>;
}

/** `/Playback/BitrateTest?size=`: Jellyfin's default size, and our cap (the bytes are held in memory). */
const BITRATE_TEST_DEFAULT = 102_400;
export const BITRATE_TEST_MAX = 10_000_000;

// What the login screens and settings pages ask for on the way (players.md §1.5): small, fixed answers.
const COUNTRIES = [
  ['US', 'USA', 'United States'],
  ['GB', 'GBR', 'United Kingdom'],
  ['DE', 'DEU', 'Germany'],
  ['FR', 'FRA', 'France'],
  ['NL', 'NLD', 'Netherlands'],
  ['CA', 'CAN', 'Canada'],
  ['AU', 'AUS', 'Australia'],
].map(([two, three, name]) => ({
  Name: two,
  DisplayName: name,
  TwoLetterISORegionName: two,
  ThreeLetterISORegionName: three,
}));
const CULTURES = [
  ['en', 'eng', 'English'],
  ['de', 'deu', 'German'],
  ['fr', 'fra', 'French'],
  ['nl', 'nld', 'Dutch'],
].map(([two, three, name]) => ({
  Name: name,
  DisplayName: name,
  TwoLetterISOLanguageName: two,
  ThreeLetterISOLanguageName: three,
  ThreeLetterISOLanguageNames: [three],
}));

function wire(reply: FastifyReply, body: unknown): string {
  reply.type('application/json; charset=utf-8');
  return toWireJson(body);
}

function queryValue(request: FastifyRequest, key: string): string | null {
  for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (k.toLowerCase() === key && typeof v === 'string') return v;
  }
  return null;
}

/**
 * The calls the apps make on the way to browsing and playing (login screen, settings, a bitrate
 * probe), answered with what reelshelf has; and a JSON 404 for every other facade path (Kodi reads
 * a 404 as "plugin not installed"; an HTML page or a 401 would confuse the apps).
 */
export function registerJellyfinStubRoutes(parent: FastifyInstance, deps: JellyfinStubDeps): void {
  // One scope: its lenient body reading (lenient-body.ts) stays inside the facade.
  void parent.register(async (app) => {
    acceptAnyJsonBody(app);
    const p = JELLYFIN_PREFIX;
    app.get(`${p}/users/public`, async (_request, reply) => wire(reply, []));
    app.get(`${p}/quickconnect/enabled`, async (_request, reply) => wire(reply, false));
    app.get(`${p}/branding/configuration`, async (_request, reply) =>
      wire(reply, { LoginDisclaimer: '', CustomCss: '', SplashscreenEnabled: false }),
    );
    const css = async (_request: FastifyRequest, reply: FastifyReply) => reply.type('text/css').send('');
    app.get(`${p}/branding/css`, css);
    app.get(`${p}/branding/css.css`, css);
    app.get(`${p}/system/ping`, async (_request, reply) => wire(reply, 'Jellyfin Server'));
    app.post(`${p}/system/ping`, async (_request, reply) => wire(reply, 'Jellyfin Server'));

    app.get(`${p}/system/info`, async (_request, reply) =>
      wire(reply, {
        ServerName: deps.serverName,
        Version: deps.version,
        ProductName: 'Jellyfin Server',
        Id: deps.ids.serverId,
        OperatingSystem: 'Linux',
        StartupWizardCompleted: true,
        HasPendingRestart: false,
        IsShuttingDown: false,
        SupportsLibraryMonitor: true,
        CanSelfRestart: false,
        CanLaunchWebBrowser: false,
        HasUpdateAvailable: false,
        CastReceiverApplications: [],
      }),
    );

    const me = async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = principalOf(request);
      const user = await deps.users.get(principal.userId);
      return wire(
        reply,
        userDto({
          id: deps.ids.encode('user', user.id),
          name: user.name,
          isAdmin: user.role === 'admin',
          hasPassword: user.has_password,
          serverId: deps.ids.serverId,
          at: user.created_at,
        }),
      );
    };
    app.get(`${p}/users/me`, me);
    app.get<{ Params: { userid: string } }>(`${p}/users/:userid`, async (request, reply) => {
      // Only one's own: another person's id (or a forged one) is not found.
      if (deps.ids.decodeAs('user', request.params.userid) !== principalOf(request).userId) {
        throw new AppError('not_found', {
          message: 'No such person for this token.',
          hint: 'Send the Id that AuthenticateByName returned, or ask /Users/Me.',
        });
      }
      return me(request, reply);
    });

    app.get<{ Params: { id: string } }>(`${p}/displaypreferences/:id`, async (request, reply) =>
      wire(reply, {
        Id: request.params.id,
        SortBy: 'SortName',
        SortOrder: 'Ascending',
        RememberIndexing: false,
        RememberSorting: false,
        PrimaryImageHeight: 250,
        PrimaryImageWidth: 250,
        CustomPrefs: {},
        ScrollDirection: 'Horizontal',
        ShowBackdrop: true,
        ShowSidebar: false,
        IndexBy: 'None',
        Client: queryValue(request, 'client') ?? 'emby',
      }),
    );
    // The apps save their view settings; reelshelf keeps none of them.
    app.post(`${p}/displaypreferences/:id`, async (_request, reply) => reply.code(204).send());

    app.get(`${p}/localization/countries`, async (_request, reply) => wire(reply, COUNTRIES));
    app.get(`${p}/localization/cultures`, async (_request, reply) => wire(reply, CULTURES));
    app.get(`${p}/localization/options`, async (_request, reply) =>
      wire(reply, [{ Name: 'English', Value: 'en-US' }]),
    );
    app.get(`${p}/localization/parentalratings`, async (_request, reply) =>
      wire(
        reply,
        certificationNames(deps.certificationCountry).map((name) => ({
          Name: name,
          Value: Math.floor(certificationScore(deps.certificationCountry, name) ?? 0),
        })),
      ),
    );

    app.get(`${p}/playback/bitratetest`, async (request, reply) => {
      const asked = Number(queryValue(request, 'size') ?? BITRATE_TEST_DEFAULT);
      const size =
        Number.isInteger(asked) && asked > 0 ? Math.min(asked, BITRATE_TEST_MAX) : BITRATE_TEST_DEFAULT;
      return reply.type('application/octet-stream').send(Buffer.alloc(size, 0x5a));
    });

    // No segments are kept (intros, credits); a hidden film and an unknown id answer alike, as
    // every route about an item does (it answered 200 for any id before).
    app.get<{ Params: { itemid: string } }>(`${p}/mediasegments/:itemid`, async (request, reply) => {
      const { itemid } = request.params;
      if (!(await deps.library.sees(principalOf(request), itemid)))
        throw notFound('item', itemid.slice(0, 64));
      return wire(reply, { Items: [], TotalRecordCount: 0, StartIndex: 0 });
    });

    // Every other facade path: a JSON 404 (the rest of the app keeps its own not-found handler).
    app.register(
      async (scope) => {
        scope.setNotFoundHandler(async (request) => {
          throw new AppError('not_found', {
            message: `No route ${request.method} ${request.url.split('?')[0]} in reelshelf's Jellyfin API.`,
            hint: 'docs/jellyfin.md lists the routes reelshelf answers.',
          });
        });
      },
      { prefix: p },
    );
  });
}
