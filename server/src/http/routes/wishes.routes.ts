import type { FastifyInstance } from 'fastify';
import type { WishInput, WishService } from '../../services/collector/wish.service.ts';
import { idParams } from '../schemas.ts';

const wishBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tmdb_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
    title: { type: 'string', maxLength: 500 },
    year: { type: 'integer', minimum: 1870, maximum: 2100 },
    note: { type: 'string', maxLength: 2000 },
  },
} as const;

/** The wish list (issue 27 item 5; docs/collector.md "Wish list"). Writes: members and admins. */
export function registerWishRoutes(app: FastifyInstance, wishes: WishService): void {
  app.get('/api/wishes', async () => wishes.list());

  app.post<{ Body: WishInput }>('/api/wishes', { schema: { body: wishBody } }, async (request, reply) =>
    reply.code(201).send(await wishes.add(request.body)),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/wishes/:id',
    { schema: { params: idParams } },
    async (request, reply) => {
      await wishes.remove(request.params.id);
      return reply.code(204).send();
    },
  );
}
