import type { Ctx } from '../context.js';
import { DESK_KEY, precheckAuth, type AuthHeaders } from '../domain/auth.js';
import type { Refusal } from '../domain/errors.js';
import { DeskSecretCache } from '../deskSecrets.js';
import { hmacHex, signatureMatches, signingStringWithBodyHash } from '../signing.js';
import { getDeskWithMerchantByKey, type DeskAtAuth } from '../store/desks.js';
import type { AuthToSettle } from '../store/orderWrites.js';
import { claimWindow } from './nonces.js';

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

export type Verdict = ({ ok: true } & DeskAtAuth) | { ok: false; refusal: Refusal };

const AUTH_FAILED: Verdict = { ok: false, refusal: { code: 'AUTH_FAILED', detail: 'unknown key or signature mismatch' } };
const REPLAY: Verdict = { ok: false, refusal: { code: 'REPLAY_DETECTED', detail: 'nonce already used for this cash desk within 360 seconds' } };

/** How many desk keys keep their last authenticated read in memory (about a kilobyte each). */
const REMEMBERED_KEYS = 10_000;
/** How many recent nonces of pending authentications are remembered (about a hundred bytes each). */
const PENDING_NONCES = 10_000;

/**
 * A request whose checks 1–5 passed against the desk as this instance last read it, with the
 * last check (is that read still current, and is the nonce fresh) not yet made. A route that can
 * make that check inside its own statement (order creation) does so and calls `settledBy`; any
 * other outcome calls `settle`, which makes it the usual way, before anything is answered.
 */
export interface PendingAuth {
  readonly ok: 'pending';
  /** The desk, merchant and catalogue versions the signature was checked against. */
  readonly at: DeskAtAuth;
  readonly key: string;
  readonly nonce: string;
  readonly settled: boolean;
  /** Authentication's own statement, once; later calls answer the same verdict. */
  settle(): Promise<Verdict>;
  /** A statement of the route's own claimed the nonce with `at` still current: authentication is done. */
  settledBy(): void;
  /** What such a statement checks and claims, for a claim made at `nowMs`. */
  lastCheck(nowMs: number): AuthToSettle;
}

/**
 * The spec's six checks, in order; the nonce is consumed only once checks 1–5 pass.
 *
 * Each desk key's last read (desk, merchant, catalogue versions) is remembered after its first
 * request. When the replay memory is the database, a request whose signature matches the
 * remembered secret then needs one statement: it claims the nonce only if the secret is still that
 * one and reads the desk's and merchant's row versions (the rows themselves again only when either
 * moved). A rotated secret is seen in that same statement (nothing claimed, the request checked
 * again against the new secret), a stopped desk or blocked merchant through the versions, so a
 * change takes effect on the very next request on every instance.
 *
 * A route that makes the last check inside its own statement asks for it to be deferred: a
 * request signed with the remembered secret then comes back as a PendingAuth, without a statement.
 */
export function deskAuthenticator(ctx: Ctx) {
  const secrets = new DeskSecretCache(ctx.box);
  const known = new Map<string, DeskAtAuth>();
  const pendingNonces = new Set<string>();
  const remember = (key: string, at: DeskAtAuth) => {
    if (!known.has(key) && known.size >= REMEMBERED_KEYS) known.delete(known.keys().next().value!);
    known.set(key, at);
  };
  const signedWith = (sealed: string, h: AuthHeaders, r: SignedRequest) =>
    signatureMatches(h.sign!, hmacHex(secrets.open(sealed), signingStringWithBodyHash(h.ts!, h.nonce!, r.method, r.path, r.bodySha256)));
  const accepted = (at: DeskAtAuth): Verdict => ({ ok: true, desk: at.desk, merchant: at.merchant, merchantVersion: at.merchantVersion, versions: at.versions });

  /** Checks 5 and 6 against the desk as read, then the nonce on its own. */
  async function checkAndClaim(found: DeskAtAuth, h: AuthHeaders, r: SignedRequest): Promise<Verdict> {
    remember(h.key!, found);
    if (!signedWith(found.desk.secret_enc, h, r)) return AUTH_FAILED;
    if (!(await ctx.nonces.claim(found.desk.key, h.nonce!))) return REPLAY;
    return accepted(found);
  }

  /** A fresh read of the desk first, for a key without a remembered secret or a signature that does not match it. */
  async function readAndClaim(h: AuthHeaders, r: SignedRequest): Promise<Verdict> {
    const found = DESK_KEY.test(h.key!) ? await getDeskWithMerchantByKey(ctx.db, h.key!) : null;
    if (found) return checkAndClaim(found, h, r);
    // Unknown keys still cost one HMAC, so timing does not tell a valid key from an invalid one.
    hmacHex(DUMMY_SECRET, signingStringWithBodyHash(h.ts!, h.nonce!, r.method, r.path, r.bodySha256));
    return AUTH_FAILED;
  }

  /** Check 6, and whether the remembered read is still current, in one statement, for a request signed with the remembered secret. */
  async function claimRemembered(h: AuthHeaders, r: SignedRequest, remembered: DeskAtAuth): Promise<Verdict> {
    const sealed = remembered.desk.secret_enc;
    const now = await ctx.nonces.claimWithDesk!(remembered, h.nonce!);
    if (!now) {
      known.delete(h.key!);
      return AUTH_FAILED;
    }
    // Rotated since it was remembered: the request is checked against the secret of now.
    if (now.desk.secret_enc !== sealed) return checkAndClaim(now, h, r);
    remember(h.key!, now);
    if (!now.claimed) return REPLAY;
    return accepted(now);
  }

  /** The remembered read whose secret signed this request, or null (then only the full path applies). */
  function rememberedSigner(h: AuthHeaders, r: SignedRequest): DeskAtAuth | null {
    const at = known.get(h.key!);
    return at && ctx.nonces.claimWithDesk && signedWith(at.desk.secret_enc, h, r) ? at : null;
  }

  /**
   * The spec's checks for one request. With `defer`, a request signed with the remembered secret
   * whose nonce this instance has not seen pending before comes back pending (see PendingAuth).
   */
  async function authenticateDesk(r: SignedRequest, opts: { defer?: boolean } = {}): Promise<Verdict | PendingAuth> {
    const h = r.headers;
    const pre = precheckAuth(h, ctx.clock.now());
    if (pre) return { ok: false, refusal: pre };
    // Without a remembered secret, or a signature that does not match it (perhaps made with a
    // secret rotated on another instance), the desk is read afresh first.
    const at = rememberedSigner(h, r);
    if (!at) return readAndClaim(h, r);
    return opts.defer && firstPending(h) ? pendingFor(h, r, at) : claimRemembered(h, r, at);
  }

  /**
   * A nonce this instance already saw pending is a replay: it takes the full path, where it is
   * refused before the route does anything (a replayed order never holds the desk's order limit).
   */
  function firstPending(h: AuthHeaders): boolean {
    const seen = `${h.key}\n${h.nonce}`;
    if (pendingNonces.has(seen)) return false;
    if (pendingNonces.size >= PENDING_NONCES) pendingNonces.delete(pendingNonces.values().next().value!);
    pendingNonces.add(seen);
    return true;
  }

  function pendingFor(h: AuthHeaders, r: SignedRequest, at: DeskAtAuth): PendingAuth {
    let verdict: Promise<Verdict> | null = null;
    let settled = false;
    return {
      ok: 'pending',
      at,
      key: h.key!,
      nonce: h.nonce!,
      get settled() {
        return settled;
      },
      settle() {
        settled = true;
        return (verdict ??= claimRemembered(h, r, at));
      },
      settledBy() {
        settled = true;
        verdict ??= Promise.resolve(accepted(at));
      },
      lastCheck(nowMs) {
        const { desk, merchantVersion, versions } = at;
        return { deskKey: desk.key, nonce: h.nonce!, sealedSecret: desk.secret_enc, deskVersion: desk.row_version, merchantVersion, versions, ...claimWindow(nowMs) };
      },
    };
  }

  return authenticateDesk;
}
