import type { JobKindName, JobStatusName } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { JobService } from '../../services/system/job.service.ts';
import { idParams } from '../schemas.ts';

const JOB_KINDS: readonly JobKindName[] = ['scan', 'artwork', 'enrich', 'artifact', 'import', 'trickplay'];
const JOB_STATUSES: readonly JobStatusName[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: JOB_KINDS },
    status: { type: 'string', enum: JOB_STATUSES },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
} as const;

/**
 * GET /api/jobs/{id} and GET /api/jobs?kind=&status=&limit=: every long-running job (scan, artwork
 * fetch, metadata fetch, TV build) in one shape with `progress: {done, total}`. The kind-specific
 * routes (scans, prewarm) keep their own contract shapes; this is the uniform view beside them.
 */
export function registerJobRoutes(app: FastifyInstance, jobs: JobService): void {
  app.get<{ Querystring: { kind?: JobKindName; status?: JobStatusName; limit: number } }>(
    '/api/jobs',
    { schema: { querystring: listQuery } },
    async (request) => ({ items: await jobs.list(request.query) }),
  );

  app.get<{ Params: { id: number } }>('/api/jobs/:id', { schema: { params: idParams } }, async (request) =>
    jobs.describe(request.params.id),
  );
}
