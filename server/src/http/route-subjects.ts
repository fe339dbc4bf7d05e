import { AppError, notFound } from '../errors.ts';
import type { Subject } from '../services/people/visibility.service.ts';

/** What a route answers for an id that names nothing: an ApiError, or (a page) the not-found page's text. */
export type Absent = AppError | { page: string };

export interface RouteSubject {
  /** The film (or file, or job) the route's params name; null when they name no id (the route answers). */
  subject(params: Readonly<Record<string, unknown>>): Subject | null;
  /** The route's own answer to a missing id: a hidden film gets exactly this (its existence is not told). */
  absent(params: Readonly<Record<string, unknown>>): Absent;
}

/** A positive integer id from params (validated routes give numbers, pages give text); else null. */
function id(params: Readonly<Record<string, unknown>>, name: string): number | null {
  const value = params[name];
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,10}$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

const movie = (param: string): RouteSubject => ({
  subject: (p) => {
    const movieId = id(p, param);
    return movieId === null ? null : { movieId };
  },
  absent: (p) => notFound('movie', String(p[param])),
});

const mediaFile = (param: string): RouteSubject => ({
  subject: (p) => {
    const mediaFileId = id(p, param);
    return mediaFileId === null ? null : { mediaFileId };
  },
  absent: (p) => notFound('media file', String(p[param])),
});

/**
 * Which film each by-id route names (issue 22 §3), in one table beside http/route-access.ts: URL
 * pattern as registered → how its params map to a movie, a media file or a job, and what the route
 * answers for a missing id. The guard (http/plugins/visibility-guard.ts) checks every request of
 * these routes, whatever the method, before the handler runs. A pattern ending in `/*` covers every
 * route below it, so a route added later under `/api/movies/:id/…` or `/stream/media_file/:id/…` is
 * guarded without an edit here; server/test/integration/visibility-walk.test.ts walks them all.
 */
export const ROUTE_SUBJECTS: Readonly<Record<string, RouteSubject>> = {
  '/api/movies/:id': movie('id'),
  '/api/movies/:id/*': movie('id'),
  '/movie/:id': {
    ...movie('id'),
    absent: (p) => ({ page: `There is no movie with id ${String(p.id)}.` }),
  },
  '/artwork/:movieId/:kind': {
    ...movie('movieId'),
    absent: (p) =>
      new AppError('not_found', {
        message: `Movie ${String(p.movieId)} has no ${String(p.kind)}.`,
        hint: 'POST /api/artwork/fetch fetches artwork.',
      }),
  },
  '/api/media-file/:id/*': mediaFile('id'),
  // Streams, HLS playlists and segments, subtitles: the person is the bearer's (a signed playback
  // token's own person once tokens carry it; see docs/visibility.md).
  '/stream/media_file/:id': mediaFile('id'),
  '/stream/media_file/:id/*': mediaFile('id'),
  '/api/jobs/:id': {
    subject: (p) => {
      const jobId = id(p, 'id');
      return jobId === null ? null : { jobId };
    },
    absent: (p) => notFound('job', String(p.id)),
  },
};

/** The entry for a registered route URL: its own, else the nearest `…/*` above it; undefined: none. */
export function routeSubject(url: string): RouteSubject | undefined {
  const own = ROUTE_SUBJECTS[url];
  if (own !== undefined) return own;
  const parts = url.split('/');
  for (let end = parts.length - 1; end > 1; end--) {
    const wider = ROUTE_SUBJECTS[`${parts.slice(0, end).join('/')}/*`];
    if (wider !== undefined) return wider;
  }
  return undefined;
}
