import type { Ctx } from '../context.js';
import { DESK_KEY, precheckAuth, type AuthHeaders } from '../domain/auth.js';
import type { Refusal } from '../domain/errors.js';
import { DeskSecretCache } from '../deskSecrets.js';
import { hmacHex, signatureMatches, signingStringWithBodyHash } from '../signing.js';
import { getDeskWithMerchantByKey, type DeskAtAuth } from '../store/desks.js';

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

type Verdict = ({ ok: true } & DeskAtAuth) | { ok: false; refusal: Refusal };

const AUTH_FAILED: Verdict = { ok: false, refusal: { code: 'AUTH_FAILED', detail: 'unknown key or signature mismatch' } };
const REPLAY: Verdict = { ok: false, refusal: { code: 'REPLAY_DETECTED', detail: 'nonce already used for this cash desk within 360 seconds' } };

/** How many desk keys keep their sealed secret in memory (a few hundred bytes each). */
const REMEMBERED_KEYS = 10_000;

/**
 * The spec's six checks, in order; the nonce is consumed only once checks 1–5 pass.
 *
 * Each desk key's sealed secret is remembered after its first request. When the replay memory is
 * the database, a request whose signature matches the remembered secret then needs one statement:
 * it reads the desk and merchant as they are now and claims the nonce only if the secret is still
 * that one. A rotated secret is seen in that same statement (nothing claimed, the request checked
 * again against the new secret), a stopped desk or blocked merchant in the rows it returns, so a
 * change takes effect on the very next request on every instance.
 */
export function deskAuthenticator(ctx: Ctx) {
  const secrets = new DeskSecretCache(ctx.box);
  const sealedByKey = new Map<string, string>();
  const remember = (key: string, sealed: string) => {
    if (!sealedByKey.has(key) && sealedByKey.size >= REMEMBERED_KEYS) sealedByKey.delete(sealedByKey.keys().next().value!);
    sealedByKey.set(key, sealed);
  };
  const signedWith = (sealed: string, h: AuthHeaders, r: SignedRequest) =>
    signatureMatches(h.sign!, hmacHex(secrets.open(sealed), signingStringWithBodyHash(h.ts!, h.nonce!, r.method, r.path, r.bodySha256)));

  /** Checks 5 and 6 against the desk as read, then the nonce on its own. */
  async function checkAndClaim(found: DeskAtAuth, h: AuthHeaders, r: SignedRequest): Promise<Verdict> {
    remember(h.key!, found.desk.secret_enc);
    if (!signedWith(found.desk.secret_enc, h, r)) return AUTH_FAILED;
    if (!(await ctx.nonces.claim(found.desk.key, h.nonce!))) return REPLAY;
    return { ok: true, desk: found.desk, merchant: found.merchant, versions: found.versions };
  }

  /** A fresh read of the desk first, for a key without a remembered secret or a signature that does not match it. */
  async function readAndClaim(h: AuthHeaders, r: SignedRequest): Promise<Verdict> {
    const found = DESK_KEY.test(h.key!) ? await getDeskWithMerchantByKey(ctx.db, h.key!) : null;
    if (found) return checkAndClaim(found, h, r);
    // Unknown keys still cost one HMAC, so timing does not tell a valid key from an invalid one.
    hmacHex(DUMMY_SECRET, signingStringWithBodyHash(h.ts!, h.nonce!, r.method, r.path, r.bodySha256));
    return AUTH_FAILED;
  }

  return async function authenticateDesk(r: SignedRequest): Promise<Verdict> {
    const h = r.headers;
    const pre = precheckAuth(h, ctx.clock.now());
    if (pre) return { ok: false, refusal: pre };
    const sealed = sealedByKey.get(h.key!);
    // Without a remembered secret, or a signature that does not match it (perhaps made with a
    // secret rotated on another instance), the desk is read afresh first.
    if (!sealed || !ctx.nonces.claimWithDesk || !signedWith(sealed, h, r)) return readAndClaim(h, r);
    const now = await ctx.nonces.claimWithDesk(h.key!, h.nonce!, sealed);
    if (!now) {
      sealedByKey.delete(h.key!);
      return AUTH_FAILED;
    }
    // Rotated since it was remembered: the request is checked against the secret of now.
    if (now.desk.secret_enc !== sealed) return checkAndClaim(now, h, r);
    if (!now.claimed) return REPLAY;
    return { ok: true, desk: now.desk, merchant: now.merchant, versions: now.versions };
  };
}
