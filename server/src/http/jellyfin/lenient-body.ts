import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';

/**
 * The apps post their reports and void calls with whatever Content-Type their HTTP stack picks
 * (the SDK's axios sends `application/x-www-form-urlencoded` with no body; others send
 * `application/json` with an empty one, or JSON as `text/plain`). Inside the facade's scope a body
 * of any type is read as JSON, and an empty one is no body, instead of 415 or 400.
 */
export function acceptAnyJsonBody(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
    const text = typeof body === 'string' ? body.trim() : body.toString('utf8').trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(
        new AppError('validation_failed', {
          message: 'The body is not JSON.',
          hint: 'Send the report as a JSON object, as Jellyfin does.',
        }),
        undefined,
      );
    }
  });
}
