import type { FastifyInstance } from 'fastify';
import { emptyBodyIsNoOptions } from '../schemas.ts';
import type { ArtworkService } from '../../services/metadata/artwork.service.ts';
import { sendFile } from '../stream-response.ts';

/** A `?v=` in the URL changes with the image, so a day of caching is safe; then revalidate. */
const ARTWORK_CACHE_CONTROL = 'private, max-age=86400';

const fetchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    movie_ids: { type: 'array', maxItems: 10000, items: { type: 'integer', minimum: 1 } },
  },
} as const;

const waitQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { wait: { type: 'boolean', default: false } },
} as const;

const imageParams = {
  type: 'object',
  required: ['movieId', 'kind'],
  additionalProperties: false,
  properties: {
    movieId: { type: 'integer', minimum: 1 },
    kind: { type: 'string', enum: ['poster', 'backdrop'] },
  },
} as const;

const imageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    w: { type: 'integer', minimum: 1, maximum: 10000 },
    v: { type: 'string', maxLength: 64 },
  },
} as const;

/** POST /api/artwork/fetch and GET/HEAD /artwork/{movie_id}/{poster|backdrop}. */
export function registerArtworkRoutes(app: FastifyInstance, artwork: ArtworkService): void {
  app.post<{ Body: { movie_ids?: number[] } | undefined; Querystring: { wait: boolean } }>(
    '/api/artwork/fetch',
    { schema: { body: fetchBody, querystring: waitQuery }, preValidation: emptyBodyIsNoOptions },
    async (request, reply) => {
      const jobId = await artwork.start(request.body?.movie_ids ?? null);
      if (request.query.wait) return reply.code(200).send(await artwork.wait(jobId));
      return reply.code(202).send({ job_id: jobId });
    },
  );

  // HEAD is declared, not derived from GET: Fastify's derived HEAD would reset Content-Length to 0.
  app.route<{ Params: { movieId: number; kind: 'poster' | 'backdrop' }; Querystring: { w?: number } }>({
    method: ['GET', 'HEAD'],
    url: '/artwork/:movieId/:kind',
    schema: { params: imageParams, querystring: imageQuery },
    handler: async (request, reply) => {
      const image = await artwork.image(request.params.movieId, request.params.kind, request.query.w);
      // The same RFC 9110 preconditions and ranges as the streams; the bytes come through the service.
      return sendFile(request, reply, image, ARTWORK_CACHE_CONTROL);
    },
  });
}
