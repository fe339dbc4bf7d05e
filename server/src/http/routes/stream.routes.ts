import type { PrewarmResponse } from '@reelshelf/contract';
import { schemaId } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { ArtifactService, ArtifactState } from '../../services/playback/artifact.service.ts';
import type { StreamService } from '../../services/playback/stream.service.ts';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import { authorizePlayback } from '../playback-auth.ts';
import { idParams } from '../schemas.ts';
import { sendAccelRedirect, sendFile, sendGrowing } from '../stream-response.ts';

const streamQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    device: { type: 'string', maxLength: 64 },
    token: { type: 'string', maxLength: 256 },
  },
} as const;

/** The device prewarm-tv targets (spec §4.3: the TV-box player). */
const PREWARM_DEVICE = 'tv';

/** PrewarmResponse (spec §2.9) for an artifact state. */
export function prewarmBody(state: ArtifactState): PrewarmResponse {
  switch (state.status) {
    case 'ready':
      return { status: 'ready' };
    case 'not_needed':
      return { status: 'not_needed', reason: state.reason };
    case 'not_ready':
      return { status: 'not_ready', reason: state.reason };
    case 'building':
      return { status: 'building', message: `Preparing for the TV: ${state.percent.toFixed(1)}% done.` };
    case 'cancelled':
      return { status: 'cancelled' };
  }
}

/** GET/HEAD /stream/media_file/{id} and the prewarm-tv routes. */
export function registerStreamRoutes(
  app: FastifyInstance,
  streams: StreamService,
  artifacts: ArtifactService,
  plays: Pick<NowPlayingService, 'seen'>,
  /** The nginx location complete files are handed to (X-Accel-Redirect); null = sent in-process. */
  accelRedirect: string | null = null,
): void {
  app.route<{ Params: { id: number }; Querystring: { device?: string; token?: string } }>({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id',
    schema: { params: idParams, querystring: streamQuery },
    // Media bytes are never compressed: no compression hooks on the hot path (nor on its refusals,
    // which are a few hundred bytes).
    compress: false,
    handler: async (request, reply) => {
      const { device, holder } = await authorizePlayback(request, streams);
      const target = await streams.target(request.params.id, device);
      // A play of this person starts (or goes on): the history and the admin's "now playing".
      const direct = target.kind === 'file' && target.artifactKey === null;
      await plays.seen({
        holder,
        fileId: request.params.id,
        device,
        mode: direct ? 'direct' : 'converted',
      });
      // Read here (not handed to nginx): in use on every node for as long as the response is open.
      if (target.artifactKey !== null && (target.kind === 'growing' || accelRedirect === null)) {
        reply.raw.once('close', streams.reading(target.artifactKey));
      }
      if (target.kind === 'file') {
        return accelRedirect === null
          ? sendFile(request, reply, target)
          : sendAccelRedirect(reply, target, accelRedirect);
      }
      return sendGrowing(
        request,
        reply,
        target,
        () => streams.isBuilding(target),
        async () => {
          const next = await streams.target(request.params.id, device).catch(() => null);
          return next?.kind === 'file' ? next : null;
        },
      );
    },
  });

  const prewarmSchema = { params: idParams, response: { 200: { $ref: `${schemaId('prewarm')}#` } } };

  app.get<{ Params: { id: number } }>(
    '/api/media-file/:id/prewarm-tv',
    { schema: prewarmSchema },
    async (request) => prewarmBody(await artifacts.state(request.params.id, PREWARM_DEVICE)),
  );

  app.post<{ Params: { id: number } }>(
    '/api/media-file/:id/prewarm-tv',
    {
      schema: {
        params: idParams,
        response: { 200: prewarmSchema.response[200], 202: prewarmSchema.response[200] },
      },
    },
    async (request, reply) => {
      // A prewarm makes the HLS segments (what a TV plays) and remuxes the progressive file from them.
      const state = await artifacts.start(request.params.id, PREWARM_DEVICE, { via: 'hls' });
      return reply.code(state.status === 'building' ? 202 : 200).send(prewarmBody(state));
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/api/media-file/:id/prewarm-tv',
    { schema: prewarmSchema },
    async (request) => {
      const cancelled = await artifacts.cancel(request.params.id, PREWARM_DEVICE);
      if (cancelled) return { status: 'cancelled' } satisfies PrewarmResponse;
      return {
        status: 'not_building',
        message: 'Nothing is being prepared for this file.',
      } satisfies PrewarmResponse;
    },
  );
}
