import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DLNA_MEDIA_PREFIX } from '../../domain/dlna/paths.ts';
import { formatTimeSeekAnswer, parseTimeSeekRange } from '../../domain/dlna/time-seek.ts';
import { TV_FAMILIES, type TvFamily } from '../../domain/dlna/tv-family.ts';
import { AppError } from '../../errors.ts';
import type { DlnaMediaService } from '../../services/dlna/dlna-media.service.ts';
import { sendBytes, sendFile, STREAM_CACHE_CONTROL } from '../stream-response.ts';
import { requireDirectLanPeer } from './dlna.routes.ts';

const query = {
  type: 'object',
  properties: {
    token: { type: 'string', maxLength: 256 },
    v: { type: 'string', maxLength: 64 },
  },
} as const;

const family = { type: 'string', enum: [...TV_FAMILIES] } as const;
const id = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;

const fileParams = {
  type: 'object',
  required: ['family', 'fileId', 'name'],
  properties: { family, fileId: id, name: { type: 'string', pattern: '^file\\.[a-z0-9]{1,5}$' } },
} as const;
const conversionParams = {
  type: 'object',
  required: ['family', 'fileId'],
  properties: { family, fileId: id },
} as const;
const subtitleParams = {
  type: 'object',
  required: ['family', 'fileId', 'name'],
  properties: { family, fileId: id, name: { type: 'string', pattern: '^[0-9]{1,4}\\.srt$' } },
} as const;
const artParams = {
  type: 'object',
  required: ['family', 'movieId', 'name'],
  properties: { family, movieId: id, name: { type: 'string', enum: ['JPEG_TN.jpg', 'JPEG_SM.jpg'] } },
} as const;

type Query = { token?: string; v?: string };

/** Resized covers change URL (`v`) with the image: a day's caching is safe. */
const ART_CACHE_CONTROL = 'private, max-age=86400';
/** DLNA's real-time info: no limit on how far behind live a renderer may be (every stream here is stored). */
const REAL_TIME_INFO = 'DLNA.ORG_TLAG=*';
const TRANSFER_MODES = new Set(['streaming', 'interactive', 'background']);

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

/** `getcontentFeatures.dlna.org: 1` and its kin: what a TV asks for by sending `1`. */
function asked(request: FastifyRequest, name: string): boolean {
  return header(request, name)?.trim() === '1';
}

/** The request's `transferMode.dlna.org` echoed when it is one of DLNA's three, else the kind's default. */
function transferMode(request: FastifyRequest, fallback: 'Streaming' | 'Interactive'): string {
  const mode = header(request, 'transfermode.dlna.org')?.trim() ?? '';
  return TRANSFER_MODES.has(mode.toLowerCase()) ? mode : fallback;
}

/** `http://<host:port>` as the TV reached us (Host, else the local address), for URLs in headers. */
function baseUrlOf(request: FastifyRequest): string {
  const host = header(request, 'host');
  if (host !== null && /^[A-Za-z0-9.\-:[\]]{1,300}$/.test(host)) return `http://${host}`;
  const local = request.socket.localAddress ?? '127.0.0.1';
  const address =
    local.includes(':') && !local.startsWith('::ffff:') ? `[${local}]` : local.replace(/^::ffff:/, '');
  return `http://${address}:${request.socket.localPort ?? 80}`;
}

function dlnaHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  features: string | null,
  mode: 'Streaming' | 'Interactive',
): void {
  reply.header('transferMode.dlna.org', transferMode(request, mode));
  if (mode === 'Streaming') reply.header('realTimeInfo.dlna.org', REAL_TIME_INFO);
  if (features !== null && asked(request, 'getcontentfeatures.dlna.org')) {
    reply.header('contentFeatures.dlna.org', features);
  }
}

/**
 * The media under /dlna/media (issue 24 §4; docs/dlna.md "Media"): a file with RFC 9110 ranges
 * (byte seek), a conversion as one progressive MPEG-TS with DLNA time seek, SRT subtitles and
 * resized covers. GET and HEAD; only LAN peers (403 otherwise); no credential but the URL's signed
 * token, which the service checks with the DLNA person's visibility on every request.
 */
export function registerDlnaMediaRoutes(app: FastifyInstance, media: DlnaMediaService): void {
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith(`${DLNA_MEDIA_PREFIX}/`)) requireDirectLanPeer(request);
  });
  // A closing server ends its conversion streams, so their requests do not hold the close.
  app.addHook('preClose', async () => media.close());

  app.route<{ Params: { family: TvFamily; fileId: number; name: string }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: `${DLNA_MEDIA_PREFIX}/:family/:fileId/:name`,
    schema: { params: fileParams, querystring: query },
    handler: async (request, reply) => {
      const { family: tv, fileId } = request.params;
      const token = request.query.token;
      const viewer = await media.authorize('media', fileId, tv, token);
      const served = await media.file(fileId, tv, token ?? '');
      if (request.method === 'GET') await media.played(viewer, fileId, tv, 'direct');
      dlnaHeaders(request, reply, served.contentFeatures, 'Streaming');
      if (served.captionPath !== null && asked(request, 'getcaptioninfo.sec')) {
        reply.header('CaptionInfo.sec', `${baseUrlOf(request)}${served.captionPath}`);
      }
      if (served.durationSeconds !== null && asked(request, 'getmediainfo.sec')) {
        reply.header('MediaInfo.sec', `SEC_Duration=${Math.round(served.durationSeconds * 1000)};`);
      }
      return sendFile(request, reply, served, STREAM_CACHE_CONTROL);
    },
  });

  app.route<{ Params: { family: TvFamily; fileId: number }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: `${DLNA_MEDIA_PREFIX}/:family/:fileId/conversion.ts`,
    schema: { params: conversionParams, querystring: query },
    handler: async (request, reply) => {
      const { family: tv, fileId } = request.params;
      const viewer = await media.authorize('media', fileId, tv, request.query.token);
      const seekHeader = header(request, 'timeseekrange.dlna.org');
      const seek = seekHeader === null ? null : parseTimeSeekRange(seekHeader);
      if (seek === 'malformed' || seek === 'out-of-range') {
        throw new AppError('bad_request', {
          message: 'TimeSeekRange.dlna.org is not an npt range.',
          hint: 'Send npt=<start>- or npt=<start>-<end>, times as H:MM:SS.mmm or seconds.',
        });
      }
      const answer = await media.conversion(fileId, tv, seek);
      const { plan } = answer;
      // A Range is ignored (RFC 9110 §14.2): a conversion has no byte positions before it is made,
      // so `bytes=0-` and every other range get the stream from the start (or the asked time). TVs
      // seek in it by time (DLNA.ORG_OP=10), as its contentFeatures say.
      reply.code(200).header('content-type', 'video/mpeg').header('accept-ranges', 'none');
      reply.header('cache-control', 'no-store');
      dlnaHeaders(request, reply, answer.contentFeatures, 'Streaming');
      if (seek !== null) {
        reply.header(
          'TimeSeekRange.dlna.org',
          formatTimeSeekAnswer({ start: plan.start, end: plan.end }, answer.durationSeconds),
        );
      }
      if (asked(request, 'getmediainfo.sec')) {
        reply.header('MediaInfo.sec', `SEC_Duration=${Math.round(answer.durationSeconds * 1000)};`);
      }
      if (request.method === 'HEAD') return reply.send();
      await media.played(viewer, fileId, tv, 'converted');
      // The TV going away (or the answer ending) stops ffmpeg and the feeding of segments.
      const gone = new AbortController();
      reply.raw.on('close', () => gone.abort());
      const body = await media.stream(plan, gone.signal);
      return reply.send(body);
    },
  });

  app.route<{ Params: { family: TvFamily; fileId: number; name: string }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: `${DLNA_MEDIA_PREFIX}/:family/:fileId/subtitles/:name`,
    schema: { params: subtitleParams, querystring: query },
    handler: async (request, reply) => {
      const { family: tv, fileId, name } = request.params;
      await media.authorize('media', fileId, tv, request.query.token);
      const served = await media.subtitle(fileId, Number(name.slice(0, -'.srt'.length)));
      reply.header('transferMode.dlna.org', transferMode(request, 'Interactive'));
      return sendBytes(request, reply, { ...served, lastModified: null }, STREAM_CACHE_CONTROL);
    },
  });

  app.route<{ Params: { family: TvFamily; movieId: number; name: string }; Querystring: Query }>({
    method: ['GET', 'HEAD'],
    url: `${DLNA_MEDIA_PREFIX}/:family/art/:movieId/:name`,
    schema: { params: artParams, querystring: query },
    handler: async (request, reply) => {
      const { family: tv, movieId, name } = request.params;
      await media.authorize('art', movieId, tv, request.query.token);
      const served = await media.albumArtImage(movieId, name === 'JPEG_SM.jpg' ? 'JPEG_SM' : 'JPEG_TN');
      reply.header('transferMode.dlna.org', transferMode(request, 'Interactive'));
      if (served.contentFeatures !== null) reply.header('contentFeatures.dlna.org', served.contentFeatures);
      return sendBytes(request, reply, { ...served, lastModified: null }, ART_CACHE_CONTROL);
    },
  });
}
