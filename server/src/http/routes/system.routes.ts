import { CONTRACT_BUNDLE, CONTRACT_HASH, CONTRACT_VERSION } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { SystemStatusService } from '../../services/system-status.service.ts';

/** Health and the published contract: both public. */
export function registerSystemRoutes(app: FastifyInstance, status: SystemStatusService): void {
  app.get('/api/health', async () => ({
    status: 'ok',
    contract_version: CONTRACT_VERSION,
    contract_hash: CONTRACT_HASH,
    ffmpeg: status.toolReport('ffmpeg'),
    ffprobe: status.toolReport('ffprobe'),
    transcode_available: status.transcodeAvailable,
    warnings: status.warnings(),
  }));

  app.get('/api/contract', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(CONTRACT_BUNDLE),
  );
}
