import { schemaId } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceProfileService } from '../../services/device-profile.service.ts';
import type { LibraryService } from '../../services/library.service.ts';
import { prefersHtml } from '../pages/accept.ts';
import { libraryQuery } from '../schemas.ts';

/** Renders the library page (INTERFACE.md "Pages"). */
export type LibraryPageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * GET /library: the contract's LibraryResponse, serialised from its schema; or, when the Accept
 * header prefers text/html, the library page (which takes its own query: q, badge, page, …).
 */
export function registerLibraryRoutes(
  app: FastifyInstance,
  library: LibraryService,
  devices: DeviceProfileService,
  page?: LibraryPageHandler,
): void {
  app.get<{ Querystring: { device?: string } }>(
    '/library',
    {
      schema: { querystring: libraryQuery, response: { 200: { $ref: `${schemaId('libraryResponse')}#` } } },
      // The page answers before the API's query validation runs.
      preValidation: async (request, reply) => {
        if (page !== undefined && prefersHtml(request.headers.accept)) return page(request, reply);
      },
    },
    async (request) => library.getLibrary(devices.resolve(request.query.device).id),
  );
}

/** GET /api/devices: the device profiles a client may name, with what each plays. */
export function registerDeviceRoutes(app: FastifyInstance, devices: DeviceProfileService): void {
  app.get('/api/devices', async () => ({ items: devices.list(), problems: devices.problems }));
}
