import type { Capability } from '../domain/providers.js';
import type { Queryable } from './db.js';

export interface ProviderRow {
  id: string;
  name: string;
  kind: 'sandbox' | 'pool' | 'http';
  priority: number;
  paused_manual: boolean;
  paused_appeals: boolean;
  capabilities: Capability[];
  base_url: string | null;
  api_key: string | null;
  secret_enc: string | null;
  pool_cursor: number;
  created_at: Date;
}

export interface CircuitRow {
  provider_id: string;
  method: string;
  rail: string;
  state: unknown;
  updated_at: Date;
}

export async function getProvider(q: Queryable, id: string): Promise<ProviderRow | null> {
  const { rows } = await q.query<ProviderRow>('SELECT * FROM providers WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function insertProvider(
  q: Queryable,
  p: { id: string; name: string; kind: 'pool' | 'http'; priority: number; capabilities: Capability[]; baseUrl: string | null; apiKey: string | null; secretEnc: string | null; at: Date },
): Promise<ProviderRow> {
  const { rows } = await q.query<ProviderRow>(
    `INSERT INTO providers (id, name, kind, priority, capabilities, base_url, api_key, secret_enc, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [p.id, p.name, p.kind, p.priority, JSON.stringify(p.capabilities), p.baseUrl, p.apiKey, p.secretEnc, p.at],
  );
  return rows[0];
}

/** A provider's key and sealed secret (a pool's feed credentials, an http provider's connector credentials). */
export async function setProviderCredentials(q: Queryable, id: string, apiKey: string, secretEnc: string): Promise<ProviderRow | null> {
  const { rows } = await q.query<ProviderRow>('UPDATE providers SET api_key = $2, secret_enc = $3 WHERE id = $1 RETURNING *', [id, apiKey, secretEnc]);
  return rows[0] ?? null;
}

export async function setPausedManual(q: Queryable, id: string, paused: boolean): Promise<ProviderRow | null> {
  const { rows } = await q.query<ProviderRow>('UPDATE providers SET paused_manual = $2 WHERE id = $1 RETURNING *', [id, paused]);
  return rows[0] ?? null;
}


/**
 * Providers in priority order, each with its circuits, in one statement (the cascade and the
 * methods picture read this on every request), with the providers catalogue version they are at
 * (null when there is no provider).
 */
export async function listProvidersWithCircuits(q: Queryable): Promise<{ providers: ProviderRow[]; circuits: CircuitRow[]; version: number | null }> {
  const { rows } = await q.query<ProviderRow & { circuits: CircuitRow[] | null; v_catalog: number }>(
    `SELECT p.*, (SELECT json_agg(json_build_object('provider_id', c.provider_id, 'method', c.method, 'rail', c.rail, 'state', c.state, 'updated_at', c.updated_at))
                    FROM provider_circuits c WHERE c.provider_id = p.id) AS circuits,
            (SELECT version FROM catalog_versions WHERE name = 'providers') AS v_catalog
       FROM providers p ORDER BY p.priority, p.id`,
  );
  const circuits: CircuitRow[] = [];
  const providers = rows.map(({ circuits: cs, v_catalog: _v, ...p }) => {
    for (const c of cs ?? []) circuits.push({ ...c, updated_at: new Date(c.updated_at) });
    return p as ProviderRow;
  });
  return { providers, circuits, version: rows[0]?.v_catalog ?? null };
}
