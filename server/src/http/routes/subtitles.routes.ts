import type { FastifyInstance } from 'fastify';
import type { StreamService } from '../../services/playback/stream.service.ts';
import type { SubtitleVttService } from '../../services/playback/subtitle-vtt.service.ts';
import { AppError } from '../../errors.ts';
import { authorizePlayback } from '../playback-auth.ts';
import { idParams } from '../schemas.ts';
import { sendFile, STREAM_CACHE_CONTROL } from '../stream-response.ts';

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    device: { type: 'string', maxLength: 64 },
    token: { type: 'string', maxLength: 256 },
  },
} as const;

const params = {
  type: 'object',
  required: ['id', 'track'],
  properties: {
    id: idParams.properties.id,
    track: { type: 'string', maxLength: 16 },
  },
} as const;

type Query = { device?: string; token?: string };

export const WEBVTT_CONTENT_TYPE = 'text/vtt; charset=utf-8';

/**
 * `GET|HEAD /stream/media_file/{id}/subtitles/{index}.vtt?device=&token=`: a text subtitle track as
 * WebVTT, under the file's signed playback token (or a bearer that may play), as the stream and HLS routes
 * are; ranges and conditional requests as for every served file (docs/http.md).
 */
export function registerSubtitleRoutes(
  app: FastifyInstance,
  subtitles: SubtitleVttService,
  streams: StreamService,
): void {
  app.route<{ Params: { id: number; track: string }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/subtitles/:track',
    schema: { params, querystring: query },
    handler: async (request, reply) => {
      await authorizePlayback(request, streams);
      const match = /^(\d{1,4})\.vtt$/.exec(request.params.track);
      if (match === null) {
        throw new AppError('not_found', {
          message: 'Subtitle tracks are served as <index>.vtt.',
          hint: `GET /api/media-file/${request.params.id}/playback lists the tracks with their URLs.`,
        });
      }
      const served = await subtitles.vtt(request.params.id, Number(match[1]));
      return sendFile(
        request,
        reply,
        {
          file: served.file,
          etag: served.etag,
          lastModified: served.lastModified,
          contentType: WEBVTT_CONTENT_TYPE,
        },
        STREAM_CACHE_CONTROL,
      );
    },
  });
}
