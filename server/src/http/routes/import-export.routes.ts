import multipart from '@fastify/multipart';
import type { ExportFormat } from '@reelshelf/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { declaredLength } from '../plugins/refused-body.ts';
import type { ImportExportService } from '../../services/import/import-export.service.ts';
import { principalOf } from '../principal.ts';

/** The largest import accepted (CSV, JSON or an uploaded file): 40 MiB, on this route only. */
export const IMPORT_BODY_LIMIT = 40 * 1024 * 1024;

/** Room for a multipart upload's boundaries, part headers and a few small fields around the file. */
const MULTIPART_ENVELOPE = 64 * 1024;

const importQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    dry_run: { type: 'boolean', default: false },
    // `wishes`: every row of a CSV is a wish (a Letterboxd watchlist.csv; docs/collector.md).
    into: { type: 'string', enum: ['library', 'wishes'], default: 'library' },
  },
} as const;

const exportQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { format: { type: 'string', enum: ['json', 'csv', 'letterboxd'], default: 'json' } },
} as const;

/** An export as a download that no cache keeps (it holds the library, or a person's history). */
function sendDownload(
  reply: FastifyReply,
  out: { contentType: string; filename: string; body: string | Buffer },
): FastifyReply {
  return reply
    .type(out.contentType)
    .header('content-disposition', `attachment; filename="${out.filename}"`)
    .header('cache-control', 'no-store')
    .send(out.body);
}

const ACCEPTED = 'Send text/csv, application/json (a reelshelf export) or multipart/form-data with one file.';

function tooLarge(): AppError {
  return new AppError('payload_too_large', {
    message: `The file is larger than the ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB an import accepts.`,
    hint: 'Split the file, or import it with the CLI: npx reelshelf import <file>.',
  });
}

/** The one file of a multipart upload, read up to the limit (busboy stops at the limit). */
async function readUpload(request: FastifyRequest): Promise<{ bytes: Buffer; kind: 'csv' | 'json' | null }> {
  try {
    // Every part is read (a second file must be refused, not silently dropped); fields are ignored.
    let upload: { bytes: Buffer; kind: 'csv' | 'json' | null } | null = null;
    for await (const part of request.parts({
      limits: { fileSize: IMPORT_BODY_LIMIT, files: 1, fields: 10 },
    })) {
      if (part.type !== 'file') continue;
      const bytes = await part.toBuffer();
      // busboy stops at the limit and marks the file truncated; @fastify/multipart only notices when a
      // chunk arrives after that, so a limit that falls on a chunk boundary returns the cut file as if
      // it were whole. The flag is the truth.
      if (part.file.truncated) throw tooLarge();
      const name = part.filename.toLowerCase();
      const kind =
        part.mimetype.includes('json') || name.endsWith('.json')
          ? 'json'
          : part.mimetype.includes('csv') || /\.(csv|tsv|txt)$/.test(name)
            ? 'csv'
            : null;
      upload = { bytes, kind };
    }
    if (upload === null) {
      throw new AppError('validation_failed', {
        message: 'The upload holds no file.',
        hint: ACCEPTED,
        extra: { field: 'file' },
      });
    }
    const { bytes, kind } = upload;
    return { bytes, kind };
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = err instanceof Error && 'code' in err ? String(err.code) : '';
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    // Too many parts is not "too large": it is an upload of another shape than one file.
    if (['FST_FILES_LIMIT', 'FST_PARTS_LIMIT', 'FST_FIELDS_LIMIT'].includes(code)) {
      throw new AppError('validation_failed', {
        message:
          code === 'FST_FILES_LIMIT'
            ? 'The upload holds more than one file; an import takes one.'
            : 'The upload holds more form fields than an import takes (10).',
        hint: ACCEPTED,
        extra: { field: 'file' },
      });
    }
    throw new AppError('validation_failed', {
      message: 'The upload could not be read as multipart/form-data.',
      hint: ACCEPTED,
    });
  }
}

/** POST /api/import (CSV, JSON or an upload; all or nothing) and GET /api/export. */
export function registerImportExportRoutes(app: FastifyInstance, service: ImportExportService): void {
  // Own scope: the CSV and multipart parsers and the larger body limit apply to these routes only.
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: IMPORT_BODY_LIMIT, files: 1, fields: 10 } });
    scope.addContentTypeParser(
      ['text/csv', 'application/csv'],
      { parseAs: 'buffer' },
      (_request, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (_request, _payload, done) =>
      done(new AppError('unsupported_media_type', { hint: ACCEPTED }), undefined),
    );
    // A declared length over the limit is refused before a byte of the body is read (the rest is
    // drained by the refused-body plugin, so the client reads this answer).
    scope.addHook('preParsing', async (request, _reply, payload) => {
      const declared = declaredLength(request.headers['content-length']);
      // (isMultipart() is only known once the body parser has run.)
      const isUpload = /^multipart\/form-data/i.test(request.headers['content-type'] ?? '');
      const allowed = IMPORT_BODY_LIMIT + (isUpload ? MULTIPART_ENVELOPE : 0);
      if (declared !== null && declared > allowed) throw tooLarge();
      return payload;
    });
    // A chunked body (no length) is cut by Fastify's own counter: the same answer, with the hint.
    scope.setErrorHandler((err: Error & { code?: string }) => {
      throw err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? tooLarge() : err;
    });

    scope.post<{ Querystring: { dry_run: boolean; into: 'library' | 'wishes' } }>(
      '/api/import',
      { bodyLimit: IMPORT_BODY_LIMIT, schema: { querystring: importQuery } },
      async (request) => {
        // A document's watch state becomes the importing person's.
        const { dry_run: dryRun, into } = request.query;
        const options = { dryRun, userId: principalOf(request).userId, into };
        if (request.isMultipart()) {
          const upload = await readUpload(request);
          return service.importFile(upload.bytes, upload.kind, options);
        }
        const body: unknown = request.body;
        if (Buffer.isBuffer(body)) return service.importCsv(body, options);
        if (body === undefined) {
          throw new AppError('validation_failed', { message: 'The request has no body.', hint: ACCEPTED });
        }
        return service.importJson(body, options);
      },
    );

    scope.get<{ Querystring: { format: ExportFormat } }>(
      '/api/export',
      { schema: { querystring: exportQuery } },
      async (request, reply) => {
        // With the exporting person's watch state (and, for Letterboxd, through their content limit).
        const { userId, limit } = principalOf(request);
        const out = await service.export(request.query.format, userId, limit);
        return sendDownload(reply, out);
      },
    );

    // Anyone's own: what they watched, for Letterboxd's importer, through their content limit (the
    // export above is the admins'; docs/collector.md "Letterboxd export").
    scope.get('/api/export/letterboxd', async (request, reply) => {
      const { userId, limit } = principalOf(request);
      const out = await service.export('letterboxd', userId, limit);
      return sendDownload(reply, out);
    });
  });
}
