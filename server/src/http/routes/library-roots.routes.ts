import type { FastifyInstance } from 'fastify';
import type { LibraryRootService } from '../../services/library/library-root.service.ts';
import type { ScanService } from '../../services/scan/scan.service.ts';
import { principalOf } from '../principal.ts';
import type { WatchStateService } from '../../services/library/watch-state.service.ts';
import type { WatchStateInput } from '@reelshelf/contract';
import { idParams } from '../schemas.ts';

const createRootBody = {
  type: 'object',
  required: ['path'],
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 4096 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    collection: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
  },
} as const;

const scanQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { wait: { type: 'boolean', default: false } },
} as const;

const progressBody = {
  type: 'object',
  required: ['position_seconds'],
  additionalProperties: false,
  properties: {
    position_seconds: { type: 'number', minimum: 0, maximum: 864000 },
    watched: { type: 'boolean' },
  },
} as const;

/** Library roots, collections, scans and watch progress. */
export function registerLibraryRootRoutes(
  app: FastifyInstance,
  roots: LibraryRootService,
  scans: ScanService,
  watch: WatchStateService,
): void {
  app.get('/api/library-roots', async () => ({ items: await roots.list() }));

  app.post<{ Body: { path: string; name?: string; collection?: string } }>(
    '/api/library-roots',
    { schema: { body: createRootBody } },
    async (request, reply) => reply.code(201).send(await roots.create(request.body)),
  );

  app.get<{ Params: { id: number } }>(
    '/api/library-roots/:id',
    { schema: { params: idParams } },
    async (request) => roots.get(request.params.id),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/library-roots/:id',
    { schema: { params: idParams } },
    async (request, reply) => {
      await roots.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  app.get('/api/collections', async () => ({ items: await roots.listCollections() }));

  app.post<{ Params: { id: number }; Querystring: { wait: boolean } }>(
    '/api/library-roots/:id/scan',
    { schema: { params: idParams, querystring: scanQuery } },
    async (request, reply) => {
      const { scan_id } = await scans.start(request.params.id);
      if (request.query.wait) return reply.code(200).send(await scans.wait(scan_id));
      return reply.code(202).send({ scan_id });
    },
  );

  app.get<{ Params: { id: number } }>('/api/scans/:id', { schema: { params: idParams } }, async (request) =>
    scans.report(request.params.id),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/scans/:id',
    { schema: { params: idParams } },
    async (request) => {
      await scans.cancel(request.params.id);
      return scans.wait(request.params.id);
    },
  );

  app.put<{ Params: { id: number }; Body: WatchStateInput }>(
    '/api/media-file/:id/progress',
    { schema: { params: idParams, body: progressBody } },
    async (request) => watch.save(principalOf(request).userId, request.params.id, request.body),
  );
}
