/**
 * SQL of devices' silence (device messages; src/reconciliation/messageStore.ts keeps the rest and
 * re-exports these): which devices are silent now, marking them, and which requisites a silent
 * phone forwards for; the record of silences the day report reads; and the retention of messages.
 * Here, in the store, because the pool provider, the silence watch and the retention worker ask
 * it and they reach SQL only through the store. Alerts read `silentDevices`.
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

/** A device as the other parts read it: its signing key stays out (only the app's check reads it, messageStore.ts `deviceSigningKey`). */
export const DEVICE = `
  SELECT d.id, d.provider_id, d.name, d.state, d.last_seen_at, d.created_at, d.updated_at, COALESCE((SELECT array_agg(r.requisite_id ORDER BY r.requisite_id) FROM device_requisites r WHERE r.device_id = d.id), '{}') AS requisite_ids
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

/**
 * Opens a silence for each of these devices, from when it began (its last sighting, or creation,
 * plus the silence); a device already in an open silence keeps it.
 */
export async function openSilences(q: Queryable, devices: readonly { id: string; providerId: string; startedAt: Date }[]): Promise<void> {
  if (devices.length === 0) return;
  await q.query(
    `INSERT INTO device_silences (device_id, provider_id, started_at)
     SELECT d.id, d.provider_id, d.started_at FROM jsonb_to_recordset($1::jsonb) AS d(id text, provider_id text, started_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(devices.map((d) => ({ id: d.id, provider_id: d.providerId, started_at: d.startedAt.toISOString() })))],
  );
}

/** A device heard from at `at` after a silence that began at `startedAt`: its open silence ends, or (the watch never came by) the whole silence is recorded. */
export async function closeSilence(q: Queryable, d: { id: string; providerId: string; startedAt: Date; at: Date }): Promise<void> {
  const { rowCount } = await q.query('UPDATE device_silences SET ended_at = $2 WHERE device_id = $1 AND ended_at IS NULL', [d.id, d.at]);
  if ((rowCount ?? 0) === 0) {
    await q.query('INSERT INTO device_silences (device_id, provider_id, started_at, ended_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [d.id, d.providerId, d.startedAt, d.at]);
  }
}

export interface SilenceRow {
  device_id: string;
  name: string;
  started_at: Date;
  ended_at: Date | null;
}

/** The provider's silences that overlap [from, to), oldest first, with the device's name. */
export async function silencesOverlapping(q: Queryable, providerId: string, from: Date, to: Date): Promise<SilenceRow[]> {
  const { rows } = await q.query<SilenceRow>(
    `SELECT s.device_id, d.name, s.started_at, s.ended_at FROM device_silences s JOIN devices d ON d.id = s.device_id
      WHERE s.provider_id = $1 AND s.started_at < $3 AND (s.ended_at IS NULL OR s.ended_at > $2)
      ORDER BY s.started_at, s.device_id`,
    [providerId, from, to],
  );
  return rows;
}

/**
 * Retention of device messages: one batch of messages dealt with (a credit, skipped, handled by a
 * person) kept since before `handledBefore`, then of unread ones since before `unreadBefore`
 * (null: unread ones are kept until a person deals with them). Answers how many went.
 */
export async function pruneMessages(q: Queryable, o: { handledBefore: Date | null; unreadBefore: Date | null; limit: number }): Promise<number> {
  let n = 0;
  if (o.handledBefore) {
    const r = await q.query(
      `DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE outcome <> 'unread' AND created_at < $1 ORDER BY created_at LIMIT $2)`,
      [o.handledBefore, o.limit],
    );
    n += r.rowCount ?? 0;
  }
  if (o.unreadBefore && n < o.limit) {
    const r = await q.query(
      `DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE outcome = 'unread' AND created_at < $1 ORDER BY created_at LIMIT $2)`,
      [o.unreadBefore, o.limit - n],
    );
    n += r.rowCount ?? 0;
  }
  return n;
}
