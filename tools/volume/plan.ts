/**
 * The shape of the generated year, decided in TypeScript where it is small (merchants, desks, the
 * hours of the period and how many orders each gets) and handed to the database as tables; and the
 * SQL expressions that decide, per order, everything else from hashes of the order's number, so
 * every later statement can recompute what an earlier one decided without storing it.
 *
 * All randomness is `hashint8extended(n, seed)`: the same seed gives the same data, on PostgreSQL
 * and on the embedded database alike. Times are whole milliseconds (what a JavaScript clock gives
 * the service), computed in integers.
 */
import { createHmac } from 'node:crypto';
import { ID_ALPHABET } from '../../src/ids.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Everything in the history happened at least this long before "now": nothing is half-done. */
export const SETTLE_MS = 120_000;

/** Orders of the large merchant, of all orders (spec: at least 40%). */
export const LARGE_SHARE = 0.45;
export const LARGE_DESKS = 24;
/** Every tenth merchant is still under review and uses the sandbox. */
export const isSandboxMerchant = (idx: number): boolean => idx > 1 && idx % 10 === 0;
/** Merchants whose orders are sometimes reversed (chargebacks); the large one among them. */
export const hasReversals = (idx: number): boolean => idx === 1 || idx % 3 === 0;

export interface MerchantPlan {
  idx: number;
  id: string;
  name: string;
  live: boolean;
  reversals: boolean;
  email: string;
  createdMs: number;
}

export interface DeskPlan {
  idx: number;
  merchantIdx: number;
  id: string;
  key: string;
  secret: string;
  method: string;
  rails: string[];
  currency: string;
  tariff: 'standard' | 'large';
  callbackUrl: string;
  /** Share of all orders, before rounding to slots. */
  weight: number;
  createdMs: number;
}

/** Deterministic 26 characters from [0-9a-f] (a subset of the ids' base32 alphabet) for a label. */
export function hexId(seed: number, label: string): string {
  return createHmac('sha256', `paygate-volume-${seed}`).update(label).digest('hex').slice(0, 26);
}

/** A small PRNG for the few values drawn in TypeScript (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function planMerchants(seed: number, count: number, startMs: number): MerchantPlan[] {
  return Array.from({ length: count }, (_, k) => {
    const idx = k + 1;
    const n = String(idx).padStart(3, '0');
    return {
      idx,
      id: `mer_${hexId(seed, `merchant:${idx}`)}`,
      name: idx === 1 ? 'Northwind Marketplace' : `Merchant ${n}`,
      live: !isSandboxMerchant(idx),
      reversals: hasReversals(idx),
      email: idx === 1 ? 'owner@northwind.example' : `owner@merchant-${n}.example`,
      // Signed up before the period, the large one first.
      createdMs: startMs - 40 * DAY_MS + idx * HOUR_MS,
    };
  });
}

function deskShape(merchantIdx: number, k: number): Pick<DeskPlan, 'method' | 'rails' | 'currency'> {
  if (merchantIdx === 1) {
    if (k <= 20) return { method: 'Classic', rails: ['Sbp', 'C2c'], currency: 'RUB' };
    if (k <= 22) return { method: 'MobileCommerce', rails: ['Phone'], currency: 'RUB' };
    if (k === 23) return { method: 'CrossBorder', rails: ['Upi'], currency: 'INR' };
    return { method: 'CrossBorder', rails: ['C2c'], currency: 'KZT' };
  }
  if (merchantIdx % 11 === 0) return { method: 'CrossBorder', rails: ['Upi'], currency: 'INR' };
  if (merchantIdx % 13 === 0) return { method: 'NationalQr', rails: [], currency: 'RUB' };
  if (merchantIdx % 7 === 0 && k === 2) return { method: 'MobileCommerce', rails: ['Phone'], currency: 'RUB' };
  return { method: 'Classic', rails: ['Sbp', 'C2c'], currency: 'RUB' };
}

/**
 * The desks and their share of the orders: the large merchant `LARGE_SHARE` over 24 desks, the
 * others the rest, the n-th merchant in proportion to 1/(n+3) (a long tail), sandbox merchants a
 * twentieth of that; within a merchant the k-th desk in proportion to 1/(k+1).
 */
export function planDesks(seed: number, merchants: readonly MerchantPlan[]): DeskPlan[] {
  const others = merchants.filter((m) => m.idx > 1);
  const mWeight = (m: MerchantPlan) => (1 / (m.idx + 3)) * (m.live ? 1 : 0.05);
  const otherTotal = others.reduce((s, m) => s + mWeight(m), 0);
  const desks: DeskPlan[] = [];
  for (const m of merchants) {
    const count = m.idx === 1 ? LARGE_DESKS : 1 + (m.idx % 3);
    const dWeight = (k: number) => (m.idx === 1 ? 1 / (k + 4) : 1 / (k + 1));
    let dTotal = 0;
    for (let k = 1; k <= count; k++) dTotal += dWeight(k);
    const share = m.idx === 1 ? LARGE_SHARE : ((1 - LARGE_SHARE) * mWeight(m)) / otherTotal;
    for (let k = 1; k <= count; k++) {
      const idx = desks.length + 1;
      desks.push({
        idx,
        merchantIdx: m.idx,
        id: `dsk_${hexId(seed, `desk:${idx}`)}`,
        key: `shp_${hexId(seed, `desk-key:${idx}`)}`,
        secret: `sk_${createHmac('sha256', `paygate-volume-${seed}`).update(`desk-secret:${idx}`).digest('base64url')}`,
        ...deskShape(m.idx, k),
        tariff: m.idx === 1 ? 'large' : 'standard',
        callbackUrl: `https://${m.idx === 1 ? 'northwind' : `shop-${String(m.idx).padStart(3, '0')}`}.example/paygate/callbacks`,
        weight: (share * dWeight(k)) / dTotal,
        createdMs: m.createdMs + k * 60_000,
      });
    }
  }
  return desks;
}

/** Whole numbers proportional to the weights that add up to `total` exactly (largest remainders). */
export function apportion(weights: readonly number[], total: number): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  const exact = weights.map((w) => (w / sum) * total);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((s, n) => s + n, 0);
  const order = exact.map((x, i) => ({ i, frac: x - Math.floor(x) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k]!.i]!++;
  return out;
}

/** Slots an order's hash picks its desk from: each desk holds slots in proportion to its weight. */
export const SLOTS = 100_000;

// Orders per hour of the UTC day (a European and Asian shop's day) and per weekday (Sunday first).
const HOUR_WEIGHTS = [3, 2, 2, 2, 3, 5, 8, 12, 16, 19, 21, 22, 22, 21, 20, 20, 21, 22, 23, 22, 18, 13, 8, 5];
const WEEKDAY_WEIGHTS = [70, 100, 104, 104, 106, 112, 86];

export interface HourPlan {
  startMs: number;
  spanMs: number;
  /** Orders before this hour. */
  lo: number;
  count: number;
}

/**
 * The hours from the period's start to now and how many of the orders each gets: a daily and a
 * weekly rhythm on a trend that grows from 0.6 to 1 over the period (a business that grew).
 */
export function planHours(orders: number, startMs: number, nowMs: number): HourPlan[] {
  const hours: { startMs: number; spanMs: number; weight: number }[] = [];
  const total = nowMs - startMs;
  for (let t = startMs; t < nowMs; t += HOUR_MS) {
    const d = new Date(t);
    const span = Math.min(HOUR_MS, nowMs - t);
    const trend = 0.6 + (0.4 * (t - startMs)) / total;
    hours.push({ startMs: t, spanMs: span, weight: HOUR_WEIGHTS[d.getUTCHours()]! * WEEKDAY_WEIGHTS[d.getUTCDay()]! * trend * (span / HOUR_MS) });
  }
  const counts = apportion(hours.map((h) => h.weight), orders);
  let lo = 0;
  return hours.map((h, k) => {
    const plan = { startMs: h.startMs, spanMs: h.spanMs, lo, count: counts[k]! };
    lo += plan.count;
    return plan;
  });
}

/** The start of the period: `months` calendar months before now, on the hour. */
export function periodStart(nowMs: number, months: number): number {
  const d = new Date(nowMs);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, d.getUTCDate(), d.getUTCHours());
  return start;
}

// ---- payment details a provider hands out: a few hundred requisites, reused as in real pools

const FIRST = ['Ivan', 'Olga', 'Pavel', 'Anna', 'Sergey', 'Maria', 'Dmitry', 'Elena', 'Artem', 'Irina'];
const LAST = ['P.', 'S.', 'K.', 'M.', 'V.', 'N.', 'T.', 'L.'];
const BANKS = ['Bank Alfa', 'Bank Sever', 'Bank Volga', 'Bank Ural', 'Bank Neva'];

function luhnComplete(prefix: string): string {
  let sum = 0;
  for (let i = prefix.length - 1, pos = 0; i >= 0; i--, pos++) {
    let d = prefix.charCodeAt(i) - 48;
    if (pos % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return prefix + String((10 - (sum % 10)) % 10);
}

export const REQUISITES_PER_KIND = 100;

/** `kind` → the payment object: sbp (phone), card, phone (mobile commerce), upi, qr (a link). */
export function planRequisites(seed: number): { kind: string; n: number; payment: Record<string, string> }[] {
  const rnd = prng(seed ^ 0x5eed);
  const digits = (len: number) => Array.from({ length: len }, () => String(Math.floor(rnd() * 10))).join('');
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: { kind: string; n: number; payment: Record<string, string> }[] = [];
  for (let n = 0; n < REQUISITES_PER_KIND; n++) {
    const holder = `${pick(FIRST)} ${pick(LAST)}`;
    out.push({ kind: 'sbp', n, payment: { phone: `+79${digits(9)}`, bank: pick(BANKS), holder } });
    out.push({ kind: 'card', n, payment: { card: luhnComplete(`2200${digits(11)}`), bank: pick(BANKS), holder } });
    out.push({ kind: 'phone', n, payment: { phone: `+79${digits(9)}`, holder } });
    out.push({ kind: 'upi', n, payment: { upiId: `${pick(FIRST).toLowerCase()}${digits(4)}@okbank`, holder } });
    out.push({ kind: 'qr', n, payment: { url: `https://qr.nspk.example/${digits(12)}` } });
  }
  return out;
}

// ---- per-order decisions in SQL

/** Per-order hash streams: each decision draws from its own, so changing one never shifts another. */
export class Draws {
  constructor(private readonly seed: number) {}
  /** A non-negative 63-bit hash of `expr` in stream `stream`. */
  h(expr: string, stream: number): string {
    return `(hashint8extended((${expr})::int8, ${this.seed * 1000 + stream}) & 9223372036854775807)`;
  }
  /**
   * The id of a history row made at `ms` (milliseconds), laid out as the service lays it out
   * (`timeOrderedId26`): the time in ten base32 characters, then 16 hex characters (a subset of the
   * alphabet) of a 64-bit hash of `expr`: unique in practice and a tenth of md5's cost, which
   * counts at millions of ids.
   */
  id(expr: string, stream: number, ms: string): string {
    const time = Array.from({ length: 10 }, (_, k) => `substr('${ID_ALPHABET}', (((${ms}) >> ${5 * (9 - k)}) & 31)::int + 1, 1)`).join(' || ');
    return `(${time} || lpad(to_hex(hashint8extended((${expr})::int8, ${this.seed * 1000 + stream})), 16, '0'))`;
  }
}

/** Milliseconds since the epoch of a timestamptz column, and back. */
// date_part's double is exact to far below a millisecond for these dates, and much cheaper than extract's numeric.
export const msOf = (col: string): string => `round(date_part('epoch', ${col}) * 1000)::int8`;
export const tsOf = (ms: string): string => `(timestamptz 'epoch' + (${ms}) * interval '1 millisecond')`;

/** Lifetimes of orders that run their course: mostly the default 15 minutes. */
export const lifetimeSql = (d: Draws, i: string): string => `(ARRAY[15,15,15,15,15,15,15,30,30,60])[${d.h(i, 3)} % 10 + 1]`;

/**
 * The moments of an order's history that the order row does not keep, from its number `i`, its
 * creation `c` (ms), its lifetime `life` (minutes) and, for the appeal, its expiry. An order of the
 * pool (`pool`) is paid when its money arrives on the requisite (`paid`) and completed when the
 * pool's feed reports that money, within a minute and before the order expires.
 */
export const times = (d: Draws, i: string, c: string, life: string, sandbox: string, pool = 'false') => {
  const paid = `(${c} + 30000 + ${d.h(i, 6)} % (${life} * 60000 - 90000))`;
  const expired = `(${c} + ${life} * 60000 + ${d.h(i, 8)} % 200)`;
  const appealed = `(${expired} + 3600000 + ${d.h(i, 9)} % 169200000)`;
  return {
    paid,
    done: `(CASE WHEN ${sandbox} THEN ${c} + 20000 + ${d.h(i, 7)} % (${life} * 60000 - 60000) WHEN ${pool} THEN ${paid} + 5000 + ${d.h(i, 7)} % 55000
                 ELSE ${paid} + 5000 + ${d.h(i, 7)} % 300000 END)`,
    rejected: `(${paid} + 60000 + ${d.h(i, 7)} % 600000)`,
    cancelled: `(${c} + 10000 + ${d.h(i, 7)} % (${life} * 60000 - 20000))`,
    expired,
    appealed,
    /** The operator's decision as planned; may still lie ahead of "now". */
    resolved: `(${appealed} + 600000 + ${d.h(i, 10)} % 21600000)`,
  };
};
