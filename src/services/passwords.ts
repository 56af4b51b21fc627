import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (err, key) => (err ? reject(err) : resolve(key))));

// scrypt N=2^15, r=8, p=1 by default: about 32 MiB and tens of milliseconds per hash, the common
// interactive setting (PASSWORD_SCRYPT_LOG2N changes N for new hashes).
const PARAMS = { r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
export const DEFAULT_SCRYPT_LOG2N = 15;
const KEY_LEN = 32;

/** `scrypt$N$r$p$salt$hash`, base64url parts: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(pw: string, log2n = DEFAULT_SCRYPT_LOG2N): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** log2n;
  const key = await scrypt(pw.normalize('NFC'), salt, KEY_LEN, { N, ...PARAMS });
  return ['scrypt', N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(pw: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(pw.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem });
  return timingSafeEqual(key, expected);
}
