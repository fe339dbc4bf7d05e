import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HlsService } from '../../services/playback/hls.service.ts';
import type { PlaybackTokenService } from '../../services/playback/playback-token.service.ts';
import type { StreamService } from '../../services/playback/stream.service.ts';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import { AppError } from '../../errors.ts';
import { authorizePlayback } from '../playback-auth.ts';
import { idParams } from '../schemas.ts';
import { sendBytes, sendHlsFile, sendPlaylist, STREAM_CACHE_CONTROL } from '../stream-response.ts';

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    device: { type: 'string', maxLength: 64 },
    token: { type: 'string', maxLength: 256 },
    /** A subtitle track to draw into the picture (an image track the player cannot show). */
    burn_subtitle: { type: 'integer', minimum: 0, maximum: 9999 },
  },
} as const;

const renditionParams = {
  type: 'object',
  required: ['id', 'rendition'],
  properties: {
    id: idParams.properties.id,
    rendition: { type: 'string', pattern: '^(v|a[0-9]{1,3}|s[0-9]{1,4})$' },
    segment: { type: 'string', maxLength: 32 },
  },
} as const;

type Query = { device?: string; token?: string; burn_subtitle?: number };

/**
 * HLS for conversions (RFC 8216, MPEG-TS or fMP4 segments): the master playlist, one media playlist per rendition,
 * their initialization sections and segments, all under the file's signed playback token.
 */
export function registerHlsRoutes(
  app: FastifyInstance,
  hls: HlsService,
  streams: StreamService,
  tokens: PlaybackTokenService,
  plays: Pick<NowPlayingService, 'seen'>,
): void {
  /**
   * Checks the token (or a bearer that may play), keeps the person's play going, and gives the
   * query the playlists' URIs carry on (a bearer's request gets a token signed for its person).
   */
  const authorize = async (request: FastifyRequest<{ Params: { id: number }; Querystring: Query }>) => {
    const { device, holder } = await authorizePlayback(request, streams);
    await plays.seen({ holder, fileId: request.params.id, device });
    const token = request.query.token ?? tokens.sign(request.params.id, device, holder);
    const burn = request.query.burn_subtitle;
    // Every URI of the presentation carries the same choice, so its playlists and segments agree.
    const carried = new URLSearchParams({
      device,
      token,
      ...(burn === undefined ? {} : { burn_subtitle: String(burn) }),
    });
    return { device, carried: carried.toString(), burn };
  };

  app.get<{ Params: { id: number }; Querystring: Query }>(
    '/stream/media_file/:id/master.m3u8',
    { schema: { params: idParams, querystring: query } },
    async (request, reply) => {
      const { device, carried, burn } = await authorize(request);
      return sendPlaylist(request, reply, await hls.masterPlaylist(request.params.id, device, carried, burn));
    },
  );

  app.get<{ Params: { id: number; rendition: string }; Querystring: Query }>(
    '/stream/media_file/:id/hls/:rendition/index.m3u8',
    { schema: { params: renditionParams, querystring: query } },
    async (request, reply) => {
      const { device, carried, burn } = await authorize(request);
      const { id, rendition } = request.params;
      const text = rendition.startsWith('s')
        ? await hls.subtitlePlaylist(id, device, Number(rendition.slice(1)), carried, burn)
        : await hls.mediaPlaylist(id, device, rendition, carried, burn);
      return sendPlaylist(request, reply, text);
    },
  );

  app.route<{ Params: { id: number; rendition: string; segment: string }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/hls/:rendition/:segment',
    schema: { params: renditionParams, querystring: query },
    handler: async (request, reply) => {
      const { device, burn } = await authorize(request);
      const { id, rendition, segment } = request.params;
      if (rendition.startsWith('s')) {
        const part = /^(\d{1,6})\.vtt$/.exec(segment);
        if (part === null) {
          throw new AppError('not_found', {
            status: 404,
            message: 'The segments of a subtitle rendition are <n>.vtt.',
          });
        }
        const vtt = await hls.subtitleSegment(id, device, Number(rendition.slice(1)), Number(part[1]), burn);
        return sendBytes(
          request,
          reply,
          { body: vtt.body, etag: vtt.etag, lastModified: null, contentType: 'text/vtt; charset=utf-8' },
          STREAM_CACHE_CONTROL,
        );
      }
      // The playlist names MPEG-TS files .ts and fMP4 ones .mp4/.m4s (see hlsFileNames).
      const type = (ts: boolean) =>
        ts ? 'video/mp2t' : rendition.startsWith('a') ? 'audio/mp4' : 'video/mp4';
      if (segment === 'init.mp4')
        return sendHlsFile(request, reply, await hls.init(id, device, rendition, burn), type(false));
      const match = /^(\d{1,6})\.(m4s|ts)$/.exec(segment);
      if (match === null) {
        throw new AppError('not_found', {
          status: 404,
          message: 'HLS files are index.m3u8 and <n>.ts (MPEG-TS), or init.mp4 and <n>.m4s (fMP4).',
        });
      }
      const served = await hls.segment(id, device, rendition, Number(match[1]), burn);
      return sendHlsFile(request, reply, served, type(match[2] === 'ts'));
    },
  });
}
