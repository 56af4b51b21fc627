import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

export async function payRoutes(_pay: FastifyInstance, _ctx: Ctx): Promise<void> {}
