import type { FastifyInstance } from 'fastify';
import type { PlaybackService } from '../../services/playback/playback.service.ts';
import { principalOf } from '../principal.ts';
import { idParams, libraryQuery } from '../schemas.ts';

const nullableString = { type: ['string', 'null'] } as const;

/** PlaybackInfo (services/playback/playback.service.ts); not part of the frozen contract. */
export const playbackInfoSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'prediction',
    'is_playable',
    'stream_url',
    'hls_url',
    'duration_seconds',
    'warnings',
    'subtitles',
  ],
  properties: {
    prediction: { type: 'string', enum: ['direct', 'remux', 'adaptive', 'transcode', 'strict_incompatible'] },
    is_playable: { type: 'boolean' },
    stream_url: { type: 'string' },
    hls_url: nullableString,
    duration_seconds: { type: ['number', 'null'] },
    warnings: { type: 'array', items: { type: 'string' } },
    subtitles: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'language', 'label', 'forced', 'default', 'sdh', 'format', 'kind', 'url'],
        properties: {
          index: { type: 'integer' },
          language: nullableString,
          label: { type: 'string' },
          forced: { type: 'boolean' },
          default: { type: 'boolean' },
          sdh: { type: 'boolean' },
          format: { type: 'string' },
          kind: { type: 'string', enum: ['text', 'image'] },
          url: nullableString,
        },
      },
    },
  },
} as const;

/** GET /api/media-file/{id}/playback?device=: which URL a player opens (bearer or session). */
export function registerPlaybackRoutes(app: FastifyInstance, playback: PlaybackService): void {
  app.get<{ Params: { id: number }; Querystring: { device?: string } }>(
    '/api/media-file/:id/playback',
    { schema: { params: idParams, querystring: libraryQuery, response: { 200: playbackInfoSchema } } },
    // The URLs are signed for the person asking and the credential they used.
    async (request) => playback.info(request.params.id, request.query.device, principalOf(request)),
  );
}
