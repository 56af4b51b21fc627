import type { Ctx } from '../context.js';
import { isMethod, railsOf, isRailless, isIsoCurrency } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { isDecimalString } from '../domain/money.js';
import type { Capability } from '../domain/providers.js';
import { visibleState, type BreakerState } from '../domain/breaker.js';
import { isoSeconds } from '../domain/time.js';
import { newId } from '../ids.js';
import { insertProvider, insertRequisites, listCircuits, listProviders, getProvider, setPausedManual, type ProviderRow } from '../store/providers.js';
import { PAYMENT_KEYS } from '../domain/payment.js';
import { openAppealCountsByProvider } from '../store/appeals.js';
import { breakerConfig } from '../providers/cascade.js';

export function validateCapabilities(raw: unknown): Capability[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new AppError('VALIDATION_ERROR', 'capabilities: must be a non-empty array');
  return raw.map((c, i) => {
    const o = (c ?? {}) as Record<string, unknown>;
    const at = `capabilities[${i}]`;
    if (!isMethod(o.method)) throw new AppError('VALIDATION_ERROR', `${at}.method: must be one of the payment methods`);
    const rail = o.rail ?? null;
    if (isRailless(o.method)) {
      if (rail !== null) throw new AppError('VALIDATION_ERROR', `${at}.rail: must be null for ${o.method}`);
    } else if (typeof rail !== 'string' || !railsOf(o.method).includes(rail)) {
      throw new AppError('VALIDATION_ERROR', `${at}.rail: must be a rail of ${o.method} (${railsOf(o.method).join(', ')})`);
    }
    if (typeof o.currency !== 'string' || !/^[A-Z]{3}$/.test(o.currency) || !isIsoCurrency(o.currency)) {
      throw new AppError('VALIDATION_ERROR', `${at}.currency: must be an ISO 4217 code`);
    }
    for (const k of ['min', 'max'] as const) {
      if (!isDecimalString(o[k] ?? '0', 2)) throw new AppError('VALIDATION_ERROR', `${at}.${k}: must be a decimal string ("0" = unbounded)`);
    }
    return { method: o.method, rail: rail as string | null, currency: o.currency, min: (o.min as string) ?? '0', max: (o.max as string) ?? '0' };
  });
}

export function validateRequisites(raw: unknown): Record<string, string | null>[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new AppError('VALIDATION_ERROR', 'requisites: must be a non-empty array for a pool provider');
  return raw.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new AppError('VALIDATION_ERROR', `requisites[${i}]: must be an object of payment keys`);
    const out: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(r as Record<string, unknown>)) {
      if (!(PAYMENT_KEYS as readonly string[]).includes(k)) throw new AppError('VALIDATION_ERROR', `requisites[${i}].${k}: not a payment key (${PAYMENT_KEYS.join(', ')})`);
      if (v !== null && typeof v !== 'string') throw new AppError('VALIDATION_ERROR', `requisites[${i}].${k}: must be a string or null`);
      out[k] = v as string | null;
    }
    if (!['url', 'card', 'phone', 'account', 'iban', 'upiId'].some((k) => out[k])) {
      throw new AppError('VALIDATION_ERROR', `requisites[${i}]: needs at least one payable detail`);
    }
    return out;
  });
}

export function providerView(p: ProviderRow, circuits: { method: string; rail: string | null; state: string }[], openAppeals: number) {
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    priority: p.priority,
    paused: p.paused_manual || p.paused_appeals,
    pauseReasons: [...(p.paused_manual ? ['manual'] : []), ...(p.paused_appeals ? ['appeals'] : [])],
    /** The first reason, for readers that expect one: the appeal guard's, else the operator's. */
    pauseReason: p.paused_appeals ? 'appeals' : p.paused_manual ? 'manual' : null,
    circuits,
    openAppeals,
    capabilities: p.kind === 'sandbox' ? 'all' : p.capabilities,
    baseUrl: p.base_url,
    createdAt: isoSeconds(p.created_at),
  };
}

export async function listProviderViews(ctx: Ctx) {
  const [rows, circuits, appeals] = await Promise.all([listProviders(ctx.db), listCircuits(ctx.db), openAppealCountsByProvider(ctx.db)]);
  const now = ctx.clock.now();
  const cfg = breakerConfig(ctx);
  return rows.map((p) =>
    providerView(
      p,
      circuits
        .filter((c) => c.provider_id === p.id)
        .map((c) => ({ method: c.method, rail: c.rail === '' ? null : c.rail, state: visibleState(c.state as BreakerState, now, cfg) })),
      appeals.get(p.id) ?? 0,
    ),
  );
}

export async function providerViewById(ctx: Ctx, id: string) {
  const v = (await listProviderViews(ctx)).find((p) => p.id === id);
  if (!v) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  return v;
}

export async function createProvider(
  ctx: Ctx,
  input: { name: string; kind: string; priority: number; capabilities: unknown; requisites?: unknown; baseUrl?: string | null; key?: string | null; secret?: string | null },
) {
  if (input.kind !== 'pool' && input.kind !== 'http') throw new AppError('VALIDATION_ERROR', 'kind: must be pool or http (the sandbox is built in)');
  const capabilities = validateCapabilities(input.capabilities);
  let requisites: Record<string, string | null>[] = [];
  if (input.kind === 'pool') requisites = validateRequisites(input.requisites);
  if (input.kind === 'http') {
    if (!input.baseUrl || !/^https?:\/\//.test(input.baseUrl)) throw new AppError('VALIDATION_ERROR', 'baseUrl: must be an absolute http(s) URL');
    if (!input.key) throw new AppError('VALIDATION_ERROR', 'key: is required for an http provider');
    if (!input.secret) throw new AppError('VALIDATION_ERROR', 'secret: is required for an http provider');
  }
  const id = newId('prv');
  await ctx.db.tx(async (q) => {
    await insertProvider(q, {
      id,
      name: input.name,
      kind: input.kind as 'pool' | 'http',
      priority: input.priority,
      capabilities,
      baseUrl: input.kind === 'http' ? input.baseUrl! : null,
      apiKey: input.kind === 'http' ? input.key! : null,
      secretEnc: input.kind === 'http' ? ctx.box.seal(input.secret!) : null,
      at: new Date(ctx.clock.now()),
    });
    if (requisites.length) await insertRequisites(q, id, requisites);
  });
  return providerViewById(ctx, id);
}

export async function pauseProvider(ctx: Ctx, id: string, paused: boolean) {
  if (!(await getProvider(ctx.db, id))) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  await setPausedManual(ctx.db, id, paused);
  return providerViewById(ctx, id);
}
