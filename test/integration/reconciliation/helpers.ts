import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { newProviderMessageId, signProviderRequestHeaders } from '../../../src/providers/providerMessages.js';
import { admin, json, signed, type DeskCreds, type Harness } from '../../helpers/harness.js';

/** What the suites need of a pool provider: its id and the credentials its feed signs with. */
export interface Pool {
  id: string;
  key: string;
  secret: string;
  requisites: any[];
}

export const RUB_CAPABILITIES = [
  { method: 'Classic', rail: 'Sbp', currency: 'RUB', min: '0', max: '0' },
  { method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' },
];

export const card = (n: number) => `2200 1500 0000 ${String(n).padStart(4, '0')}`;

/**
 * A fresh pool provider, created through the operator API, that serves the next orders: every pool
 * made before it is paused, so each test sees only its own requisites.
 */
export function pools(h: Harness) {
  const made: string[] = [];
  return async function pool(requisites: Record<string, unknown>[] = [{ card: card(1), holder: 'A' }], extra: Record<string, unknown> = {}): Promise<Pool> {
    for (const id of made) await admin(h.app, 'POST', `/providers/${id}/pause`);
    const res = await admin(h.app, 'POST', '/providers', { name: `Pool ${made.length + 1}`, kind: 'pool', priority: 10, capabilities: RUB_CAPABILITIES, requisites, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    const p = json(res).result;
    made.push(p.id);
    const list = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result;
    return { id: p.id, key: p.key, secret: p.secret ?? extra.secret, requisites: list };
  };
}

/** A live order (the merchant is approved) through the signed gateway. */
export async function order(h: Harness, desk: DeskCreds, amount: number, body: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount, currency: 'RUB', rail: 'C2c', ...body }) });
}

export async function placed(h: Harness, desk: DeskCreds, amount: number, body: Record<string, unknown> = {}): Promise<any> {
  const res = await order(h, desk, amount, body);
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}

/** `POST /providers/v1/{id}/credits`, signed with the pool's key and secret over the exact bytes. */
export function feed(h: Harness, p: { id: string; key: string; secret: string }, body: unknown, o: { raw?: string; secret?: string; ts?: number; contentType?: string } = {}) {
  const raw = o.raw ?? JSON.stringify(body);
  const ts = o.ts ?? Math.floor(h.clock.now() / 1000);
  const headers = signProviderRequestHeaders(p.key, o.secret ?? p.secret, newProviderMessageId(), ts, raw);
  return h.app.inject({
    method: 'POST',
    url: `/providers/v1/${p.id}/credits`,
    headers: { 'content-type': o.contentType ?? 'application/json', ...headers },
    payload: raw,
  });
}

let txn = 0;
export const nextTxn = () => `txn-${Date.now().toString(36)}-${++txn}`;

/** One feed item: the money on the account now, unless told otherwise. */
export function credit(h: Harness, account: string, amount: string, extra: Record<string, unknown> = {}) {
  return { transactionId: nextTxn(), account, amount, currency: 'RUB', receivedAt: new Date(h.clock.now()).toISOString(), payer: 'IVAN I.', reference: null, ...extra };
}

/** Sends one credit through the feed and answers the credit as recorded. */
export async function sendCredit(h: Harness, p: Pool, item: Record<string, unknown>): Promise<any> {
  const res = await feed(h, p, { credits: [item] });
  expect(res.statusCode, res.body).toBe(200);
  const [r] = json(res).result.credits;
  return json(await admin(h.app, 'GET', `/credits/${r.creditId}`)).result;
}

export const getOrder = async (h: Harness, id: string) => json(await admin(h.app, 'GET', `/orders/${id}`)).result;

/**
 * The differences between the day report's sums of credits (credit_days, kept by the database over
 * its slots) and the credits themselves counted the report's way (a person's match on its order's
 * requisite): empty when the sums are right.
 */
export async function creditDaysDifferences(h: Harness): Promise<unknown[]> {
  const { rows } = await h.ctx.db.query(`
    SELECT * FROM (
      SELECT c.provider_id, (c.received_at AT TIME ZONE 'UTC')::date AS day,
             COALESCE(CASE WHEN c.matched_by = 'operator' THEN (SELECT a.requisite_id FROM requisite_assignments a WHERE a.order_id = c.order_id) END, c.requisite_id, '') AS requisite_id,
             c.status, count(*)::int AS credits, sum(c.amount) AS amount
        FROM credits c GROUP BY 1, 2, 3, 4) x
    FULL JOIN (SELECT provider_id, day, requisite_id, status, sum(credits)::int AS credits, sum(amount) AS amount FROM credit_days GROUP BY 1, 2, 3, 4
                HAVING sum(credits) <> 0 OR sum(amount) <> 0) d USING (provider_id, day, requisite_id, status)
    WHERE x.credits IS DISTINCT FROM d.credits OR x.amount IS DISTINCT FROM d.amount`);
  return rows;
}
