import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** 26 base32 characters from 130 random bits: ids that cannot be guessed (the payment page is unsigned). */
export function randomId26(): string {
  const bytes = randomBytes(17);
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

export const newId = (prefix: 'ord' | 'apl' | 'evt' | 'mer' | 'dsk' | 'trf' | 'prv' | 'lim' | 'shp' | 'usr' | 'opr' | 'wdr'): string => `${prefix}_${randomId26()}`;

/** A desk secret: 32 random bytes, URL-safe, prefixed so it is recognisable in a secrets scanner. */
export const newSecret = (): string => `sk_${randomBytes(32).toString('base64url')}`;
export const newAdminToken = (): string => `adm_${randomBytes(32).toString('base64url')}`;
