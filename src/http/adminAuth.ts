import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { sendError } from '../server/errors.js';
import { rawBodyOf } from '../server/rawBody.js';

export const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared as hashes in constant time. */
export function adminAuthHook(ctx: Ctx) {
  return async function authenticateOperator(req: FastifyRequest, reply: FastifyReply) {
    const h = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m || !timingSafeEqual(hashToken(m[1]), ctx.adminTokenHash)) {
      return sendError(req, reply, 'ADMIN_AUTH_FAILED', 'missing or wrong operator token');
    }
    if (rawBodyOf(req.body).tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');
    req.actor = 'token';
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who acts on the operator API: `token` for the bearer token, an operator id in the back office. */
    actor: string | null;
  }
}
