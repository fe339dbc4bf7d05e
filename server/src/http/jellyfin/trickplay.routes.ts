import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import { queryValue, type RawQuery } from '../../domain/jellyfin/items-query.ts';
import { AppError } from '../../errors.ts';
import type { JellyfinTrickplayService } from '../../services/jellyfin/jellyfin-trickplay.service.ts';
import { principalOf } from '../principal.ts';
import { sendFile, sendPlaylist } from '../stream-response.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';

/** The URL names no set (a remake keeps it): revalidated, the ETag naming the set. */
const SHEET_CACHE_CONTROL = 'private, no-cache';

type TrickplayRequest = FastifyRequest<{ Params: { itemid: string; width: string; file: string } }>;

function notFound(message: string): AppError {
  return new AppError('not_found', {
    message,
    hint: 'The item’s Trickplay field (Fields=Trickplay) names the widths; sheets are 0.jpg, 1.jpg, …',
  });
}

/**
 * `GET|HEAD /Videos/{itemId}/Trickplay/{width}/{index}.jpg` and `…/tiles.m3u8` (Jellyfin's
 * TrickplayController; `?MediaSourceId=` picks a version). The token may come as `ApiKey` /
 * `api_key` (credentials.ts: players fetch these without headers); a film the person may not see
 * is a 404 like an unknown item, and so is a width there are no thumbnails of.
 */
export function registerJellyfinTrickplayRoutes(
  app: FastifyInstance,
  trickplay: JellyfinTrickplayService,
): void {
  const handler = async (request: TrickplayRequest, reply: FastifyReply) => {
    const { itemid, width: widthText, file } = request.params;
    if (!/^\d{1,5}$/.test(widthText)) throw notFound('A trickplay width is a number of pixels.');
    const width = Number(widthText);
    const query = (request.query ?? {}) as RawQuery;
    const sourceId = queryValue(query, 'MediaSourceId');
    const viewer = principalOf(request);
    if (file === 'tiles.m3u8') {
      // The sheets' URIs carry the source and the app's own token, as Jellyfin writes them.
      const token = readJellyfinCredentials(request.headers, query).token ?? '';
      const carried = new URLSearchParams({
        ...(sourceId === null ? {} : { MediaSourceId: sourceId }),
        ApiKey: token,
      }).toString();
      return sendPlaylist(request, reply, await trickplay.playlist(viewer, itemid, sourceId, width, carried));
    }
    const match = /^(\d{1,6})\.jpg$/.exec(file);
    if (match === null) throw notFound('Trickplay files are tiles.m3u8 and <index>.jpg.');
    const sheet = await trickplay.sheet(viewer, itemid, sourceId, width, Number(match[1]));
    return sendFile(request, reply, sheet, SHEET_CACHE_CONTROL);
  };
  // HEAD is declared, not derived from GET: Fastify's derived HEAD would reset Content-Length to 0.
  app.route({
    method: ['GET', 'HEAD'],
    url: `${JELLYFIN_PREFIX}/videos/:itemid/trickplay/:width/:file`,
    compress: false,
    handler,
  });
}
