import { randomBytes, randomFillSync } from 'node:crypto';

/** The ids' alphabet: Crockford's base32, lower case. */
export const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const ALPHABET = ID_ALPHABET;

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

export const newId = (prefix: 'mer' | 'dsk' | 'trf' | 'prv' | 'lim' | 'shp' | 'usr' | 'opr' | 'wdr' | 'lnk' | 'mail' | 'dst' | 'rst' | 'whe'): string => `${prefix}_${randomId26()}`;

/**
 * 26 base32 characters laid out as a ULID: the first 10 the time in milliseconds (48 bits), the
 * last 16 from 80 random bits. Ids of one moment share their first characters, so ids made one
 * after another sort together: the rows of a history table land at the right edge of every index
 * keyed by the id (its primary key, and the order's id in its transitions, events and attempts)
 * instead of on a random page of an index that grows with history, which keeps writes as cheap on
 * millions of rows as on thousands. 80 random bits still cannot be guessed within a millisecond.
 */
export function timeOrderedId26(atMs: number): string {
  let out = '';
  // 48 bits do not fit JavaScript's 32-bit shifts: the time is taken apart by division.
  let t = Math.max(0, Math.min(Math.floor(atMs), 2 ** 48 - 1));
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out + randomId26().slice(0, 16);
}

/** The id of a row of a history table (orders, their events, appeals, credits), made at `atMs`: see `timeOrderedId26`. */
export const newHistoryId = (prefix: 'ord' | 'apl' | 'evt' | 'crd' | 'stm' | 'csp' | 'msg' | 'dev' | 'tpl', atMs: number): string => `${prefix}_${timeOrderedId26(atMs)}`;

/** A desk secret: 32 random bytes, URL-safe, prefixed so it is recognisable in a secrets scanner. */
export const newSecret = (): string => `sk_${randomBytes(32).toString('base64url')}`;
export const newAdminToken = (): string => `adm_${randomBytes(32).toString('base64url')}`;
