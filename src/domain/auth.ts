import type { ErrorCode } from './errors.js';

/** Checks 1–4 of the spec's Authentication table: pure, over the header values and the server time. */
export const SKEW_SECONDS = 300;
export const NONCE_MIN = 8;
export const NONCE_MAX = 128;
export const DESK_KEY = /^shp_[0-9a-z]{26}$/;

export interface AuthHeaders {
  key: string | undefined;
  ts: string | undefined;
  nonce: string | undefined;
  sign: string | undefined;
}

export function precheckAuth(h: AuthHeaders, nowMs: number): { code: ErrorCode; detail: string } | null {
  if (!h.key || !h.ts || !h.nonce || !h.sign) {
    const missing = (['X-Gate-Key', 'X-Gate-Ts', 'X-Gate-Nonce', 'X-Gate-Sign'] as const).filter(
      (_, i) => ![h.key, h.ts, h.nonce, h.sign][i],
    );
    return { code: 'AUTH_HEADERS_MISSING', detail: `missing ${missing.join(', ')}` };
  }
  // Seconds as a plain integer; "1.5", ISO text and signs are refused here, milliseconds fail the skew check.
  if (!/^\d{1,15}$/.test(h.ts)) return { code: 'AUTH_TIMESTAMP_INVALID', detail: 'X-Gate-Ts must be Unix time in whole seconds' };
  if (Math.abs(Number(h.ts) - nowMs / 1000) > SKEW_SECONDS) {
    return { code: 'AUTH_TIMESTAMP_SKEW', detail: `X-Gate-Ts is more than ${SKEW_SECONDS} seconds from server time` };
  }
  // D19: printable ASCII, 8 to 128 characters.
  if (h.nonce.length < NONCE_MIN || h.nonce.length > NONCE_MAX || !/^[\x20-\x7e]+$/.test(h.nonce)) {
    return { code: 'AUTH_NONCE_INVALID', detail: `X-Gate-Nonce must be ${NONCE_MIN} to ${NONCE_MAX} printable ASCII characters` };
  }
  return null;
}
