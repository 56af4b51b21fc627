import { HOTP, Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP) through `otpauth`: SHA-1, 6 digits,
 * 30-second steps, the parameters every authenticator app reads from an `otpauth://` address.
 * What is ours is the policy around the library: one step of drift either way, and a step that
 * was accepted once is never accepted again.
 */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;

const PARAMS = { algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_STEP_SECONDS } as const;

/** RFC 4648 base32 without padding, the form authenticator apps take secrets in. */
export function base32Encode(bytes: Uint8Array): string {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer }).base32;
}

/** Decodes base32 (case, spaces and padding ignored); null for a character outside the alphabet. */
export function base32Decode(text: string): Buffer | null {
  try {
    return Buffer.from(Secret.fromBase32(text).bytes);
  } catch {
    return null;
  }
}

const secretOf = (bytes: Uint8Array) => new Secret({ buffer: Uint8Array.from(bytes).buffer });

/** The HOTP value of a counter (RFC 4226, section 5.3). */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  return HOTP.generate({ secret: secretOf(secret), algorithm: PARAMS.algorithm, digits, counter });
}

export const totpStep = (nowMs: number) => TOTP.counter({ period: TOTP_STEP_SECONDS, timestamp: nowMs });

export function totp(secret: Uint8Array, nowMs: number): string {
  return TOTP.generate({ secret: secretOf(secret), ...PARAMS, timestamp: nowMs });
}

/**
 * The time step a code matches, allowing one step of clock drift either way, or null. A step at or
 * before `lastStep` is refused: a code that was accepted once cannot be used again.
 */
export function matchTotp(secret: Uint8Array, code: string, nowMs: number, lastStep: number | null): number | null {
  const digits = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(digits)) return null;
  const now = totpStep(nowMs);
  const key = secretOf(secret);
  for (const step of [now - 1, now, now + 1]) {
    if (lastStep !== null && step <= lastStep) continue;
    // The library compares in constant time; a window of 0 checks this one step.
    if (HOTP.validate({ token: digits, secret: key, algorithm: PARAMS.algorithm, digits: TOTP_DIGITS, counter: step, window: 0 }) === 0) return step;
  }
  return null;
}

/** The address an authenticator app scans: `otpauth://totp/Issuer:account?issuer=…&secret=…`. */
export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secretBase32), ...PARAMS }).toString();
}
