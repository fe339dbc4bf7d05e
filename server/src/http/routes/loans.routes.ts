import type { FastifyInstance } from 'fastify';
import { MAX_BORROWER_LENGTH } from '../../domain/loans.ts';
import type { LoanService } from '../../services/collector/loan.service.ts';
import type { VisibilityService } from '../../services/people/visibility.service.ts';
import { principalOf } from '../principal.ts';
import { idParams } from '../schemas.ts';

/** A lend is a name and a date: anything near this size is not one (413 payload_too_large). */
const LEND_BODY_LIMIT = 4096;

const lendBody = {
  type: 'object',
  required: ['to'],
  additionalProperties: false,
  properties: {
    to: { type: 'string', minLength: 1, maxLength: MAX_BORROWER_LENGTH, pattern: '\\S' },
    // The service checks that it is a real day (2026-02-30 is not).
    due: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  },
} as const;

const flag = { type: 'string', enum: ['true', 'false', '1', '0'] } as const;
const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { history: flag, overdue: flag },
} as const;

const yes = (v: string | undefined) => v === 'true' || v === '1';

/** Loans of discs (issue 27 item 4; docs/collector.md "Loans"). Lends and returns: admins only. */
export function registerLoanRoutes(
  app: FastifyInstance,
  loans: LoanService,
  visibility: Pick<VisibilityService, 'filter'>,
): void {
  app.get<{ Querystring: { history?: string; overdue?: string } }>(
    '/api/loans',
    { schema: { querystring: listQuery } },
    async (request) =>
      loans.list(visibility.filter(principalOf(request)), {
        history: yes(request.query.history),
        overdue: yes(request.query.overdue),
      }),
  );

  app.post<{ Params: { id: number }; Body: { to: string; due?: string | null } }>(
    '/api/physical-copies/:id/loan',
    { schema: { params: idParams, body: lendBody }, bodyLimit: LEND_BODY_LIMIT },
    async (request, reply) => reply.code(201).send(await loans.lend(request.params.id, request.body)),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/physical-copies/:id/loan',
    { schema: { params: idParams } },
    async (request) => loans.giveBack(request.params.id),
  );
}
