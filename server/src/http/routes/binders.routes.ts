import type { FastifyInstance } from 'fastify';
import type { BinderService } from '../../services/collector/binder.service.ts';
import type { VisibilityService } from '../../services/people/visibility.service.ts';
import { principalOf } from '../principal.ts';
import { idParams } from '../schemas.ts';

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

const binderName = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } as const;
const slot = { type: 'string', minLength: 1, maxLength: 20, pattern: '\\S' } as const;

const patchBinderBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: binderName,
    slots_per_page: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

const moveBody = {
  type: 'object',
  required: ['binder', 'slot'],
  additionalProperties: false,
  properties: { binder: binderName, slot },
} as const;

const copyId = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;
const swapBody = {
  type: 'object',
  required: ['a', 'b'],
  additionalProperties: false,
  properties: { a: copyId, b: copyId },
} as const;

/** Binders and the discs in their slots (issue 27 item 1; docs/collector.md). Writes: admins only. */
export function registerBinderRoutes(
  app: FastifyInstance,
  binders: BinderService,
  visibility: Pick<VisibilityService, 'filter'>,
): void {
  app.get('/api/binders', async (request) => binders.list(visibility.filter(principalOf(request))));

  app.get<{ Params: { name: string } }>(
    '/api/binders/:name',
    { schema: { params: nameParams } },
    async (request) => binders.get(request.params.name, visibility.filter(principalOf(request))),
  );

  app.patch<{ Params: { name: string }; Body: { name?: string; slots_per_page?: number } }>(
    '/api/binders/:name',
    { schema: { params: nameParams, body: patchBinderBody } },
    async (request) => binders.update(request.params.name, request.body),
  );

  app.patch<{ Params: { id: number }; Body: { binder: string; slot: string } }>(
    '/api/physical-copies/:id',
    { schema: { params: idParams, body: moveBody } },
    async (request) => binders.move(request.params.id, request.body.binder, request.body.slot),
  );

  app.post<{ Body: { a: number; b: number } }>(
    '/api/physical-copies/swap',
    { schema: { body: swapBody } },
    async (request) => binders.swap(request.body.a, request.body.b),
  );
}
