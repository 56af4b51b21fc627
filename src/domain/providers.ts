import { dec } from './money.js';

export interface Capability {
  method: string;
  rail: string | null;
  currency: string;
  /** Customer currency; "0" = unbounded. */
  min: string;
  max: string;
}

/** How a provider issues payment details: the simulator, the platform's own pool, a remote connector. */
export const PROVIDER_KINDS = ['sandbox', 'pool', 'http'] as const;
export type ProviderKindName = (typeof PROVIDER_KINDS)[number];
/** The kinds an operator creates; the sandbox is built in. */
export const CREATABLE_PROVIDER_KINDS = PROVIDER_KINDS.filter((k): k is Exclude<ProviderKindName, 'sandbox'> => k !== 'sandbox');

export interface ProviderView {
  id: string;
  kind: ProviderKindName;
  priority: number;
  pausedManual: boolean;
  pausedAppeals: boolean;
  capabilities: readonly Capability[];
  /** Circuits currently open (skipped), keyed `${method}|${rail ?? ''}`. */
  openCircuits: ReadonlySet<string>;
}

export const circuitKey = (method: string, rail: string | null): string => `${method}|${rail ?? ''}`;

/**
 * Who serves a desk's new orders: live providers (`live`), the sandbox (`sandbox`: sandbox orders,
 * paid by simulation, sandbox money only), or nobody until approval (`none`). A test desk's orders
 * are sandbox orders whatever the merchant's status; a live desk's follow the merchant: live once
 * approved, sandbox before. The operator's sandbox switch decides for an account under review, test
 * desks included: switched off, it has no provider at all until approval.
 */
export type OrderMode = 'live' | 'sandbox' | 'none';

export function orderModeOf(merchant: { status: string; sandbox: boolean }, desk: { sandbox: boolean }): OrderMode {
  if (merchant.status === 'Active') return desk.sandbox ? 'sandbox' : 'live';
  return merchant.sandbox ? 'sandbox' : 'none';
}

/** The sandbox serves sandbox orders (accounts under review, test desks); live providers serve live orders only. */
export function servesAccount(p: ProviderView, approved: boolean): boolean {
  return p.kind === 'sandbox' ? !approved : approved;
}

export function isPaused(p: ProviderView): boolean {
  return p.pausedManual || p.pausedAppeals;
}

/** The capability that covers method, rail and currency, if any (the sandbox covers everything, unbounded). */
export function capabilityFor(p: ProviderView, method: string, rail: string | null, currency: string): Capability | null {
  if (p.kind === 'sandbox') return { method, rail, currency, min: '0', max: '0' };
  return p.capabilities.find((c) => c.method === method && (c.rail ?? null) === rail && c.currency === currency) ?? null;
}

export function amountWithin(c: Capability, amount: string): boolean {
  const a = dec(amount);
  if (dec(c.min).gt(0) && a.lt(c.min)) return false;
  if (dec(c.max).gt(0) && a.gt(c.max)) return false;
  return true;
}

/**
 * Cascade candidates for an order, in priority order: providers that serve the account, are not
 * paused, and have a capability covering method, rail, currency and amount. Open circuits are left
 * to the caller, which lets the half-open share through.
 */
export function candidates(ps: readonly ProviderView[], q: { approved: boolean; method: string; rail: string | null; currency: string; amount: string }): ProviderView[] {
  return ps
    .filter((p) => servesAccount(p, q.approved) && !isPaused(p))
    .filter((p) => {
      const c = capabilityFor(p, q.method, q.rail, q.currency);
      return c !== null && amountWithin(c, q.amount);
    })
    .sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id));
}

/**
 * Whether any live provider is set up for method, rail and currency at all (paused or not, any
 * amount): what tells "nothing serves this" from "nobody takes it right now".
 */
export function liveProviderServes(ps: readonly ProviderView[], method: string, rail: string | null, currency: string): boolean {
  return ps.some((p) => p.kind !== 'sandbox' && capabilityFor(p, method, rail, currency) !== null);
}

/**
 * Why a desk cannot take live orders, or null when at least one of its rail and currency pairs
 * has a live provider: a line naming the desk and what it offers.
 */
export function deskWithoutLiveProvider(
  ps: readonly ProviderView[],
  desk: { id: string; name: string; method: string; rails: readonly string[]; currencies: readonly string[] },
): string | null {
  const rails: (string | null)[] = desk.rails.length > 0 ? [...desk.rails] : [null];
  const served = rails.some((rail) => desk.currencies.some((c) => liveProviderServes(ps, desk.method, rail, c)));
  if (served) return null;
  const what = `${desk.method}${desk.rails.length > 0 ? ` ${desk.rails.join('/')}` : ''} in ${desk.currencies.join('/') || 'no currency'}`;
  return `${desk.name} (${desk.id}): no live provider serves ${what}, so its live orders answer NO_AVAILABLE_METHOD`;
}

export interface RailPicture {
  rail: string | null;
  currencies: { code: string; min: number; max: number }[];
}

/**
 * The widest window across providers currently offering the pair: the smallest min and the largest
 * max, where any unbounded side (0) makes the whole side unbounded.
 */
export function widestWindow(caps: readonly Capability[]): { min: number; max: number } {
  const unboundedMin = caps.some((c) => dec(c.min).lte(0));
  const unboundedMax = caps.some((c) => dec(c.max).lte(0));
  const min = unboundedMin ? 0 : Math.min(...caps.map((c) => dec(c.min).toNumber()));
  const max = unboundedMax ? 0 : Math.max(...caps.map((c) => dec(c.max).toNumber()));
  return { min, max };
}

/** GET /gw/v1/methods: rails a currently available provider offers, in currencies the desk allows. */
export function methodsPicture(
  ps: readonly ProviderView[],
  desk: { method: string; rails: readonly (string | null)[]; currencies: readonly string[] },
  approved: boolean,
  railServes: (rail: string | null, currency: string) => boolean,
): RailPicture[] {
  const live = ps.filter((p) => servesAccount(p, approved) && !isPaused(p));
  const out: RailPicture[] = [];
  for (const rail of desk.rails) {
    const currencies: RailPicture['currencies'] = [];
    for (const code of desk.currencies) {
      if (!railServes(rail, code)) continue;
      const caps = live
        .filter((p) => !p.openCircuits.has(circuitKey(desk.method, rail)))
        .map((p) => capabilityFor(p, desk.method, rail, code))
        .filter((c): c is Capability => c !== null);
      if (caps.length > 0) currencies.push({ code, ...widestWindow(caps) });
    }
    if (currencies.length > 0) out.push({ rail, currencies });
  }
  return out;
}
