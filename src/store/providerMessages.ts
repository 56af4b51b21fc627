import type { Queryable } from './db.js';

/**
 * Records one inbound provider message by its `X-Gate-Event-Id`, inside the caller's transaction.
 * Returns false when the provider already sent a message with this id (or a concurrent
 * transaction holding the same id commits first: the primary key makes the second insert wait for
 * the first and then see the conflict). `RETURNING` rather than the row count, because the
 * embedded database reports no affected rows for a skipped `ON CONFLICT DO NOTHING` either way.
 */
export async function recordProviderMessage(q: Queryable, providerId: string, eventId: string, at: Date): Promise<boolean> {
  const { rows } = await q.query<{ event_id: string }>(
    `INSERT INTO provider_messages (provider_id, event_id, received_at) VALUES ($1, $2, $3)
     ON CONFLICT (provider_id, event_id) DO NOTHING RETURNING event_id`,
    [providerId, eventId, at],
  );
  return rows.length === 1;
}


/** Forgets message ids older than `before`; kept long (30 days), since a provider may re-sign a retry with a fresh timestamp. */
export async function pruneProviderMessages(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM provider_messages WHERE received_at < $1', [before]);
  return rowCount;
}
