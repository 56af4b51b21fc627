import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

/** Operator review of appeals. */
export async function adminAppealRoutes(_admin: FastifyInstance, _ctx: Ctx): Promise<void> {}
