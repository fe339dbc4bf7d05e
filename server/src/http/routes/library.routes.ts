import { schemaId } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { DeviceProfileService } from '../../services/device-profile.service.ts';
import type { LibraryService } from '../../services/library.service.ts';
import { libraryQuery } from '../schemas.ts';

/** GET /library: the contract's LibraryResponse, serialised from its schema. */
export function registerLibraryRoutes(
  app: FastifyInstance,
  library: LibraryService,
  devices: DeviceProfileService,
): void {
  app.get<{ Querystring: { device?: string } }>(
    '/library',
    { schema: { querystring: libraryQuery, response: { 200: { $ref: `${schemaId('libraryResponse')}#` } } } },
    async (request) => library.getLibrary(devices.resolve(request.query.device).id),
  );
}

/** GET /api/devices: the device profiles a client may name, with what each plays. */
export function registerDeviceRoutes(app: FastifyInstance, devices: DeviceProfileService): void {
  app.get('/api/devices', async () => ({ items: devices.list(), problems: devices.problems }));
}
