/**
 * A burst of other merchants' orders on a database the volume tool made (bench/README.md, "A large
 * merchant's list after a burst"): BURST_ORDERS (100,000) new placed orders, newer than every order
 * there, copied from the newest orders of every merchant but the one named, through the orders'
 * own triggers (history, rollups), in one transaction; then `ANALYZE orders` unless BURST_ANALYZE=0.
 *
 *   DATABASE_URL=postgres://…/paygate_scale_10000000 npx tsx bench/burst.ts <large merchant id>
 */
import pg from 'pg';

const url = process.env.DATABASE_URL;
const large = process.argv[2];
const n = Number(process.env.BURST_ORDERS ?? 100_000);
if (!url || !large) {
  console.error('usage: DATABASE_URL=… npx tsx bench/burst.ts <large merchant id>');
  process.exit(2);
}

const COLUMNS = [
  'desk_id', 'merchant_id', 'amount', 'currency', 'rate', 'settled_amount', 'method', 'rail', 'direction', 'status', 'sub_status', 'placement', 'payment',
  'provider_id', 'sandbox', 'notify_url', 'success_url', 'fail_url', 'back_url', 'operator', 'lifetime_minutes', 'commission_rate', 'commission_amount',
  'credited_amount', 'cancel_reason', 'description', 'paid_amount',
];

const c = new pg.Client({ connectionString: url });
await c.connect();
const t = performance.now();
await c.query('BEGIN');
// The newest 1,000 placed orders of the other merchants are the models, taken in turn.
await c.query(
  `CREATE TEMP TABLE burst_models ON COMMIT DROP AS
   SELECT row_number() OVER () - 1 AS k, o.* FROM (SELECT * FROM orders WHERE merchant_id <> $1 AND placement = 'placed' ORDER BY seq DESC LIMIT 1000) o`,
  [large],
);
const { rows } = await c.query<{ models: number; newest: Date }>(`SELECT count(*)::int AS models, (SELECT max(created_at) FROM orders) AS newest FROM burst_models`);
const models = rows[0]!.models;
await c.query(
  `INSERT INTO orders (id, ${COLUMNS.join(', ')}, created_at, updated_at, expires_at, finished_at)
   SELECT 'ord_burst_' || lpad(g::text, 9, '0'), ${COLUMNS.map((x) => `m.${x}`).join(', ')},
          $2::timestamptz + g * interval '1 millisecond', $2::timestamptz + g * interval '1 millisecond',
          $2::timestamptz + g * interval '1 millisecond' + interval '30 minutes',
          CASE WHEN m.finished_at IS NULL THEN NULL ELSE $2::timestamptz + g * interval '1 millisecond' END
     FROM generate_series(1, $1::int) g JOIN burst_models m ON m.k = g % $3`,
  [n, rows[0]!.newest, models],
);
await c.query('COMMIT');
console.log(`${n.toLocaleString('en')} orders of other merchants after ${rows[0]!.newest.toISOString()}, from ${models} models, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
if (process.env.BURST_ANALYZE !== '0') {
  const a = performance.now();
  await c.query('ANALYZE orders');
  console.log(`ANALYZE orders: ${((performance.now() - a) / 1000).toFixed(1)} s`);
}
await c.end();
