import type { CreateMovieInput, PatchMovieInput } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import type { MovieService } from '../../services/library/movie.service.ts';
import type { VisibilityService } from '../../services/people/visibility.service.ts';
import { viewerOf } from '../principal.ts';
import { createMovieBody, idParams, listMoviesQuery, patchMovieBody } from '../schemas.ts';

/** /api/movies: listing, creation, one movie's details, edits and deletion. */
export function registerMovieRoutes(
  app: FastifyInstance,
  movies: MovieService,
  visibility: Pick<VisibilityService, 'filter'>,
): void {
  // One movie by id is guarded by http/route-subjects.ts; the list and the search are filtered here.
  app.get<{ Querystring: { q?: string; limit: number; offset: number; on_loan?: boolean } }>(
    '/api/movies',
    { schema: { querystring: listMoviesQuery } },
    async (request) =>
      movies.list(
        request.query.q,
        request.query.limit,
        request.query.offset,
        visibility.filter(viewerOf(request)),
        request.query.on_loan === true,
      ),
  );

  app.post<{ Body: CreateMovieInput }>(
    '/api/movies',
    { schema: { body: createMovieBody } },
    async (request, reply) => reply.code(201).send(await movies.create(request.body)),
  );

  app.get<{ Params: { id: number } }>('/api/movies/:id', { schema: { params: idParams } }, async (request) =>
    movies.get(request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: PatchMovieInput }>(
    '/api/movies/:id',
    { schema: { params: idParams, body: patchMovieBody } },
    async (request) => movies.update(request.params.id, request.body),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/movies/:id',
    { schema: { params: idParams } },
    async (request, reply) => {
      await movies.delete(request.params.id);
      return reply.code(204).send();
    },
  );
}
