import { CONTRACT_BUNDLE, CONTRACT_HASH, CONTRACT_VERSION } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { SystemStatusService } from '../../services/system/system-status.service.ts';
import { principalOrNull } from '../principal.ts';

/** Health and the published contract: both public. */
export function registerSystemRoutes(app: FastifyInstance, status: SystemStatusService): void {
  // Anyone may ask whether the server is up and which tools it has; where they are installed (a home
  // folder, a user name) is said only to the admin.
  app.get('/api/health', async (request) => {
    const tool = (name: 'ffmpeg' | 'ffprobe') => {
      const report = status.toolReport(name);
      return principalOrNull(request)?.role === 'admin' ? report : { ...report, path: null };
    };
    return {
      status: 'ok',
      contract_version: CONTRACT_VERSION,
      contract_hash: CONTRACT_HASH,
      ffmpeg: tool('ffmpeg'),
      ffprobe: tool('ffprobe'),
      transcode_available: status.transcodeAvailable,
      warnings: status.warnings(),
    };
  });

  app.get('/api/contract', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(CONTRACT_BUNDLE),
  );
}
