import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

/** GET /gw/v1/events: the desk's events feed for recovery. */
export async function gatewayEventRoutes(_gw: FastifyInstance, _ctx: Ctx): Promise<void> {}
