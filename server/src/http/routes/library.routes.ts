import { schemaId } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { DeviceService } from '../../services/device.service.ts';
import type { LibraryService } from '../../services/library.service.ts';
import { libraryQuery } from '../schemas.ts';

/** GET /library: the contract's LibraryResponse, serialised from its schema. */
export function registerLibraryRoutes(
  app: FastifyInstance,
  library: LibraryService,
  devices: DeviceService,
): void {
  app.get<{ Querystring: { device?: string } }>(
    '/library',
    { schema: { querystring: libraryQuery, response: { 200: { $ref: `${schemaId('libraryResponse')}#` } } } },
    async (request) => library.getLibrary(devices.resolve(request.query.device)),
  );
}
