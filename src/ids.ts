import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * Bytes from the system's CSPRNG, drawn 4 KiB at a time: one call into it per couple of hundred
 * ids instead of one per id (each call costs more than the id). The view is valid until the next
 * draw, so callers use it at once and never keep it.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let drawn = POOL_BYTES;
function draw(n: number): Buffer {
  if (drawn + n > POOL_BYTES) {
    randomFillSync(pool);
    drawn = 0;
  }
  const bytes = pool.subarray(drawn, drawn + n);
  drawn += n;
  return bytes;
}

/** `n` random bytes as hex (request trace ids). */
export const randomHex = (n: number): string => draw(n).toString('hex');

/** 26 base32 characters from 130 random bits: ids that cannot be guessed (the payment page is unsigned). */
export function randomId26(): string {
  const bytes = draw(17);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

export const newId = (prefix: 'ord' | 'apl' | 'evt' | 'mer' | 'dsk' | 'trf' | 'prv' | 'lim' | 'shp' | 'usr' | 'opr' | 'wdr' | 'lnk'): string => `${prefix}_${randomId26()}`;

/** A desk secret: 32 random bytes, URL-safe, prefixed so it is recognisable in a secrets scanner. */
export const newSecret = (): string => `sk_${randomBytes(32).toString('base64url')}`;
export const newAdminToken = (): string => `adm_${randomBytes(32).toString('base64url')}`;
