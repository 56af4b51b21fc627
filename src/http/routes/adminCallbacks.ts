import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

/** Callback attempt log and resend. */
export async function adminCallbackRoutes(_admin: FastifyInstance, _ctx: Ctx): Promise<void> {}
