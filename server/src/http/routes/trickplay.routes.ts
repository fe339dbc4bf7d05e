import type { FastifyInstance } from 'fastify';
import type { TrickplayService } from '../../services/trickplay/trickplay.service.ts';
import { idParams } from '../schemas.ts';

const requestBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { mode: { type: 'string', enum: ['keyframes', 'accurate'] } },
} as const;

/**
 * POST /api/media-file/{id}/trickplay (admin): make or remake the file's seek thumbnails as a
 * `trickplay` job → 202 `{job_id}` (progress at /api/jobs/{id}); `{"mode": "accurate"}` decodes
 * every frame for a long-GOP film. The GET routes and the sheets are trickplay-stream.routes.ts.
 */
export function registerTrickplayJobRoutes(app: FastifyInstance, trickplay: TrickplayService): void {
  app.post<{ Params: { id: number }; Body: { mode?: 'keyframes' | 'accurate' } | null }>(
    '/api/media-file/:id/trickplay',
    { schema: { params: idParams, body: requestBody } },
    async (request, reply) => {
      const { jobId } = await trickplay.request(request.params.id, request.body?.mode);
      return reply.code(202).send({ job_id: jobId });
    },
  );
}
