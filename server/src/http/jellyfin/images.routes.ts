import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import { parseImageRequest } from '../../domain/jellyfin/image-request.ts';
import type { RawQuery } from '../../domain/jellyfin/items-query.ts';
import { permits } from '../../domain/people/access.ts';
import { AppError, notFound } from '../../errors.ts';
import type { JellyfinImagesService } from '../../services/jellyfin/jellyfin-images.service.ts';
import type { SessionService } from '../../services/people/session.service.ts';
import { sendFile } from '../stream-response.ts';
import { JELLYFIN_PREFIX, jellyfinPrincipal } from './credentials.ts';

/**
 * `GET|HEAD /Items/{id}/Images/{type}[/{index}]` (players.md §1.6): the `<img>` URL the apps build
 * from `ImageTags` without a token. The route is `public` in route-access.ts because a right tag is
 * its own credential; the rule of who gets which image is JellyfinImagesService's. With a token (any
 * header form, or `api_key`/`ApiKey` in the query: listed in credentials.ts QUERY_TOKEN_ROUTES) the
 * person's own visibility decides; a token that does not hold is 401 as everywhere.
 */
export const JELLYFIN_IMAGE_ROUTES = [
  `${JELLYFIN_PREFIX}/items/:itemid/images/:type`,
  `${JELLYFIN_PREFIX}/items/:itemid/images/:type/:index`,
] as const;

/** A right tag names this exact picture (a new picture, a new tag): cache it for a year. */
const TAGGED_CACHE_CONTROL = 'private, max-age=31536000, immutable';
/** Without the tag the URL does not change with the picture: revalidate (ETag, Last-Modified). */
const UNTAGGED_CACHE_CONTROL = 'private, no-cache';

type ImageParams = { itemid: string; type: string; index?: string };

export function registerJellyfinImageRoutes(
  app: FastifyInstance,
  images: JellyfinImagesService,
  sessions: Pick<SessionService, 'authenticate'>,
): void {
  const handler = async (
    request: FastifyRequest<{ Params: ImageParams }>,
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    const { itemid, type, index } = request.params;
    const query = (request.query ?? {}) as RawQuery;
    const parsed = parseImageRequest(type, index, query);
    const credentials = readJellyfinCredentials(request.headers, query);
    const principal = credentials.token === null ? null : await jellyfinPrincipal(request, sessions);
    if (credentials.token !== null && principal === null) {
      throw new AppError('unauthorized', {
        message: 'The token is not valid.',
        hint: 'Sign in again (POST /Users/AuthenticateByName), or leave the token out and send the image’s tag.',
      });
    }
    if (principal !== null) {
      const decision = permits(principal.role, principal.credential.scope, 'read', request.method);
      if (!decision.ok) throw new AppError('forbidden', { message: 'This credential may not read images.' });
    }
    // Without credentials nothing is told, not even that a type is unknown.
    if (!parsed.ok) {
      if (principal === null) throw credentialsRequired();
      throw notFound('image', `${itemid.slice(0, 64)}/${type.slice(0, 32)}`);
    }
    const outcome = await images.image(itemid, parsed.request, principal);
    if (outcome.kind === 'credentials-required') throw credentialsRequired();
    return sendFile(
      request,
      reply,
      outcome.image,
      outcome.tagged ? TAGGED_CACHE_CONTROL : UNTAGGED_CACHE_CONTROL,
    );
  };
  for (const url of JELLYFIN_IMAGE_ROUTES) {
    // HEAD is declared, not derived from GET: Fastify's derived HEAD would reset Content-Length to 0.
    app.route<{ Params: ImageParams }>({ method: ['GET', 'HEAD'], url, handler });
  }
}

function credentialsRequired(): AppError {
  return new AppError('unauthorized', {
    message: 'This image needs its tag or a token.',
    hint: 'Use the URL built from the item’s ImageTags (…/Images/Primary?tag=…), or send the token.',
  });
}
