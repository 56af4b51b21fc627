/**
 * SQL of device messages: devices (`dev_`) and the requisites they forward for, operators'
 * templates (`tpl_`) and every message received (`msg_`). The queries other parts read (alerts:
 * devices silent now, unread messages) are `silentDevices` and `unreadMessageCount`.
 */
import type { Queryable } from '../store/db.js';

export { closeSilence, DEVICE, type DeviceRow, type DeviceState, markDevicesSilent, requisitesOfSilentDevices, silencesOverlapping, silentDevices } from '../store/devices.js';
import { DEVICE, type DeviceRow } from '../store/devices.js';

export async function insertDevice(q: Queryable, d: { id: string; providerId: string; name: string; requisiteIds: readonly string[]; at: Date }): Promise<void> {
  await q.query('INSERT INTO devices (id, provider_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [d.id, d.providerId, d.name, d.at]);
  await setDeviceRequisites(q, d.id, d.requisiteIds);
}

export async function setDeviceRequisites(q: Queryable, deviceId: string, requisiteIds: readonly string[]): Promise<void> {
  await q.query('DELETE FROM device_requisites WHERE device_id = $1', [deviceId]);
  if (requisiteIds.length) {
    await q.query('INSERT INTO device_requisites (device_id, requisite_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [deviceId, [...requisiteIds]]);
  }
}

/** The device's signing key for a forwarding app, sealed; the old one fails at once. */
export async function setDeviceSigningKey(q: Queryable, id: string, sealed: string, at: Date): Promise<void> {
  await q.query('UPDATE devices SET signing_key_enc = $2, updated_at = $3 WHERE id = $1', [id, sealed, at]);
}

/** A device of this provider with its sealed signing key (null: none issued), or null when the provider has no such device. */
export async function deviceSigningKey(q: Queryable, providerId: string, deviceId: string): Promise<{ sealed: string | null } | null> {
  const { rows } = await q.query<{ signing_key_enc: string | null }>('SELECT signing_key_enc FROM devices WHERE id = $1 AND provider_id = $2', [deviceId, providerId]);
  return rows[0] ? { sealed: rows[0].signing_key_enc } : null;
}

export async function updateDeviceName(q: Queryable, id: string, name: string, at: Date): Promise<void> {
  await q.query('UPDATE devices SET name = $2, updated_at = $3 WHERE id = $1', [id, name, at]);
}

export async function getDevice(q: Queryable, id: string): Promise<DeviceRow | null> {
  const { rows } = await q.query<DeviceRow>(`${DEVICE} WHERE d.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listDevices(q: Queryable, providerId: string): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(`${DEVICE} WHERE d.provider_id = $1 ORDER BY d.created_at, d.id`, [providerId]);
  return rows;
}

/** Of these ids, the requisites of the provider (to refuse a device another pool's requisite). */
export async function requisitesOfProvider(q: Queryable, providerId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<{ id: string }>('SELECT id FROM requisites WHERE provider_id = $1 AND id = ANY($2::text[])', [providerId, [...ids]]);
  return rows.map((r) => r.id);
}

/**
 * A device heard from at `at`: its last sighting moves forward (never back: messages come out of
 * order), and a silent device becomes active. Answers the device as it was before when it was
 * silent (to audit its return), else null; null also for a device the provider does not have.
 */
export async function markDeviceSeen(q: Queryable, providerId: string, deviceId: string, at: Date): Promise<{ known: boolean; wasSilent: boolean; heardBefore: Date | null }> {
  const { rows } = await q.query<{ was_silent: boolean; heard_before: Date }>(
    `UPDATE devices d SET last_seen_at = GREATEST(COALESCE(d.last_seen_at, $3), $3), state = 'active', updated_at = $3
       FROM (SELECT id, state AS old_state, COALESCE(last_seen_at, created_at) AS heard_before FROM devices WHERE id = $2 AND provider_id = $1 FOR UPDATE) o
      WHERE d.id = o.id
      RETURNING o.old_state = 'silent' AS was_silent, o.heard_before`,
    [providerId, deviceId, at],
  );
  return { known: rows.length === 1, wasSilent: rows[0]?.was_silent ?? false, heardBefore: rows[0]?.heard_before ?? null };
}

/** The accounts (as stored) and currency of a device's requisites, to credit a text that shows no account. */
export async function requisiteAccountsOfDevice(q: Queryable, deviceId: string): Promise<{ requisite_id: string; account: string | null; currency: string | null }[]> {
  const { rows } = await q.query<{ requisite_id: string; account: string | null; currency: string | null }>(
    `SELECT r.id AS requisite_id, r.currency,
            (SELECT a.account FROM requisite_accounts a WHERE a.requisite_id = r.id ORDER BY length(a.account) DESC, a.account LIMIT 1) AS account
       FROM device_requisites dr JOIN requisites r ON r.id = dr.requisite_id
      WHERE dr.device_id = $1 AND r.state <> 'retired' ORDER BY r.id`,
    [deviceId],
  );
  return rows;
}

/** Messages today and unread of each device of a provider, for the pool's page. */
export async function deviceMessageCounts(q: Queryable, providerId: string, dayStart: Date): Promise<Map<string, { today: number; unread: number }>> {
  const { rows } = await q.query<{ device_id: string; today: number; unread: number }>(
    `SELECT device_id, count(*) FILTER (WHERE created_at >= $2)::int AS today, count(*) FILTER (WHERE outcome = 'unread')::int AS unread
       FROM messages WHERE provider_id = $1 GROUP BY device_id`,
    [providerId, dayStart],
  );
  return new Map(rows.map((r) => [r.device_id, { today: r.today, unread: r.unread }]));
}

// ---- templates

export interface TemplateRow {
  id: string;
  provider_id: string | null;
  name: string;
  sender: string | null;
  pattern: string;
  kind: 'credit' | 'debit' | 'other';
  currency: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function insertTemplate(q: Queryable, t: Omit<TemplateRow, 'created_at' | 'updated_at'> & { at: Date }): Promise<void> {
  await q.query(
    `INSERT INTO message_templates (id, provider_id, name, sender, pattern, kind, currency, enabled, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
    [t.id, t.provider_id, t.name, t.sender, t.pattern, t.kind, t.currency, t.enabled, t.at],
  );
}

export async function updateTemplate(q: Queryable, t: Omit<TemplateRow, 'created_at' | 'updated_at'> & { at: Date }): Promise<void> {
  await q.query(
    `UPDATE message_templates SET provider_id = $2, name = $3, sender = $4, pattern = $5, kind = $6, currency = $7, enabled = $8, updated_at = $9 WHERE id = $1`,
    [t.id, t.provider_id, t.name, t.sender, t.pattern, t.kind, t.currency, t.enabled, t.at],
  );
}

export async function getTemplate(q: Queryable, id: string): Promise<TemplateRow | null> {
  const { rows } = await q.query<TemplateRow>('SELECT * FROM message_templates WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Operators' templates, the provider's own first (null: every provider's and the shared ones), then oldest first. */
export async function listTemplates(q: Queryable, opts: { providerId: string | null; enabledOnly: boolean }): Promise<TemplateRow[]> {
  const { rows } = await q.query<TemplateRow>(
    `SELECT * FROM message_templates
      WHERE ($1::text IS NULL OR provider_id IS NULL OR provider_id = $1) AND (NOT $2 OR enabled)
      ORDER BY (provider_id IS NULL), created_at, id`,
    [opts.providerId, opts.enabledOnly],
  );
  return rows;
}

// ---- messages

export type MessageOutcome = 'credit' | 'skipped' | 'unread' | 'done';

export interface MessageRow {
  id: string;
  provider_id: string;
  message_id: string;
  text_sha256: string;
  device_id: string;
  device_known: boolean;
  sender: string;
  text: string;
  received_at: Date;
  outcome: MessageOutcome;
  reason: string | null;
  template_id: string | null;
  credit_id: string | null;
  created_at: Date;
}

/** The messages of these (id, text) pairs the provider received before. */
export async function messagesByIds(q: Queryable, providerId: string, keys: readonly { messageId: string; textSha256: string }[]): Promise<MessageRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await q.query<MessageRow>(
    `SELECT m.* FROM jsonb_to_recordset($2::jsonb) AS k(message_id text, text_sha256 text)
       JOIN messages m ON m.provider_id = $1 AND m.message_id = k.message_id AND m.text_sha256 = k.text_sha256`,
    [providerId, JSON.stringify(keys.map((k) => ({ message_id: k.messageId, text_sha256: k.textSha256 })))],
  );
  return rows;
}

/** Inserts a message; false when the same (provider, id, text) was inserted meanwhile. */
export async function insertMessage(q: Queryable, m: Omit<MessageRow, 'created_at'> & { at: Date }): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO messages (id, provider_id, message_id, text_sha256, device_id, device_known, sender, text, received_at, outcome, reason, template_id, credit_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING`,
    [m.id, m.provider_id, m.message_id, m.text_sha256, m.device_id, m.device_known, m.sender, m.text, m.received_at, m.outcome, m.reason, m.template_id, m.credit_id, m.at],
  );
  return (rowCount ?? 0) === 1;
}

export async function getMessage(q: Queryable, id: string): Promise<MessageRow | null> {
  const { rows } = await q.query<MessageRow>('SELECT * FROM messages WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Unread messages, oldest first, for the back office's queue. */
export async function listUnreadMessages(q: Queryable, limit: number): Promise<MessageRow[]> {
  const { rows } = await q.query<MessageRow>(`SELECT * FROM messages WHERE outcome = 'unread' ORDER BY created_at, id LIMIT $1`, [limit]);
  return rows;
}

/** How many messages wait for a person: the navigation's count, and alerts. */
export async function unreadMessageCount(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE outcome = 'unread'`);
  return rows[0]?.n ?? 0;
}

/** An unread message dealt with by a person (a credit entered from it): out of the queue, naming the credit. */
export async function markMessageDone(q: Queryable, id: string, creditId: string | null, reason: string): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE messages SET outcome = 'done', credit_id = COALESCE($2, credit_id), reason = $3 WHERE id = $1 AND outcome = 'unread'`, [id, creditId, reason]);
  return (rowCount ?? 0) === 1;
}
