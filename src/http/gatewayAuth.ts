import type { FastifyReply, FastifyRequest } from 'fastify';
import { precheckAuth, DESK_KEY } from '../domain/auth.js';
import type { Ctx } from '../context.js';
import { DeskSecretCache } from '../services/deskSecrets.js';
import { signingStringWithBodyHash, hmacHex, signatureMatches } from '../signing.js';
import { getDeskByKey, type DeskRow } from '../store/desks.js';
import { rawBodyOf } from './rawBody.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    desk: DeskRow | null;
  }
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

// Unknown keys still cost one HMAC, so timing does not tell a valid key from an invalid one.
const DUMMY_SECRET = 'sk_unknown_key_dummy_secret_for_constant_work';

/** The spec's six checks, in order, before any /gw/v1 route; the nonce is consumed only once 1–5 pass. */
export function gatewayAuthHook(ctx: Ctx) {
  const secrets = new DeskSecretCache(ctx.box);
  return async function authenticate(req: FastifyRequest, reply: FastifyReply) {
    const h = {
      key: header(req, 'x-gate-key'),
      ts: header(req, 'x-gate-ts'),
      nonce: header(req, 'x-gate-nonce'),
      sign: header(req, 'x-gate-sign'),
    };
    const pre = precheckAuth(h, ctx.clock.now());
    if (pre) return sendError(req, reply, pre.code, pre.detail);

    const raw = rawBodyOf(req.body);
    const path = req.url.split('?')[0];
    const desk = DESK_KEY.test(h.key!) ? await getDeskByKey(ctx.db, h.key!) : null;
    const secret = desk ? secrets.open(desk.secret_enc) : DUMMY_SECRET;
    const expected = hmacHex(secret, signingStringWithBodyHash(h.ts!, h.nonce!, req.method, path, raw.sha256));
    if (!signatureMatches(h.sign!, expected) || !desk) {
      return sendError(req, reply, 'AUTH_FAILED', 'unknown key or signature mismatch');
    }
    if (!(await ctx.nonces.claim(desk.key, h.nonce!))) {
      return sendError(req, reply, 'REPLAY_DETECTED', 'nonce already used for this cash desk within 360 seconds');
    }
    if (raw.tooLarge) return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');
    req.desk = desk;
  };
}
