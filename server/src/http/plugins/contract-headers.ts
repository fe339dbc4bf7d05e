import { CONTRACT_HASH, CONTRACT_VERSION } from '@reelshelf/contract';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';

/**
 * Hash enforcement (spec §9): every response names the server's contract, and a client that
 * announces a different hash is refused before it can misread a response.
 */
export function registerContractHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const claimed = request.headers['x-contract-hash'];
    if (typeof claimed === 'string' && claimed !== CONTRACT_HASH) {
      throw new AppError('contract_mismatch', {
        message: `Client contract ${claimed.slice(0, 12)}… does not match the server's ${CONTRACT_VERSION} (${CONTRACT_HASH.slice(0, 12)}…).`,
        hint: 'Update the client to the server contract version.',
        extra: { required: CONTRACT_HASH, contract_version: CONTRACT_VERSION },
      });
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-contract-version', CONTRACT_VERSION);
    reply.header('x-contract-hash', CONTRACT_HASH);
    return payload;
  });
}
