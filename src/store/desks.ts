import type { Queryable } from './db.js';

export interface DeskRow {
  id: string;
  merchant_id: string;
  key: string;
  secret_enc: string;
  method: string;
  rails: string[];
  currencies: string[];
  min_usd: string;
  max_usd: string;
  callback_url: string | null;
  callbacks_enabled: boolean;
  tariff_id: string | null;
  enabled: boolean;
  stop_reason: string | null;
  created_at: Date;
}

export interface NewDesk {
  id: string;
  merchantId: string;
  key: string;
  secretEnc: string;
  method: string;
  rails: string[];
  currencies: string[];
  minUsd: string;
  maxUsd: string;
  callbackUrl: string | null;
  callbacksEnabled: boolean;
  tariffId: string | null;
  at: Date;
}

export async function insertDesk(q: Queryable, d: NewDesk): Promise<DeskRow> {
  const { rows } = await q.query<DeskRow>(
    `INSERT INTO desks (id, merchant_id, key, secret_enc, method, rails, currencies, min_usd, max_usd, callback_url,
       callbacks_enabled, tariff_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
    [d.id, d.merchantId, d.key, d.secretEnc, d.method, JSON.stringify(d.rails), JSON.stringify(d.currencies), d.minUsd, d.maxUsd,
      d.callbackUrl, d.callbacksEnabled, d.tariffId, d.at],
  );
  return rows[0];
}

export async function getDesk(q: Queryable, id: string): Promise<DeskRow | null> {
  const { rows } = await q.query<DeskRow>('SELECT * FROM desks WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function getDeskByKey(q: Queryable, key: string): Promise<DeskRow | null> {
  const { rows } = await q.query<DeskRow>('SELECT * FROM desks WHERE key = $1', [key]);
  return rows[0] ?? null;
}

export interface DeskPatch {
  enabled?: boolean;
  rails?: string[];
  currencies?: string[];
  minUsd?: string;
  maxUsd?: string;
  callbackUrl?: string | null;
  callbacksEnabled?: boolean;
  tariffId?: string | null;
  stopReason?: string | null;
  secretEnc?: string;
}

const COLUMNS: Record<keyof DeskPatch, string> = {
  enabled: 'enabled',
  rails: 'rails',
  currencies: 'currencies',
  minUsd: 'min_usd',
  maxUsd: 'max_usd',
  callbackUrl: 'callback_url',
  callbacksEnabled: 'callbacks_enabled',
  tariffId: 'tariff_id',
  stopReason: 'stop_reason',
  secretEnc: 'secret_enc',
};

export async function updateDesk(q: Queryable, id: string, patch: DeskPatch): Promise<DeskRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [k, v] of Object.entries(patch) as [keyof DeskPatch, unknown][]) {
    if (v === undefined) continue;
    params.push(Array.isArray(v) ? JSON.stringify(v) : v);
    sets.push(`${COLUMNS[k]} = $${params.length}`);
  }
  if (sets.length === 0) return getDesk(q, id);
  const { rows } = await q.query<DeskRow>(`UPDATE desks SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
  return rows[0] ?? null;
}

/** Newest first, keyset-paged back from the `before` desk. */
export async function listDesks(q: Queryable, f: { merchantId: string | null; beforeId?: string; limit: number }): Promise<DeskRow[]> {
  const { rows } = await q.query<DeskRow>(
    `SELECT d.* FROM desks d LEFT JOIN desks c ON c.id = $2
      WHERE ($1::text IS NULL OR d.merchant_id = $1) AND ($2::text IS NULL OR (d.created_at, d.id) < (c.created_at, c.id))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    [f.merchantId, f.beforeId ?? null, f.limit],
  );
  return rows;
}
