import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { ERROR_STATUS } from '../domain/errors.js';
import { deskAuthenticator, type PendingAuth, type Verdict } from '../services/deskAuth.js';
import type { CatalogVersions, DeskAtAuth, DeskRow, MerchantRow } from '../services/shapes.js';
import { rawBodyOf } from '../server/rawBody.js';
import { errorEnvelope, sendError } from '../server/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    desk: DeskRow | null;
    /** The desk's merchant as authentication read it, with the desk, in the same statement. */
    merchant: MerchantRow | null;
    /** The catalogue versions read in that statement: cached providers and currencies are checked against them. */
    catalogVersions: CatalogVersions | null;
    /**
     * Set on a route that settles authentication inside its own statement (`settlesAuth`), when
     * checks 1–5 passed against the remembered read of the desk: check 6 is still to be made.
     */
    pendingAuth: PendingAuth | null;
  }
  interface FastifyContextConfig {
    /** The route makes authentication's last check inside its own statement when it can (see PendingAuth). */
    settlesAuth?: boolean;
  }
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function adopt(req: FastifyRequest, at: DeskAtAuth): void {
  req.desk = at.desk;
  req.merchant = at.merchant;
  req.catalogVersions = at.versions;
}

/**
 * Completes a pending authentication (a no-op once settled): the refusal to answer instead of
 * anything else, or null with the request now holding the desk as authentication left it.
 */
export async function settleAuth(req: FastifyRequest): Promise<Verdict & { ok: false } | null> {
  const pending = req.pendingAuth;
  if (!pending) return null;
  const v = await pending.settle();
  if (!v.ok) return v;
  adopt(req, v);
  return null;
}

/** The spec's six checks, in order, before any /gw/v1 route, over the raw body bytes. */
export function gatewayAuthHook(ctx: Ctx) {
  const authenticate = deskAuthenticator(ctx);
  return async function authenticateGateway(req: FastifyRequest, reply: FastifyReply) {
    const signed = {
      headers: { key: header(req, 'x-gate-key'), ts: header(req, 'x-gate-ts'), nonce: header(req, 'x-gate-nonce'), sign: header(req, 'x-gate-sign') },
      method: req.method,
      path: req.url.split('?')[0],
      bodySha256: rawBodyOf(req.body).sha256,
    };
    const verdict = await authenticate(signed, { defer: req.routeOptions.config.settlesAuth });
    if (verdict.ok === 'pending') {
      req.pendingAuth = verdict;
      adopt(req, verdict.at);
      return;
    }
    if (!verdict.ok) return sendError(req, reply, verdict.refusal.code, verdict.refusal.detail);
    adopt(req, verdict);
  };
}

/**
 * The guard that makes a pending authentication safe: nothing is answered before it is settled.
 * Whatever a route or a failed body check was about to answer is replaced by the refusal when
 * authentication refuses, exactly as if it had been made first.
 */
async function settleBeforeAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (!req.pendingAuth || req.pendingAuth.settled) return payload;
  // Only an error can be on its way here (nothing succeeds unsettled). If the database cannot
  // settle it either, that error (a 503 or 500, which shows nothing) goes out as it is.
  const refused = await settleAuth(req).catch(() => null);
  if (!refused) return payload;
  reply.code(ERROR_STATUS[refused.refusal.code]).removeHeader('retry-after').header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify(errorEnvelope(req, refused.refusal.code, refused.refusal.detail));
}

/** Route options of a route that settles authentication inside its own statement: the flag and its guard, always together. */
export const SETTLES_AUTH = { config: { settlesAuth: true }, onSend: settleBeforeAnswer } as const;
