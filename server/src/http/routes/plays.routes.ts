import type { VisibilityService } from '../../services/people/visibility.service.ts';
import type { FastifyInstance } from 'fastify';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import type { WatchStateService } from '../../services/library/watch-state.service.ts';
import { principalOf } from '../principal.ts';
import { idParams } from '../schemas.ts';

const historyQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0 },
  },
} as const;

const continueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
} as const;

/**
 * The signed-in person's own plays (history, continue watching) and, for admins, the plays going on
 * now with a way to stop one (issue 22).
 */
export function registerPlayRoutes(
  app: FastifyInstance,
  plays: NowPlayingService,
  watch: WatchStateService,
  visibility: Pick<VisibilityService, 'filter'>,
): void {
  app.get<{ Querystring: { limit: number; offset: number } }>(
    '/api/me/history',
    { schema: { querystring: historyQuery } },
    async (request) => {
      const viewer = principalOf(request);
      return plays.history(
        viewer.userId,
        request.query.limit,
        request.query.offset,
        visibility.filter(viewer),
      );
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/api/me/continue',
    { schema: { querystring: continueQuery } },
    async (request) => ({
      items: await watch.continueWatching(
        principalOf(request).userId,
        request.query.limit,
        visibility.filter(principalOf(request)),
      ),
    }),
  );

  app.get('/api/sessions/active', async () => ({ items: await plays.active() }));

  app.delete<{ Params: { id: number } }>(
    '/api/sessions/active/:id',
    { schema: { params: idParams } },
    async (request) => ({ stopped: await plays.stop(request.params.id) }),
  );
}
