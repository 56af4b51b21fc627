/**
 * The yardsticks, in a process of their own as an independent service would be: a POST that hashes
 * the body, computes one HMAC and does one `INSERT`, and a GET that does `SELECT 1`, each on its own
 * connection pool to the same PostgreSQL (DATABASE_URL), or on an embedded database of its own
 * (PGlite in BARE_DATA_DIR). Prints `{"port":…}` once listening; SIGTERM stops it.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

async function database(): Promise<{ query: Query; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return { query: (sql, params) => pool.query(sql, params), close: () => pool.end() };
  }
  const lite = await PGlite.create({ dataDir: process.env.BARE_DATA_DIR });
  return { query: (sql, params) => lite.query(sql, params), close: () => lite.close() };
}

async function main() {
  const db = await database();
  await db.query('CREATE TABLE IF NOT EXISTS bench_bare (id bigserial PRIMARY KEY, body_sha256 text NOT NULL, sign text NOT NULL, at timestamptz NOT NULL DEFAULT now())');
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/bare', async (req) => {
    const sha = createHash('sha256').update(req.body as Buffer).digest('hex');
    const sign = createHmac('sha256', 'secret').update(`${req.headers['x-gate-ts']}.${req.headers['x-gate-nonce']}.POST./bare.${sha}`).digest('hex');
    await db.query('INSERT INTO bench_bare (body_sha256, sign) VALUES ($1, $2)', [sha, sign]);
    return { status: 'ok' };
  });
  app.get('/select1', async () => {
    await db.query('SELECT 1');
    return { status: 'ok' };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(JSON.stringify({ port: (app.server.address() as AddressInfo).port }) + '\n');
  process.on('SIGTERM', () => {
    void app.close().then(() => db.close()).then(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
