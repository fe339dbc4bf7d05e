import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VisibilityService } from '../../services/people/visibility.service.ts';
import { viewerOrNull } from '../principal.ts';
import { routeSubject } from '../route-subjects.ts';

export interface VisibilityGuardOptions {
  visibility: Pick<VisibilityService, 'canSee'>;
  /** Renders the not-found page (a page route's answer to a missing id). */
  pageNotFound(request: FastifyRequest, reply: FastifyReply, message: string): FastifyReply;
}

/**
 * The by-id half of the one visibility rule: every request of a route in http/route-subjects.ts is
 * checked after the auth hook said who asks and before the handler runs. A film the person may not
 * see is answered exactly as a missing id is (404, the route's own message), so its existence is
 * not told. A person without a limit costs one map lookup.
 */
export function registerVisibilityGuard(app: FastifyInstance, options: VisibilityGuardOptions): void {
  app.addHook('preHandler', async (request, reply) => {
    const url = request.routeOptions.url;
    if (url === undefined) return;
    const viewer = viewerOrNull(request);
    if (viewer === null || viewer.limit === null) return;
    const entry = routeSubject(url);
    if (entry === undefined) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const subject = entry.subject(params);
    if (subject === null || (await options.visibility.canSee(viewer, subject))) return;
    const absent = entry.absent(params);
    if ('page' in absent) return options.pageNotFound(request, reply, absent.page);
    throw absent;
  });
}
