import type { Queryable } from './db.js';

/** What waits for people, counted for the metrics: each count reads a partial or small index. */
export interface BacklogFigures {
  unmatched_credits: number;
  oldest_unmatched_at: Date | null;
  unread_messages: number;
  /** Devices forwarding for at least one requisite, not heard from (nor, never heard from, created) since the bound. */
  silent_devices: number;
}

export async function backlogFigures(q: Queryable, silentBefore: Date): Promise<BacklogFigures> {
  const { rows } = await q.query<BacklogFigures>(
    `SELECT u.unmatched_credits, u.oldest_unmatched_at,
            (SELECT count(*)::int FROM messages WHERE outcome = 'unread') AS unread_messages,
            (SELECT count(*)::int FROM devices d
              WHERE COALESCE(d.last_seen_at, d.created_at) < $1
                AND EXISTS (SELECT 1 FROM device_requisites r WHERE r.device_id = d.id)) AS silent_devices
       FROM (SELECT count(*)::int AS unmatched_credits, min(created_at) AS oldest_unmatched_at FROM credits WHERE status = 'unmatched') u`,
    [silentBefore],
  );
  return rows[0]!;
}
