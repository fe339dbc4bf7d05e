import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { preferredCoding } from '../../domain/library-listing/accept-encoding.ts';
import { type ItemsQuery, parseItemsQuery, type RawQuery } from '../../domain/jellyfin/items-query.ts';
import { toWireJson } from '../../domain/jellyfin/wire.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import { principalOf } from '../principal.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';

/**
 * Browsing (players.md §1.6): the views, `/Items` and `/Items/{id}`, `/Items/Latest`,
 * `/UserItems/Resume`, `/Genres`, `/Persons`, `/Items/Filters[2]`, `/Items/{id}/Similar` and the
 * empty trailer/extras/theme lists, favourites; the old `/Users/{userId}/…` forms the Kodi add-on uses. Thin: the query is read by the pure
 * domain/jellyfin/items-query.ts, the items come from JellyfinLibraryService (the `/library`
 * listing of the person asking, through the one visibility rule).
 */
function sendWire(reply: { type(t: string): unknown }, body: unknown): string {
  reply.type('application/json; charset=utf-8');
  return toWireJson(body);
}

/**
 * A `userId` in the path or query must be the caller's own: the facade lists what the token's
 * person sees, never another person's state (Jellyfin would ask for admin rights; we need none).
 */
function checkUserId(request: FastifyRequest, library: JellyfinLibraryService, given: string | null): void {
  if (given === null || given === '') return;
  const principal = principalOf(request);
  if (library.ids.decodeAs('user', given) === principal.userId) return;
  throw new AppError('forbidden', {
    message: 'A token lists only its own person’s library.',
    hint: 'Leave userId out or send the Id that AuthenticateByName returned.',
  });
}

function userIdOf(request: FastifyRequest): string | null {
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (typeof params.userid === 'string') return params.userid;
  for (const [key, value] of Object.entries((request.query ?? {}) as RawQuery)) {
    if (key.toLowerCase() === 'userid' && typeof value === 'string') return value;
  }
  return null;
}

export function registerJellyfinItemRoutes(app: FastifyInstance, library: JellyfinLibraryService): void {
  const views = async (request: FastifyRequest, reply: { type(t: string): unknown }): Promise<string> => {
    checkUserId(request, library, userIdOf(request));
    const items = library.views();
    return sendWire(reply, { Items: items, TotalRecordCount: items.length, StartIndex: 0 });
  };
  app.get(`${JELLYFIN_PREFIX}/userviews`, views);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/views`, views);

  /** A handler answering JSON text the service made, for the parsed `/Items`-style query. */
  const listing =
    (answer: (request: FastifyRequest, query: ItemsQuery) => Promise<string>) =>
    async (request: FastifyRequest, reply: { type(t: string): unknown }): Promise<string> => {
      checkUserId(request, library, userIdOf(request));
      const parsed = parseItemsQuery((request.query ?? {}) as RawQuery);
      if (!parsed.ok) throw validationFailed(parsed.field, parsed.message);
      reply.type('application/json; charset=utf-8');
      return answer(request, parsed.query);
    };
  const items = async (request: FastifyRequest, reply: FastifyReply): Promise<Buffer | string> => {
    checkUserId(request, library, userIdOf(request));
    const parsed = parseItemsQuery((request.query ?? {}) as RawQuery);
    if (!parsed.ok) throw validationFailed(parsed.field, parsed.message);
    const gzip = preferredCoding(request.headers['accept-encoding'], ['gzip']) === 'gzip';
    const answer = await library.itemsAnswer(principalOf(request), parsed.query, gzip);
    reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
    if (answer.gzip) reply.header('content-encoding', 'gzip');
    return answer.body;
  };
  app.get(`${JELLYFIN_PREFIX}/items`, items);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items`, items);

  const latest = listing((request, query) => library.latest(principalOf(request), query));
  app.get(`${JELLYFIN_PREFIX}/items/latest`, latest);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items/latest`, latest);

  const resume = listing((request, query) => library.resume(principalOf(request), query));
  app.get(`${JELLYFIN_PREFIX}/useritems/resume`, resume);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items/resume`, resume);

  app.get(
    `${JELLYFIN_PREFIX}/genres`,
    listing((request, query) => library.genres(principalOf(request), query)),
  );
  app.get(
    `${JELLYFIN_PREFIX}/persons`,
    listing((request, query) => library.persons(principalOf(request), query)),
  );
  app.get(
    `${JELLYFIN_PREFIX}/items/filters`,
    listing(async (request, query) => toWireJson(await library.filters(principalOf(request), query))),
  );
  app.get(
    `${JELLYFIN_PREFIX}/items/filters2`,
    listing(async (request, query) => toWireJson(await library.filters2(principalOf(request), query))),
  );

  const itemId = (request: FastifyRequest): string =>
    String((request.params as Record<string, unknown>).itemid ?? '');
  app.get(
    `${JELLYFIN_PREFIX}/items/:itemid/similar`,
    listing((request, query) => library.similar(principalOf(request), itemId(request), query)),
  );

  /** Routes about an item that answer with nothing of it (no trailers, extras or theme media kept). */
  const empty = (body: unknown) =>
    listing(async (request) => {
      // A hidden film and an unknown id answer alike.
      if (!(await library.sees(principalOf(request), itemId(request)))) {
        throw notFound('item', itemId(request).slice(0, 64));
      }
      return toWireJson(
        typeof body === 'function' ? (body as (id: string) => unknown)(itemId(request)) : body,
      );
    });
  for (const prefix of ['', '/users/:userid']) {
    app.get(`${JELLYFIN_PREFIX}${prefix}/items/:itemid/localtrailers`, empty([]));
    // reelshelf's scans skip extras (docs/naming.md): there are none to list.
    app.get(`${JELLYFIN_PREFIX}${prefix}/items/:itemid/specialfeatures`, empty([]));
  }
  const noTheme = (id: string) => ({ Items: [], TotalRecordCount: 0, StartIndex: 0, OwnerId: id });
  app.get(
    `${JELLYFIN_PREFIX}/items/:itemid/thememedia`,
    empty((id: string) => ({
      ThemeVideosResult: noTheme(id),
      ThemeSongsResult: noTheme(id),
      SoundtrackSongsResult: noTheme(id),
    })),
  );
  app.get(`${JELLYFIN_PREFIX}/items/:itemid/themesongs`, empty(noTheme));
  app.get(`${JELLYFIN_PREFIX}/items/:itemid/themevideos`, empty(noTheme));

  const favourite =
    (on: boolean) =>
    async (request: FastifyRequest, reply: { type(t: string): unknown }): Promise<string> => {
      checkUserId(request, library, userIdOf(request));
      const data = await library.setFavourite(principalOf(request), itemId(request), on);
      return sendWire(reply, data);
    };
  // The SDK's axios posts no body with `application/x-www-form-urlencoded`, others an empty JSON body:
  // these routes read no body, so in their own scope any body is accepted and left unread.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, _body, done) => {
      done(null, undefined);
    });
    scope.post(`${JELLYFIN_PREFIX}/userfavoriteitems/:itemid`, favourite(true));
    scope.delete(`${JELLYFIN_PREFIX}/userfavoriteitems/:itemid`, favourite(false));
    scope.post(`${JELLYFIN_PREFIX}/users/:userid/favoriteitems/:itemid`, favourite(true));
    scope.delete(`${JELLYFIN_PREFIX}/users/:userid/favoriteitems/:itemid`, favourite(false));
  });

  const item = async (
    request: FastifyRequest<{ Params: { itemid: string } }>,
    reply: { type(t: string): unknown },
  ): Promise<string> => {
    checkUserId(request, library, userIdOf(request));
    const found = await library.item(principalOf(request), request.params.itemid);
    // A hidden film and an unknown id answer alike.
    if (found === null) throw notFound('item', request.params.itemid.slice(0, 64));
    reply.type('application/json; charset=utf-8');
    return found;
  };
  app.get(`${JELLYFIN_PREFIX}/items/:itemid`, item);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items/:itemid`, item);
}
