import type { Queryable } from './db.js';

export async function getSetting(q: Queryable, key: string): Promise<string | null> {
  const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return rows[0]?.value ?? null;
}

/** Stores the value only if the key is new; returns the value that is stored afterwards. */
export async function putSettingIfAbsent(q: Queryable, key: string, value: string): Promise<string> {
  await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
  return (await getSetting(q, key))!;
}
