import type { Ctx } from '../context.js';
import { DESK_KEY, precheckAuth, type AuthHeaders } from '../domain/auth.js';
import type { Refusal } from '../domain/errors.js';
import { DeskSecretCache } from '../deskSecrets.js';
import { hmacHex, signatureMatches, signingStringWithBodyHash } from '../signing.js';
import { getDeskByKey, type DeskRow } from '../store/desks.js';

// Unknown keys still cost one HMAC, so timing does not tell a valid key from an invalid one.
const DUMMY_SECRET = 'sk_unknown_key_dummy_secret_for_constant_work';

export interface SignedRequest {
  headers: AuthHeaders;
  method: string;
  /** Path without host and query string. */
  path: string;
  /** SHA-256 hex of the exact body bytes. */
  bodySha256: string;
}

/** The spec's six checks, in order; the nonce is consumed only once checks 1–5 pass. */
export function deskAuthenticator(ctx: Ctx) {
  const secrets = new DeskSecretCache(ctx.box);
  return async function authenticateDesk(r: SignedRequest): Promise<{ ok: true; desk: DeskRow } | { ok: false; refusal: Refusal }> {
    const h = r.headers;
    const pre = precheckAuth(h, ctx.clock.now());
    if (pre) return { ok: false, refusal: pre };
    const desk = DESK_KEY.test(h.key!) ? await getDeskByKey(ctx.db, h.key!) : null;
    const secret = desk ? secrets.open(desk.secret_enc) : DUMMY_SECRET;
    const expected = hmacHex(secret, signingStringWithBodyHash(h.ts!, h.nonce!, r.method, r.path, r.bodySha256));
    if (!signatureMatches(h.sign!, expected) || !desk) {
      return { ok: false, refusal: { code: 'AUTH_FAILED', detail: 'unknown key or signature mismatch' } };
    }
    if (!(await ctx.nonces.claim(desk.key, h.nonce!))) {
      return { ok: false, refusal: { code: 'REPLAY_DETECTED', detail: 'nonce already used for this cash desk within 360 seconds' } };
    }
    return { ok: true, desk };
  };
}
