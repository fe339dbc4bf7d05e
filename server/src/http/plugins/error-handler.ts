import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type CatalogueCode } from '../../errors.ts';

/** A Fastify error's answer: the code is the catalogue's (AppError takes no other). */
type FastifyCodeAnswer = { code: CatalogueCode; status: number; message: string; hint?: string };

/** Fastify's own failures, each mapped to a catalogue code a client can act on. */
const FASTIFY_CODES: Record<string, FastifyCodeAnswer> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    status: 413,
    message: 'The request body is larger than this route accepts.',
    hint: 'Send a smaller body, or split it into several requests.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    status: 415,
    message: 'This content type is not accepted here.',
    hint: 'Send application/json.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'validation_failed',
    status: 400,
    message: 'The request body is empty.',
    hint: 'Send a JSON object.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'invalid_json',
    status: 400,
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'validation_failed',
    status: 400,
    message: 'Content-Length does not match the body.',
  },
  FST_ERR_BAD_URL: { code: 'validation_failed', status: 400, message: 'The URL is malformed.' },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'validation_failed',
    status: 414,
    message: 'A part of the URL path is longer than any id this server gives out.',
  },
};

function send(reply: FastifyReply, error: AppError) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody());
}

/**
 * Fastify's `frameworkErrors` option: the errors its router raises before any hook or handler (a
 * malformed percent-escape, a path segment over `maxParamLength`) — without it Fastify writes its
 * own `{"error":"Bad Request","code":"FST_ERR_…"}` body, bypassing the error handler below.
 */
export function frameworkErrorReply(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const mapped = FASTIFY_CODES[err.code] ?? FASTIFY_CODES.FST_ERR_BAD_URL;
  if (mapped === undefined) return;
  void send(reply, fastifyError(mapped));
}

/** The ApiError one of Fastify's own error codes maps to (FASTIFY_CODES: typed catalogue codes). */
function fastifyError(mapped: FastifyCodeAnswer): AppError {
  return new AppError(mapped.code, {
    status: mapped.status,
    message: mapped.message,
    ...(mapped.hint === undefined ? {} : { hint: mapped.hint }),
  });
}

/** Renders every error as an ApiError (spec §2.10); never a stack trace, never HTML. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (err instanceof AppError) return send(reply, err);
    if (err.validation !== undefined) {
      const first = err.validation[0];
      const where = err.validationContext ?? 'request';
      const path = first?.instancePath ? first.instancePath.replace(/^\//, '') : '';
      const missing =
        first?.keyword === 'required' && typeof first.params.missingProperty === 'string'
          ? first.params.missingProperty
          : null;
      const extraProp =
        first?.keyword === 'additionalProperties' && typeof first.params.additionalProperty === 'string'
          ? first.params.additionalProperty
          : null;
      const field = [path, missing ?? extraProp].filter((p) => p !== null && p !== '').join('/') || where;
      const message =
        extraProp !== null ? `unknown field "${extraProp}"` : (first?.message ?? 'is not valid');
      return send(
        reply,
        new AppError('validation_failed', {
          message: `${where}${field === where ? '' : `.${field}`} ${message}`,
          extra: { field, in: where },
        }),
      );
    }
    const mapped = err.code === undefined ? undefined : FASTIFY_CODES[err.code];
    if (mapped !== undefined) return send(reply, fastifyError(mapped));
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status >= 400 && status < 500) {
      return send(
        reply,
        new AppError('bad_request', { status, message: 'The request could not be handled.' }),
      );
    }
    request.log.error({ err }, 'unhandled error');
    return send(reply, new AppError('internal_error'));
  });

  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      new AppError('not_found', {
        message: `No route ${request.method} ${request.url.split('?')[0]}.`,
        hint: 'See README.md "API" for the routes.',
      }),
    ),
  );
}
