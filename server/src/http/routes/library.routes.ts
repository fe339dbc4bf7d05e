import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { preferredCoding } from '../../domain/library-listing/accept-encoding.ts';
import type { DeviceProfileService } from '../../services/playback/device-profile.service.ts';
import type { LibraryListingService } from '../../services/library/library-listing.service.ts';
import { prefersHtml } from '../pages/accept.ts';
import { principalOf } from '../principal.ts';
import { libraryQuery } from '../schemas.ts';
import { SendQueue } from '../send-queue.ts';

/** A body this large (an uncompressed listing: ~4 MB at 10,000 movies) is sent in turn… */
const LARGE_BODY = 1024 * 1024;
/** …this many at once. */
const LARGE_BODIES_AT_ONCE = 8;

/** Renders the library page (INTERFACE.md "Pages"). */
export type LibraryPageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * GET /library: the contract's LibraryResponse, from the listing cache (built once per change, kept
 * compressed: the body is sent as kept, so @fastify/compress leaves it alone); `ETag` and a matching
 * `If-None-Match` → 304; `?limit=&offset=` a page of it, the total in `X-Total-Count`. When the Accept
 * header prefers text/html, the library page instead (which takes its own query: q, badge, page, …).
 */
export function registerLibraryRoutes(
  app: FastifyInstance,
  listing: LibraryListingService,
  devices: DeviceProfileService,
  page?: LibraryPageHandler,
): void {
  const large = new SendQueue(LARGE_BODIES_AT_ONCE);
  // The next request on a connection says its client has read the body before it.
  app.server.on('request', (request: IncomingMessage) => large.requestArrived(request.socket));
  app.get<{ Querystring: { device?: string; limit?: number; offset?: number } }>(
    '/library',
    {
      schema: { querystring: libraryQuery },
      // The page answers before the API's query validation runs.
      preValidation: async (request, reply) => {
        if (page !== undefined && prefersHtml(request.headers.accept)) return page(request, reply);
      },
    },
    async (request, reply) => {
      const { limit, offset } = request.query;
      const answer = await listing.answer({
        device: devices.resolve(request.query.device).id,
        // The person's watch state, and stream URLs signed for their credential.
        viewer: principalOf(request),
        coding: preferredCoding(request.headers['accept-encoding']),
        ifNoneMatch: request.headers['if-none-match'],
        page:
          limit === undefined && offset === undefined ? null : { offset: offset ?? 0, limit: limit ?? null },
      });
      reply
        .header('etag', answer.etag)
        // Clients keep it and ask again with If-None-Match: an unchanged listing is a 304.
        .header('cache-control', 'private, no-cache')
        .header('vary', 'Accept, Accept-Encoding, Authorization, Cookie');
      if (answer.total !== null) reply.header('x-total-count', String(answer.total));
      if (answer.notModified) return reply.code(304).send();
      if (answer.coding !== 'identity') reply.header('content-encoding', answer.coding);
      reply.type('application/json; charset=utf-8');
      const body = answer.body as Buffer;
      return body.length < LARGE_BODY ? reply.send(body) : large.send(reply, body);
    },
  );
}

/** GET /api/devices: the device profiles a client may name, with what each plays. */
export function registerDeviceRoutes(app: FastifyInstance, devices: DeviceProfileService): void {
  app.get('/api/devices', async () => ({ items: devices.list(), problems: devices.problems }));
}
