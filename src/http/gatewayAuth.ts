import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { deskAuthenticator } from '../services/deskAuth.js';
import type { DeskRow } from '../store/desks.js';
import type { CatalogVersions } from '../store/catalogVersions.js';
import type { MerchantRow } from '../store/merchants.js';
import { rawBodyOf } from './rawBody.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    desk: DeskRow | null;
    /** The desk's merchant as authentication read it, with the desk, in the same statement. */
    merchant: MerchantRow | null;
    /** The catalogue versions read in that statement: cached providers and currencies are checked against them. */
    catalogVersions: CatalogVersions | null;
  }
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The spec's six checks, in order, before any /gw/v1 route, over the raw body bytes. */
export function gatewayAuthHook(ctx: Ctx) {
  const authenticate = deskAuthenticator(ctx);
  return async function authenticateGateway(req: FastifyRequest, reply: FastifyReply) {
    const verdict = await authenticate({
      headers: { key: header(req, 'x-gate-key'), ts: header(req, 'x-gate-ts'), nonce: header(req, 'x-gate-nonce'), sign: header(req, 'x-gate-sign') },
      method: req.method,
      path: req.url.split('?')[0],
      bodySha256: rawBodyOf(req.body).sha256,
    });
    if (!verdict.ok) return sendError(req, reply, verdict.refusal.code, verdict.refusal.detail);
    req.desk = verdict.desk;
    req.merchant = verdict.merchant;
    req.catalogVersions = verdict.versions;
  };
}
