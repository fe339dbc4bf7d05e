import type { FastifyInstance } from 'fastify';
import { emptyBodyIsNoOptions } from '../schemas.ts';
import type { BarcodeCreateInput } from '@reelshelf/contract';
import type { BarcodeService } from '../../services/metadata/barcode.service.ts';

const codeParams = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 32 } },
} as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    binder: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    slot: { type: 'string', minLength: 1, maxLength: 20, pattern: '\\S' },
    tmdb_id: { type: 'integer', minimum: 1 },
    another_copy: { type: 'boolean' },
  },
} as const;

/** GET /api/barcode/{code} (look up, nothing written) and POST (record the disc). */
export function registerBarcodeRoutes(app: FastifyInstance, barcodes: BarcodeService): void {
  app.get<{ Params: { code: string } }>(
    '/api/barcode/:code',
    { schema: { params: codeParams } },
    async (request) => barcodes.lookup(request.params.code),
  );

  app.post<{ Params: { code: string }; Body: BarcodeCreateInput | undefined }>(
    '/api/barcode/:code',
    { schema: { params: codeParams, body: createBody }, preValidation: emptyBodyIsNoOptions },
    async (request, reply) =>
      reply.code(201).send(await barcodes.create(request.params.code, request.body ?? {})),
  );
}
