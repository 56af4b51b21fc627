/**
 * SQL of devices' silence (device messages; src/reconciliation/messageStore.ts keeps the rest and
 * re-exports these): which devices are silent now, marking them, and which requisites a silent
 * phone forwards for. Here, in the store, because the pool provider and the silence watch ask it
 * and they reach SQL only through the store. Alerts read `silentDevices`.
 */
import type { Queryable } from './db.js';

export type DeviceState = 'active' | 'silent';

export interface DeviceRow {
  id: string;
  provider_id: string;
  name: string;
  state: DeviceState;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
  requisite_ids: string[];
}

export const DEVICE = `
  SELECT d.*, COALESCE((SELECT array_agg(r.requisite_id ORDER BY r.requisite_id) FROM device_requisites r WHERE r.device_id = d.id), '{}') AS requisite_ids
    FROM devices d`;

/**
 * Devices silent now: not heard from (nor, never heard from, created) since `since`. For the
 * silence watch and for alerts.
 */
export async function silentDevices(q: Queryable, since: Date): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(`${DEVICE} WHERE COALESCE(d.last_seen_at, d.created_at) < $1 ORDER BY d.id`, [since]);
  return rows;
}

/** Marks these devices silent when they are still active and still silent (conditional: a heartbeat in between wins); answers those marked. */
export async function markDevicesSilent(q: Queryable, ids: readonly string[], since: Date, at: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<{ id: string }>(
    `UPDATE devices SET state = 'silent', updated_at = $3
      WHERE id = ANY($1::text[]) AND state = 'active' AND COALESCE(last_seen_at, created_at) < $2 RETURNING id`,
    [[...ids], since, at],
  );
  return rows.map((r) => r.id);
}


/** Of these requisites, those a device forwards for that has not been heard from (nor, never heard from, created) since `since`. */
export async function requisitesOfSilentDevices(q: Queryable, requisiteIds: readonly string[], since: Date): Promise<Set<string>> {
  if (requisiteIds.length === 0) return new Set();
  const { rows } = await q.query<{ requisite_id: string }>(
    `SELECT DISTINCT r.requisite_id FROM device_requisites r JOIN devices d ON d.id = r.device_id
      WHERE r.requisite_id = ANY($1::text[]) AND COALESCE(d.last_seen_at, d.created_at) < $2`,
    [[...requisiteIds], since],
  );
  return new Set(rows.map((r) => r.requisite_id));
}
