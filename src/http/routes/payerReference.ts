import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

/** POST /api/pay/{id}/payer-reference: the customer reports the UTR of a Upi payment. */
export async function payerReferenceRoutes(_pay: FastifyInstance, _ctx: Ctx): Promise<void> {}
