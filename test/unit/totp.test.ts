import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totp, totpStep } from '../../src/domain/totp.js';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP (RFC 4226 / RFC 6238) through otpauth', () => {
  it('reproduces the HOTP test values of RFC 4226, appendix D', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(RFC_SECRET, i))).toEqual(expected);
  });

  it('reproduces the SHA-1 TOTP values of RFC 6238, appendix B (last six digits)', () => {
    expect(totp(RFC_SECRET, 59_000)).toBe('287082');
    expect(totp(RFC_SECRET, 1_111_111_109_000)).toBe('081804');
    expect(totp(RFC_SECRET, 1_234_567_890_000)).toBe('005924');
    expect(totp(RFC_SECRET, 20_000_000_000_000)).toBe('353130');
  });

  it('round-trips base32 and decodes the RFC 4648 examples', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('mzxw 6ytb oi======')!.toString()).toBe('foobar');
    expect(base32Decode('MZ1')).toBeNull();
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 7]);
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
  });

  it('accepts one step of drift either way, and never a step already used', () => {
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step), now, null)).toBe(step);
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step - 1), now, null)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step + 1), now, null)).toBe(step + 1);
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step - 2), now, null)).toBeNull();
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, step), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, 'abcdef', now, null)).toBeNull();
  });

  it('builds the otpauth address authenticator apps scan', () => {
    const uri = new URL(otpauthUri('Paygate', 'ops@example.com', 'MZXW6YTBOI'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Paygate:ops@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret: 'MZXW6YTBOI', issuer: 'Paygate', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});
