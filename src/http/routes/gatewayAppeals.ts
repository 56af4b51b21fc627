import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

/** POST /gw/v1/appeals and GET /gw/v1/appeals/{id}. */
export async function gatewayAppealRoutes(_gw: FastifyInstance, _ctx: Ctx): Promise<void> {}
