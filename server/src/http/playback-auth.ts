import type { FastifyRequest } from 'fastify';
import { permits } from '../domain/people/access.ts';
import type { TokenHolder } from '../domain/playback-token.ts';
import type { StreamService } from '../services/playback/stream.service.ts';
import { principalOrNull } from './principal.ts';

/** Who a playback request plays for, on which device. */
export interface PlaybackAuthorization {
  device: string;
  holder: TokenHolder;
}

/**
 * The one check of every byte-serving playback route (stream, HLS, subtitles): the signed playback
 * token bound to this file, device, person and credential, or an `Authorization` bearer the auth
 * hook accepted whose person and scope may play (the admin token among them). The device is `web`
 * when absent.
 * @throws AppError 401 as StreamService.authorize says
 */
export async function authorizePlayback(
  request: FastifyRequest<{ Params: { id: number }; Querystring: { device?: string; token?: string } }>,
  streams: Pick<StreamService, 'authorize'>,
): Promise<PlaybackAuthorization> {
  const device =
    request.query.device === undefined || request.query.device === '' ? 'web' : request.query.device;
  const principal = principalOrNull(request);
  const bearer =
    principal !== null && permits(principal.role, principal.credential.scope, 'playback', request.method).ok
      ? { userId: principal.userId, credential: principal.credential }
      : null;
  const holder = await streams.authorize(request.params.id, device, request.query.token, bearer);
  return { device, holder };
}
