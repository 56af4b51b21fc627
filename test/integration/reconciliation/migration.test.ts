import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

/** 0010_reconciliation: a pool's former list of payment details becomes its requisites. */

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrated: false });
});
afterAll(() => t.drop());

describe('migration 0010', () => {
  it('makes one requisite per former pool entry, in order, with its accounts, unbounded, any currency and rail', async () => {
    await migrate(t.db, loadMigrations().filter((m) => m.version < 10));
    const at = new Date('2026-01-10T08:00:00Z');
    await t.db.query(`INSERT INTO providers (id, name, kind, priority, capabilities, created_at) VALUES ('prv_pool1', 'Old pool', 'pool', 10, '[]', $1)`, [at]);
    const entries = [
      { card: '2200 1500-0000 0001', holder: 'A', bank: 'B' },
      { phone: '+7 900 000-00-02', card: null, holder: 'B' },
      { url: 'https://bank.example/pay/1' },
    ];
    for (let i = 0; i < entries.length; i++) {
      await t.db.query('INSERT INTO pool_requisites (provider_id, idx, payment) VALUES ($1, $2, $3)', ['prv_pool1', i, JSON.stringify(entries[i])]);
    }
    await migrate(t.db);
    const { rows } = await t.db.query<any>('SELECT * FROM requisites ORDER BY seq');
    expect(rows.map((r) => r.payment)).toEqual(entries);
    for (const r of rows) {
      expect(r.id).toMatch(/^rqs_[0-9a-f]{26}$/);
      expect(r).toMatchObject({ provider_id: 'prv_pool1', currency: null, rails: null, min_amount: '0.00', max_amount: '0.00', daily_limit: '0.00', max_open_orders: 10, state: 'active', label: null });
    }
    expect(rows.map((r) => r.created_at.getTime())).toEqual([...rows.map((r) => r.created_at.getTime())].sort((a, b) => a - b));
    const accounts = await t.db.query<{ requisite_id: string; account: string }>('SELECT requisite_id, account FROM requisite_accounts ORDER BY account');
    // As written (without spaces, dashes, case), by digits, and a phone by its national number (migration 0022).
    expect(accounts.rows).toEqual([
      { requisite_id: rows[1].id, account: '+79000000002' },
      { requisite_id: rows[0].id, account: '2200150000000001' },
      { requisite_id: rows[1].id, account: '79000000002' },
      { requisite_id: rows[1].id, account: 'tel:9000000002' },
    ]);
    const old = await t.db.query(`SELECT to_regclass('pool_requisites') AS t`);
    expect(old.rows[0].t).toBeNull();
  });
});
