import type { FastifyRequest } from 'fastify';
import type { StreamService } from '../services/playback/stream.service.ts';
import { bearerToken, secretsEqual } from './plugins/auth.ts';

/**
 * The one check of every byte-serving playback route (stream, HLS, subtitles): the signed playback
 * token bound to this file and device, or the admin bearer. Returns the device (`web` when absent).
 * @throws AppError 401 as StreamService.authorize says
 */
export function authorizePlayback(
  request: FastifyRequest<{ Params: { id: number }; Querystring: { device?: string; token?: string } }>,
  streams: Pick<StreamService, 'authorize'>,
  apiToken: string,
): string {
  const device =
    request.query.device === undefined || request.query.device === '' ? 'web' : request.query.device;
  const bearer = bearerToken(request);
  streams.authorize(
    request.params.id,
    device,
    request.query.token,
    bearer !== null && secretsEqual(bearer, apiToken),
  );
  return device;
}
