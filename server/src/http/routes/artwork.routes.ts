import type { FastifyInstance } from 'fastify';
import { emptyBodyIsNoOptions } from '../schemas.ts';
import type { ArtworkService } from '../../services/artwork.service.ts';

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

/** POST /api/artwork/fetch and GET /artwork/{movie_id}/{poster|backdrop}. */
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

  app.get<{ Params: { movieId: number; kind: 'poster' | 'backdrop' }; Querystring: { w?: number } }>(
    '/artwork/:movieId/:kind',
    { schema: { params: imageParams, querystring: imageQuery } },
    async (request, reply) => {
      const image = await artwork.image(request.params.movieId, request.params.kind, request.query.w);
      reply.header('etag', image.etag);
      reply.header('last-modified', image.lastModified.toUTCString());
      reply.header('cache-control', 'private, max-age=86400');
      if (request.headers['if-none-match'] === image.etag) return reply.code(304).send();
      return reply.type(image.contentType).send(image.open());
    },
  );
}
