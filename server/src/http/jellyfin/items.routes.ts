import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseItemsQuery, type RawQuery } from '../../domain/jellyfin/items-query.ts';
import { toWireJson } from '../../domain/jellyfin/wire.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import { principalOf } from '../principal.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';

/**
 * Browsing (players.md §1.6): the views, `/Items` and `/Items/{id}`, each also under the old
 * `/Users/{userId}/…` form the Kodi add-on uses. Thin: the query is read by the pure
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

  const items = async (request: FastifyRequest, reply: { type(t: string): unknown }): Promise<string> => {
    checkUserId(request, library, userIdOf(request));
    const parsed = parseItemsQuery((request.query ?? {}) as RawQuery);
    if (!parsed.ok) throw validationFailed(parsed.field, parsed.message);
    return sendWire(reply, await library.items(principalOf(request), parsed.query));
  };
  app.get(`${JELLYFIN_PREFIX}/items`, items);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items`, items);

  const item = async (
    request: FastifyRequest<{ Params: { itemid: string } }>,
    reply: { type(t: string): unknown },
  ): Promise<string> => {
    checkUserId(request, library, userIdOf(request));
    const found = await library.item(principalOf(request), request.params.itemid);
    // A hidden film and an unknown id answer alike.
    if (found === null) throw notFound('item', request.params.itemid.slice(0, 64));
    return sendWire(reply, found);
  };
  app.get(`${JELLYFIN_PREFIX}/items/:itemid`, item);
  app.get(`${JELLYFIN_PREFIX}/users/:userid/items/:itemid`, item);
}
