import { CONTRACT_BUNDLE, CONTRACT_HASH, CONTRACT_VERSION } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { NodeStatusService } from '../../services/system/node-status.service.ts';
import type { SystemStatusService } from '../../services/system/system-status.service.ts';
import { principalOrNull } from '../principal.ts';

/** Health and the published contract: both public. */
export function registerSystemRoutes(
  app: FastifyInstance,
  status: SystemStatusService,
  nodes: NodeStatusService,
): void {
  // Anyone may ask whether the server is up and which tools it has; where they are installed (a home
  // folder, a user name) is said only to the admin.
  app.get('/api/health', async (request) => {
    const admin = principalOrNull(request)?.role === 'admin';
    const tool = (name: 'ffmpeg' | 'ffprobe') => {
      const report = status.toolReport(name);
      return admin ? report : { ...report, path: null };
    };
    return {
      status: 'ok',
      contract_version: CONTRACT_VERSION,
      contract_hash: CONTRACT_HASH,
      ffmpeg: tool('ffmpeg'),
      ffprobe: tool('ffprobe'),
      transcode_available: status.transcodeAvailable,
      warnings: status.warnings(),
      // The nodes sharing the database (docs/cluster.md); their machines only for the admin.
      nodes: await nodes.nodes(admin),
    };
  });

  app.get('/api/contract', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(CONTRACT_BUNDLE),
  );
}
