import type { FastifyInstance } from 'fastify';
import type { StatsService } from '../../services/collector/stats.service.ts';
import { principalOf } from '../principal.ts';

const yearQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    person: { type: 'integer', minimum: 1, maximum: 2147483647 },
    year: { type: 'integer', minimum: 1900, maximum: 9998 },
  },
} as const;

/** The /stats figures as JSON (issue 27 item 6; docs/collector.md "Stats"), through the asker's visibility. */
export function registerStatsRoutes(app: FastifyInstance, stats: StatsService): void {
  app.get('/api/stats', async (request) => stats.overview(principalOf(request)));

  app.get<{ Querystring: { person?: number; year?: number } }>(
    '/api/stats/year',
    { schema: { querystring: yearQuery } },
    async (request) => stats.year(principalOf(request), request.query),
  );
}
