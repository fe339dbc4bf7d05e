import type { TrickplayInfo } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamService } from '../../services/playback/stream.service.ts';
import type { TrickplayServingService } from '../../services/trickplay/trickplay-serving.service.ts';
import { AppError } from '../../errors.ts';
import { authorizePlayback } from '../playback-auth.ts';
import { principalOf } from '../principal.ts';
import { idParams } from '../schemas.ts';
import { sendFile, sendPlaylist, STREAM_CACHE_CONTROL } from '../stream-response.ts';

/** A sheet's URL names its set's generation: its bytes never change under it. */
export const SHEET_CACHE_CONTROL = 'private, max-age=31536000, immutable';

const streamQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    device: { type: 'string', maxLength: 64 },
    token: { type: 'string', maxLength: 256 },
  },
} as const;

const infoQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { device: { type: 'string', maxLength: 64 } },
} as const;

const infoSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'status',
    'mode',
    'interval_ms',
    'width',
    'height',
    'tile_width',
    'tile_height',
    'thumbnail_count',
    'sheets',
  ],
  properties: {
    status: { type: 'string', enum: ['ready'] },
    mode: { type: 'string', enum: ['keyframes', 'accurate'] },
    interval_ms: { type: 'integer' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    tile_width: { type: 'integer' },
    tile_height: { type: 'integer' },
    thumbnail_count: { type: 'integer' },
    sheets: { type: 'array', items: { type: 'string' } },
  },
} as const;

const sheetParams = {
  type: 'object',
  required: ['id', 'generation', 'sheet'],
  properties: {
    id: idParams.properties.id,
    generation: { type: 'integer', minimum: 1, maximum: 2147483647 },
    sheet: { type: 'string', maxLength: 16 },
  },
} as const;

type StreamQuery = { device?: string; token?: string };
type SheetRequest = FastifyRequest<{
  Params: { id: number; generation: number; sheet: string };
  Querystring: StreamQuery;
}>;

/** `<n>.jpg` → n; anything else names no sheet. */
function sheetIndex(id: number, name: string): number {
  const match = /^(\d{1,6})\.jpg$/.exec(name);
  if (match === null) {
    throw new AppError('not_found', {
      message: 'Trickplay sheets are <index>.jpg.',
      hint: `GET /api/media-file/${id}/trickplay lists the sheet URLs.`,
    });
  }
  return Number(match[1]);
}

/**
 * Seek thumbnails for reelshelf's own clients (docs/trickplay.md "Serving"): the API answer (bearer
 * or session; the visibility guard covers /api/media-file/:id/*) and the files under /stream, each
 * checked like every stream URL (the signed playback token of its file and device, or a bearer
 * that may play; the token's person must still see the film).
 */
export function registerTrickplayStreamRoutes(
  app: FastifyInstance,
  trickplay: TrickplayServingService,
  streams: StreamService,
): void {
  app.get<{ Params: { id: number }; Querystring: { device?: string } }>(
    '/api/media-file/:id/trickplay',
    { schema: { params: idParams, querystring: infoQuery, response: { 200: infoSchema } } },
    // The sheet URLs are signed for the person asking and the credential they used.
    async (request): Promise<TrickplayInfo> =>
      trickplay.info(request.params.id, request.query.device, principalOf(request)),
  );

  const sheet = (variant: 'sheets' | 'roku') => async (request: SheetRequest, reply: FastifyReply) => {
    await authorizePlayback(request, streams);
    const { id, generation } = request.params;
    const served = await trickplay.sheet(id, generation, variant, sheetIndex(id, request.params.sheet));
    return sendFile(request, reply, served, SHEET_CACHE_CONTROL);
  };
  // HEAD is declared, not derived from GET: Fastify's derived HEAD would reset Content-Length to 0.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/trickplay/:generation/:sheet',
    schema: { params: sheetParams, querystring: streamQuery },
    compress: false,
    handler: sheet('sheets'),
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/trickplay/:generation/roku/:sheet',
    schema: { params: sheetParams, querystring: streamQuery },
    compress: false,
    handler: sheet('roku'),
  });

  app.route<{ Params: { id: number }; Querystring: StreamQuery }>({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/trickplay/tiles.m3u8',
    schema: { params: idParams, querystring: streamQuery },
    handler: async (request, reply) => {
      const { device, holder } = await authorizePlayback(request, streams);
      const text = await trickplay.tilesPlaylist(request.params.id, device, holder, request.query.token);
      return sendPlaylist(request, reply, text);
    },
  });

  app.route<{ Params: { id: number }; Querystring: StreamQuery }>({
    method: ['GET', 'HEAD'],
    url: '/stream/media_file/:id/trickplay.bif',
    schema: { params: idParams, querystring: streamQuery },
    compress: false,
    handler: async (request, reply) => {
      await authorizePlayback(request, streams);
      return sendFile(request, reply, await trickplay.bif(request.params.id), STREAM_CACHE_CONTROL);
    },
  });
}
