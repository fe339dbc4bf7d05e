import type { FastifyInstance } from 'fastify';
import type { ShelfReportService } from '../../services/collector/shelf-reports.service.ts';
import type { VisibilityService } from '../../services/people/visibility.service.ts';
import { principalOf } from '../principal.ts';

/** `?format=4K UHD`, several as `?format=4K UHD,Blu-ray` or the key repeated; `limit`/`offset` page it. */
const ripQueueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    format: {
      anyOf: [
        { type: 'string', maxLength: 200 },
        { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 } },
      ],
    },
    limit: { type: 'integer', minimum: 1, maximum: 10000 },
    offset: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
} as const;

/** The rip queue and the upgrades (issue 27 items 2 and 3; docs/collector.md). Reads only. */
export function registerShelfReportRoutes(
  app: FastifyInstance,
  reports: ShelfReportService,
  visibility: Pick<VisibilityService, 'filter'>,
): void {
  app.get<{ Querystring: { format?: string | string[]; limit?: number; offset?: number } }>(
    '/api/rip-queue',
    { schema: { querystring: ripQueueQuery } },
    async (request) => {
      const { format, limit, offset } = request.query;
      const formats = format === undefined ? [] : Array.isArray(format) ? format : [format];
      return reports.ripQueue(visibility.filter(principalOf(request)), formats, {
        ...(limit === undefined ? {} : { limit }),
        ...(offset === undefined ? {} : { offset }),
      });
    },
  );

  app.get('/api/upgrades', async (request) => reports.upgrades(visibility.filter(principalOf(request))));
}
