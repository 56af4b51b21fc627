import type { NewProviderSettings } from '../schemas/admin.js';
import type { Ctx } from '../context.js';
import { isMethod, railsOf, isRailless, isIsoCurrency } from '../domain/catalogue.js';
import { AppError } from '../domain/errors.js';
import { isDecimalString } from '../domain/money.js';
import type { Capability } from '../domain/providers.js';
import { visibleState, type BreakerState } from '../domain/breaker.js';
import { isoSeconds } from '../domain/time.js';
import { newId, newSecret, randomId26 } from '../ids.js';
import { insertProvider, listProvidersWithCircuits, getProvider, setPausedManual, setProviderCredentials, type ProviderRow } from '../store/providers.js';
import { checkRequisite, validatePayment, type RequisiteInput } from '../domain/requisites.js';
import type { Queryable } from '../store/db.js';
import { accountsInUse, insertRequisite } from '../store/requisites.js';
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

/**
 * The `requisites` array of a new pool provider: payment keys per entry, each one a requisite of
 * any currency and rail of the provider, unbounded, at most 10 open orders. It may be empty
 * (requisites can be added later).
 */
export function validateRequisites(raw: unknown): Record<string, string | null>[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new AppError('VALIDATION_ERROR', 'requisites: must be an array of payment key objects');
  return raw.map((r, i) => validatePayment(r, `requisites[${i}]`));
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
    /** The key the provider signs its messages with (a pool's credit feed, an http provider's events); never the secret. */
    key: p.api_key,
    createdAt: isoSeconds(p.created_at),
  };
}

export async function listProviderViews(ctx: Ctx) {
  const [{ providers: rows, circuits }, appeals] = await Promise.all([listProvidersWithCircuits(ctx.db), openAppealCountsByProvider(ctx.db)]);
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

/** A requisite's id: `rqs_` and 26 random characters. */
export const newRequisiteId = (): string => `rqs_${randomId26()}`;

/**
 * Adds requisites to a pool provider inside the caller's transaction, in the order given (each
 * created a millisecond after the one before). An account may belong to one requisite of the
 * provider only: a credit to it must name one requisite. `at` names the field a refusal is about.
 */
export async function insertRequisites(q: Queryable, ctx: Ctx, p: ProviderRow, inputs: readonly RequisiteInput[], at: (i: number) => string): Promise<string[]> {
  const taken = new Map<string, string>();
  const ids: string[] = [];
  const base = ctx.clock.now();
  for (let i = 0; i < inputs.length; i++) {
    const terms = checkRequisite(inputs[i], p.capabilities, at(i));
    const id = newRequisiteId();
    const clash = [...(await accountsInUse(q, p.id, terms.accounts)).map((r) => [r.account, r.requisite_id]), ...terms.accounts.filter((a) => taken.has(a)).map((a) => [a, taken.get(a)!])];
    if (clash.length) throw new AppError('VALIDATION_ERROR', `${at(i)}payment: the account ${clash[0][0]} already belongs to requisite ${clash[0][1]} of this provider`);
    for (const a of terms.accounts) taken.set(a, id);
    await insertRequisite(q, { id, providerId: p.id, ...terms, at: new Date(base + i) });
    ids.push(id);
  }
  return ids;
}

/** A key a pool's credit feed signs with, when the operator gives none. */
const newProviderKey = (): string => `pvk_${randomId26()}`;

/**
 * Adds a pool or http provider. An http provider comes with the key and secret its connector signs
 * with. A pool provider's credit feed signs with `key` and `secret` as given, or generated when left
 * out: a generated secret is in this answer only (`secret`), sealed at rest like every other.
 */
export async function createProvider(
  ctx: Ctx,
  input: NewProviderSettings,
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
  const generatedSecret = input.kind === 'pool' && !input.secret ? newSecret() : null;
  const key = input.key || newProviderKey();
  const secret = input.secret || generatedSecret!;
  const id = newId('prv');
  await ctx.db.tx(async (q) => {
    const row = await insertProvider(q, {
      id,
      name: input.name,
      kind: input.kind as 'pool' | 'http',
      priority: input.priority,
      capabilities,
      baseUrl: input.kind === 'http' ? input.baseUrl! : null,
      apiKey: key,
      secretEnc: ctx.box.seal(secret),
      at: new Date(ctx.clock.now()),
    });
    if (requisites.length) await insertRequisites(q, ctx, row, requisites.map((payment) => ({ payment })), (i) => `requisites[${i}].`);
  });
  const view = await providerViewById(ctx, id);
  return generatedSecret ? { ...view, secret: generatedSecret } : view;
}

/**
 * `POST /admin/v1/providers/{id}/secret`: a new secret for the provider's signed messages, shown in
 * this answer only; the old one fails at once. A pool provider without a key gets one too.
 */
export async function rotateProviderSecret(ctx: Ctx, id: string): Promise<{ key: string; secret: string }> {
  const p = await getProvider(ctx.db, id);
  if (!p) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  if (p.kind === 'sandbox') throw new AppError('VALIDATION_ERROR', 'the built-in sandbox provider has no secret');
  const secret = newSecret();
  const key = p.api_key ?? newProviderKey();
  await setProviderCredentials(ctx.db, id, key, ctx.box.seal(secret));
  return { key, secret };
}

export async function pauseProvider(ctx: Ctx, id: string, paused: boolean) {
  if (!(await getProvider(ctx.db, id))) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${id}`);
  await setPausedManual(ctx.db, id, paused);
  return providerViewById(ctx, id);
}
