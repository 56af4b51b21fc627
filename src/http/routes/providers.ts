import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';

export async function providerRoutes(_p: FastifyInstance, _ctx: Ctx): Promise<void> {}
