import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newProviderMessageId, signProviderRequestHeaders } from '../../../src/providers/providerMessages.js';
import { FEED_MAX_BYTES } from '../../../src/reconciliation/credits.js';
import { FEED_BODY_BUDGET, FEED_BODY_TIMEOUT_MS } from '../../../src/reconciliation/routes.js';
import { removeStaleSpools } from '../../../src/reconciliation/statements/index.js';
import { eventually } from '../../helpers/eventually.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../../helpers/harness.js';
import { answerWithin, partialRequest, type PartialRequest } from '../../helpers/partialRequest.js';
import { card, credit, pools, type Pool } from './helpers.js';

/**
 * The statement upload and the credit feed against what real clients do to a server, over real
 * sockets (the app listens on 127.0.0.1): files that break at their start, middle or end, from 10
 * to 50 000 entries; files that are no statement at all; clients that go away mid-upload; senders
 * without credentials; senders that stall. After each, the process still serves, nothing
 * half-written stays in the database, and no temporary file stays on disk. The memory bound of
 * stalled feed bodies is measured on a server process of its own (test/e2e/uploadRobustness.test.ts).
 */

let h: Harness;
let base: string;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  pool = pools(h);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
});
afterAll(() => h.close());

// ---- what the server holds

/** This process's spool folders (the server runs in it): none may stay once a request has ended. */
const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`paygate-statement-${process.pid}-`));
const count = async (sql: string, params: unknown[]) => Number((await h.ctx.db.query<{ n: number }>(sql, params)).rows[0].n);

/** What the database holds for a provider: statements (by state), their entries, credits. */
async function heldBy(p: Pool) {
  return {
    statements: await count('SELECT count(*)::int AS n FROM statements WHERE provider_id = $1', [p.id]),
    importing: await count("SELECT count(*)::int AS n FROM statements WHERE provider_id = $1 AND state <> 'recorded'", [p.id]),
    entries: await count('SELECT count(*)::int AS n FROM statement_entries e JOIN statements s ON s.id = e.statement_id WHERE s.provider_id = $1', [p.id]),
    credits: await count('SELECT count(*)::int AS n FROM credits WHERE provider_id = $1', [p.id]),
  };
}
const NOTHING = { statements: 0, importing: 0, entries: 0, credits: 0 };

/** `/healthz` answers, and a small statement is recorded whole: the process serves as before. */
async function stillServes(p: Pool, account: string): Promise<void> {
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  const before = await heldBy(p);
  const tag = `ok-${Math.random().toString(36).slice(2, 10)}`;
  const res = await upload(p, csvStatement(3, account, { tag }).text, 'text/csv');
  expect(res.status, res.body).toBe(200);
  expect(JSON.parse(res.body).result).toMatchObject({ entries: 3, credits: 3, unreadable: 0 });
  expect(await heldBy(p)).toEqual({ statements: before.statements + 1, importing: 0, entries: before.entries + 3, credits: before.credits + 3 });
  expect(spools()).toEqual([]);
}

// ---- requests

const uploadUrl = (p: Pool) => `${base}/admin/v1/providers/${p.id}/statements`;
const adminHeaders = (type: string) => ({ authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type });

async function upload(p: Pool, body: string | Buffer, type: string): Promise<{ status: number; body: string }> {
  const res = await fetch(uploadUrl(p), { method: 'POST', headers: adminHeaders(type), body: typeof body === 'string' ? body : new Uint8Array(body) });
  return { status: res.status, body: await res.text() };
}

let cards = 9000;
/** A fresh pool provider with one card requisite, so each case counts only its own records. */
async function freshPool(): Promise<{ p: Pool; account: string }> {
  const account = card(++cards).replaceAll(' ', '');
  return { p: await pool([{ card: account }]), account };
}

// ---- files

const CSV_HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference,bankReference';
const DAY = '2026-01-15';

type Break = 'start' | 'middle' | 'end';
const badIndex = (n: number, at: Break) => (at === 'start' ? 1 : at === 'middle' ? Math.ceil(n / 2) : n);

interface Generated {
  text: string;
  /** What the answer must count. */
  entries: number;
  credits: number;
  skipped: number;
  unreadable: number;
  /** The 1-based index of the unreadable entry, or null. */
  bad: number | null;
}

/**
 * A CSV statement of `n` rows. Every `creditEvery`-th row is money in, the others money out (a
 * statement of 50 000 bookings is mostly payments out; each credit is matched, which the suite
 * needs only so many of). The row `broken` is unreadable, each position its own way: at the start
 * an amount that is no number, in the middle too few fields, at the end a quote never closed on
 * the file's last line, with no line break after it.
 */
function csvStatement(n: number, account: string, o: { tag: string; creditEvery?: number; broken?: Break }): Generated {
  const bad = o.broken ? badIndex(n, o.broken) : null;
  const every = o.creditEvery ?? 1;
  const rows: string[] = [CSV_HEADER];
  let credits = 0;
  let skipped = 0;
  for (let i = 1; i <= n; i++) {
    const amount = `${(i % 997) + 1}.${String(i % 100).padStart(2, '0')}`;
    if (i === bad) {
      if (o.broken === 'start') rows.push(`${o.tag}-${i},${account},12.50.x,RUB,${DAY}T10:00:00Z,payer,ref,${o.tag}-B${i}`);
      else if (o.broken === 'middle') rows.push(`${o.tag}-${i},${account},${amount}`);
      else rows.push(`${o.tag}-${i},${account},${amount},RUB,${DAY}T10:00:00Z,"payer, never closed,ref,${o.tag}-B${i}`);
      continue;
    }
    const isCredit = i % every === 0 || every === 1;
    if (isCredit) credits++;
    else skipped++;
    rows.push(`${o.tag}-${i},${account},${isCredit ? '' : '-'}${amount},RUB,${DAY}T10:${String(i % 60).padStart(2, '0')}:00Z,payer ${i},ref ${i},${o.tag}-B${i}`);
  }
  const text = rows.join('\n') + (o.broken === 'end' ? '' : '\n');
  return { text, entries: n, credits, skipped, unreadable: bad === null ? 0 : 1, bad };
}

/**
 * A camt.053 of `n` booked credits on one account. The entry `broken` cannot be read, each position
 * its own way: at the start an amount that is no number, in the middle no amount at all, at the
 * end a booking time that is no time.
 */
function camtStatement(n: number, account: string, o: { tag: string; broken?: Break }): Generated {
  const bad = o.broken ? badIndex(n, o.broken) : null;
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${o.tag}</MsgId><CreDtTm>${DAY}T13:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${o.tag}</Id>
      <Acct><Id><Othr><Id>${account}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>`,
  ];
  for (let i = 1; i <= n; i++) {
    let amt = `<Amt Ccy="RUB">${(i % 997) + 1}.00</Amt>`;
    let at = `${DAY}T10:${String(i % 60).padStart(2, '0')}:00Z`;
    if (i === bad && o.broken === 'start') amt = '<Amt Ccy="RUB">twelve</Amt>';
    if (i === bad && o.broken === 'middle') amt = '';
    if (i === bad && o.broken === 'end') at = `${DAY}T25:99:00Z`;
    parts.push(`
      <Ntry><NtryRef>${i}</NtryRef>${amt}<CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>${at}</DtTm></BookgDt><AcctSvcrRef>${o.tag}-${i}</AcctSvcrRef></Ntry>`);
  }
  parts.push(`
    </Stmt>
  </BkToCstmrStmt>
</Document>
`);
  return { text: parts.join(''), entries: n, credits: n - (bad === null ? 0 : 1), skipped: 0, unreadable: bad === null ? 0 : 1, bad };
}

// ---- 1. files that break

describe('files that break at their start, middle and end are recorded but for the entry that breaks', () => {
  const cases: [string, Break, number, 'csv' | 'camt'][] = [];
  for (const n of [10, 1_000, 50_000]) for (const at of ['start', 'middle', 'end'] as const) cases.push([`CSV of ${n.toLocaleString('en')} entries`, at, n, 'csv']);
  for (const n of [10, 1_000]) for (const at of ['start', 'middle', 'end'] as const) cases.push([`camt.053 of ${n.toLocaleString('en')} entries`, at, n, 'camt']);

  it.each(cases)('%s broken at the %s: 200 with the right counts and the problem listed', async (_, at, n, format) => {
    const { p, account } = await freshPool();
    const tag = `${format}-${n}-${at}`;
    const file = format === 'csv' ? csvStatement(n, account, { tag, broken: at, creditEvery: n > 1_000 ? 50 : 1 }) : camtStatement(n, account, { tag, broken: at });
    const res = await upload(p, file.text, format === 'csv' ? 'text/csv' : 'application/xml');
    expect(res.status, res.body.slice(0, 500)).toBe(200);
    const r = JSON.parse(res.body).result;
    expect(r).toMatchObject({ format: format === 'csv' ? 'csv' : 'camt.053', entries: file.entries, credits: file.credits, skipped: file.skipped, unreadable: 1, duplicates: 0 });
    expect(r.problems).toEqual([{ index: file.bad, problem: expect.any(String) }]);
    // Recorded whole: the statement finished, every entry kept with its outcome, every credit made.
    const s = await h.ctx.db.query<{ state: string; counts: { recordedUpTo: number } }>('SELECT state, counts FROM statements WHERE id = $1', [r.statementId]);
    expect(s.rows[0]).toMatchObject({ state: 'recorded', counts: { recordedUpTo: n } });
    expect(await heldBy(p)).toEqual({ statements: 1, importing: 0, entries: file.entries, credits: file.credits });
    expect(await count("SELECT count(*)::int AS n FROM statement_entries WHERE statement_id = $1 AND outcome = 'unreadable' AND idx = $2 AND problem IS NOT NULL", [r.statementId, file.bad])).toBe(1);
    expect(spools()).toEqual([]);
    await stillServes(p, account);
  }, 60_000);

  it('the problems name what is wrong with each broken entry', async () => {
    const { p, account } = await freshPool();
    const problems: string[] = [];
    for (const at of ['start', 'middle', 'end'] as const) {
      for (const file of [csvStatement(10, account, { tag: `why-${at}`, broken: at }), camtStatement(10, account, { tag: `why-${at}`, broken: at })]) {
        const res = await upload(p, file.text, 'text/plain');
        expect(res.status, res.body).toBe(200);
        problems.push(JSON.parse(res.body).result.problems[0].problem);
      }
    }
    const [csvStart, camtStart, csvMiddle, camtMiddle, csvEnd, camtEnd] = problems;
    expect(csvStart).toMatch(/amount/);
    expect(camtStart).toMatch(/Amt/);
    expect(csvMiddle).toMatch(/field|column/);
    expect(camtMiddle).toMatch(/amount|Amt/);
    expect(csvEnd).toMatch(/quote/);
    expect(camtEnd).toMatch(/BookgDt|DtTm|time|date/i);
  });
});

describe('files that are no statement are 400, and nothing of them is recorded', () => {
  const bigCamt = () => camtStatement(50_000, '4000000000000001', { tag: 'trunc-big' }).text;
  const camt1000 = () => camtStatement(1_000, '4000000000000001', { tag: 'trunc' }).text;
  const cases: [string, () => string | Buffer, string, RegExp][] = [
    ['camt.053 of 50,000 entries cut off in the middle', () => bigCamt().slice(0, Math.floor(bigCamt().length / 2)), 'application/xml', /not well-formed|never closed|end|unclosed/i],
    ['camt.053 of 1,000 entries without its last closing tags', () => camt1000().slice(0, camt1000().lastIndexOf('</Stmt>')), 'application/xml', /not well-formed|never closed|end|unclosed/i],
    ['camt.053 with broken markup in the middle', () => { const t = camt1000(); const m = t.indexOf('<Ntry>', t.length / 2); return `${t.slice(0, m)}<Ntry><Amt Ccy="RUB">1.00</Amt</Ntry>${t.slice(m)}`; }, 'application/xml', /not well-formed/],
    ['CSV of 1,000 rows under a garbage header', () => csvStatement(1_000, '4000000000000001', { tag: 'hdr' }).text.replace(CSV_HEADER, 'txn;acct;sum;ccy'), 'text/csv', /format/],
    ['garbage before a camt document', () => `%PDF-1.4\n${camt1000()}`, 'text/plain', /format/],
    ['random bytes', () => Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919 + 13) % 256)), 'application/octet-stream', /format/],
    ['an empty body', () => '', 'text/csv', /empty/],
  ];

  it.each(cases)('%s', async (_, body, type, detail) => {
    const { p, account } = await freshPool();
    const res = await upload(p, body(), type);
    expect(res.status, res.body.slice(0, 500)).toBe(400);
    expect(JSON.parse(res.body).fault).toMatchObject({ code: 'STATEMENT_INVALID', detail: expect.stringMatching(detail) });
    expect(await heldBy(p)).toEqual(NOTHING);
    expect(await count("SELECT count(*)::int AS n FROM audit_entries WHERE object_id = $1 AND action = 'provider.statement' AND outcome = 'STATEMENT_INVALID'", [p.id])).toBe(1);
    expect(spools()).toEqual([]);
    await stillServes(p, account);
  }, 60_000);
});

// ---- 2. clients that go away

describe('clients that disconnect mid-upload', () => {
  const MiB = 1024 * 1024;
  /** A spool file of this process holding at least `bytes`: the server has read that much of the body. */
  const spooled = (bytes: number) => spools().some((d) => {
    try {
      return statSync(join(tmpdir(), d, 'file')).size >= bytes;
    } catch {
      return false;
    }
  });

  /** Waits until the server has spooled `bytes` of the body (0: its folder exists), then drops the connection, and waits for the request to end. */
  async function dropAfter(r: PartialRequest, bytes: number): Promise<void> {
    await eventually(`the server spooled ${bytes} bytes of the upload`, () => (bytes === 0 ? spools().length > 0 : spooled(bytes)));
    r.abort();
    await r.closed;
    // The request has ended when its folder is gone: removed in the upload's `finally`, whatever happened.
    await eventually('the spool folder of the dropped upload is removed', () => spools().length === 0);
  }

  it.each([
    ['after the headers, before a byte of the body', 0, 0],
    ['after 1 MiB of an 8 MiB body', 1 * MiB, 1 * MiB],
    ['after 3 MiB, in the middle of a row and of a UTF-8 character', 3 * MiB + 17, 3 * MiB],
  ])('%s: nothing recorded, no temporary file, the process serves on', async (_, send, wait) => {
    const { p, account } = await freshPool();
    const rows = csvStatement(120_000, account, { tag: 'drop' }).text.replaceAll('payer', 'плательщик');
    expect(Buffer.byteLength(rows)).toBeGreaterThan(8 * MiB);
    const body = Buffer.from(rows).subarray(0, 8 * MiB);
    const r = partialRequest(uploadUrl(p), { ...adminHeaders('text/csv'), 'content-length': String(body.length) });
    if (send > 0) await r.write(body.subarray(0, send));
    await dropAfter(r, wait);
    expect(await heldBy(p)).toEqual(NOTHING);
    await stillServes(p, account);
  });

  it('a chunked upload with no length, dropped between chunks', async () => {
    const { p, account } = await freshPool();
    const text = Buffer.from(csvStatement(20_000, account, { tag: 'chunked' }).text);
    const r = partialRequest(uploadUrl(p), { ...adminHeaders('text/csv'), 'transfer-encoding': 'chunked' });
    for (let i = 0; i < 4; i++) await r.write(text.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
    await dropAfter(r, 256 * 1024);
    expect(await heldBy(p)).toEqual(NOTHING);
    await stillServes(p, account);
  });

  it('a camt document dropped inside an element', async () => {
    const { p, account } = await freshPool();
    const text = Buffer.from(camtStatement(20_000, account, { tag: 'camt-drop' }).text);
    const cut = text.indexOf('<BookgDt>', text.length / 3) + 5;
    const r = partialRequest(uploadUrl(p), { ...adminHeaders('application/xml'), 'content-length': String(text.length) });
    await r.write(text.subarray(0, cut));
    await dropAfter(r, cut);
    expect(await heldBy(p)).toEqual(NOTHING);
    await stillServes(p, account);
  });

  it('ten clients at once, each dropped at another point', async () => {
    const { p, account } = await freshPool();
    const text = Buffer.from(csvStatement(60_000, account, { tag: 'ten' }).text);
    const all = Array.from({ length: 10 }, () => partialRequest(uploadUrl(p), { ...adminHeaders('text/csv'), 'content-length': String(text.length) }));
    await Promise.all(all.map((r, i) => r.write(text.subarray(0, (i + 1) * 200 * 1024))));
    await eventually('all ten uploads are being spooled', () => spools().length === 10);
    for (const r of all) r.abort();
    await Promise.all(all.map((r) => r.closed));
    await eventually('every spool folder is removed', () => spools().length === 0);
    expect(await heldBy(p)).toEqual(NOTHING);
    await stillServes(p, account);
  });

  it('a body past 50 MiB, sent without a length: 413 once the limit is passed, nothing recorded, no temporary file', async () => {
    const { p, account } = await freshPool();
    const r = partialRequest(uploadUrl(p), { ...adminHeaders('text/csv'), 'transfer-encoding': 'chunked' });
    const head = Buffer.from(csvStatement(10, account, { tag: 'big' }).text);
    const rows = Buffer.from(`x,${account},1.00,RUB,${DAY}T10:00:00Z,p,r,b\n`.repeat(Math.ceil(MiB / 48))).subarray(0, MiB);
    void r.write(head).catch(() => undefined);
    for (let sent = 0; sent <= 51 * MiB && r.pending(); sent += MiB) await r.write(rows).catch(() => undefined);
    const a = await answerWithin(r, 10_000, 'the 413 of a body past the limit');
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).fault.code).toBe('PAYLOAD_TOO_LARGE');
    r.abort();
    await eventually('the spool folder of the refused upload is removed', () => spools().length === 0);
    expect(await heldBy(p)).toEqual(NOTHING);
    await stillServes(p, account);
  });

  it('a client that sent the whole file and left before the answer: the statement is recorded whole or not at all', async () => {
    const { p, account } = await freshPool();
    const file = csvStatement(20_000, account, { tag: 'left', creditEvery: 20, broken: 'middle' });
    const body = Buffer.from(file.text);
    const r = partialRequest(uploadUrl(p), { ...adminHeaders('text/csv'), 'content-length': String(body.length) });
    await r.write(body);
    await eventually('the server spooled the whole file', () => spooled(body.length));
    r.abort();
    await r.closed;
    await eventually('the upload ended', () => spools().length === 0, { withinMs: 60_000 });
    const held = await heldBy(p);
    expect(held.importing).toBe(0);
    expect([NOTHING, { statements: 1, importing: 0, entries: file.entries, credits: file.credits }]).toContainEqual(held);
    await stillServes(p, account);
  }, 90_000);
});

// ---- 3. left-overs of processes that died

describe('removeStaleSpools', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'spool-sweep-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** The pid of a process that ran and has been reaped: no process has it now (pids are not reused this soon). */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    return child.pid!;
  }

  it('removes the folders of dead processes and keeps those of live ones and its own', async () => {
    const dead = await deadPid();
    const make = (name: string) => {
      mkdirSync(join(folder, name));
      writeFileSync(join(folder, name, 'file'), 'transactionId,account');
      writeFileSync(join(folder, name, 'entries.ndjson'), '{}\n');
    };
    make(`paygate-statement-${dead}-aaaaaa`);
    make(`paygate-statement-${dead}-bbbbbb`);
    make(`paygate-statement-${process.ppid}-cccccc`);
    make(`paygate-statement-${process.pid}-dddddd`);
    make('paygate-other-1-eeeeee');
    expect(await removeStaleSpools(folder)).toBe(2);
    expect(readdirSync(folder).sort()).toEqual([`paygate-other-1-eeeeee`, `paygate-statement-${process.pid}-dddddd`, `paygate-statement-${process.ppid}-cccccc`].sort());
    // Once is enough: nothing more to remove.
    expect(await removeStaleSpools(folder)).toBe(0);
  });
});

// ---- 4. the feed and the upload authenticate before the body

describe('authenticated from the headers before a byte of the body is read', () => {
  let p: Pool;
  beforeAll(async () => {
    ({ p } = await freshPool());
  });

  const feedUrl = (id: string) => `${base}/providers/v1/${id}/credits`;
  const signedHeaders = (key: string, secret: string, o: { ts?: number; length?: number } = {}) => ({
    ...signProviderRequestHeaders(key, secret, newProviderMessageId(), o.ts ?? Math.floor(h.clock.now() / 1000), 'a body never sent'),
    'content-type': 'application/json',
    'content-length': String(o.length ?? FEED_MAX_BYTES),
  });

  it.each([
    ['an unknown provider', () => feedUrl('prv_00000000000000000000000000'), () => signedHeaders(p.key, p.secret)],
    ['a wrong key', () => feedUrl(p.id), () => signedHeaders('pk_wrong', p.secret)],
    ['a stale timestamp', () => feedUrl(p.id), () => signedHeaders(p.key, p.secret, { ts: Math.floor(h.clock.now() / 1000) - 3_600 })],
    ['no signing headers', () => feedUrl(p.id), () => ({ 'content-type': 'application/json', 'content-length': String(FEED_MAX_BYTES) })],
  ])('feed, %s: 401 with no body sent', async (_, url, headers) => {
    const r = partialRequest(url(), headers());
    const a = await answerWithin(r, 5_000, 'a 401 from the headers alone');
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body).fault.code).toBe('AUTH_FAILED');
    r.abort();
  });

  it('senders refused before their body arrived have their connection closed after the answer: the server reads no more of their bodies', async () => {
    const sockets: Socket[] = [];
    const track = (s: Socket) => sockets.push(s);
    h.app.server.on('connection', track);
    try {
      const body = Buffer.alloc(2 * 1024 * 1024, 0x20);
      const senders = Array.from({ length: 20 }, (_, i) => {
        const r = partialRequest(feedUrl(p.id), signedHeaders(i % 2 ? 'pk_wrong' : p.key, p.secret, { ts: i % 2 ? undefined : 1, length: 4 * 1024 * 1024 }));
        void r.write(body).catch(() => undefined);
        return r;
      });
      for (const r of senders) expect((await answerWithin(r, 5_000, 'a 401 from the headers alone')).status).toBe(401);
      // Closed by the server: the senders never give up by themselves.
      await Promise.all(senders.map((r) => r.closed));
      await eventually('the server closed every connection', () => sockets.length === senders.length && sockets.every((s) => s.destroyed));
      const read = sockets.reduce((n, s) => n + s.bytesRead, 0);
      // What arrived with the headers, read while they were checked (one read of 64 KiB); not the 2 MiB each sent.
      expect(read).toBeLessThan(senders.length * 128 * 1024);
    } finally {
      h.app.server.off('connection', track);
    }
  });

  it('statement upload to an unknown provider: 404 with none of its 50 MiB sent, and no spool folder made', async () => {
    const r = partialRequest(`${base}/admin/v1/providers/prv_00000000000000000000000000/statements`, { ...adminHeaders('text/csv'), 'content-length': String(50 * 1024 * 1024) });
    const a = await answerWithin(r, 5_000, 'a 404 from the headers alone');
    expect(a.status).toBe(404);
    expect(JSON.parse(a.body).fault.code).toBe('PROVIDER_NOT_FOUND');
    r.abort();
    expect(spools()).toEqual([]);
  });

  it('statement upload declared larger than 50 MiB: 413 before a byte of it is read, and no spool folder made', async () => {
    const r = partialRequest(`${base}/admin/v1/providers/${p.id}/statements`, { ...adminHeaders('text/csv'), 'content-length': String(50 * 1024 * 1024 + 1) });
    const a = await answerWithin(r, 5_000, 'a 413 from the headers alone');
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).fault.code).toBe('PAYLOAD_TOO_LARGE');
    r.abort();
    expect(spools()).toEqual([]);
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token-0123456789' }],
  ])('statement upload, %s: 401 with none of its 50 MiB sent, and no spool folder made', async (_, auth) => {
    const r = partialRequest(`${base}/admin/v1/providers/${p.id}/statements`, { ...auth, 'content-type': 'text/csv', 'content-length': String(50 * 1024 * 1024) });
    const a = await answerWithin(r, 5_000, 'a 401 from the headers alone');
    expect(a.status).toBe(401);
    r.abort();
    expect(spools()).toEqual([]);
  });
});

describe('feed bodies being read at once are bounded', () => {
  let p: Pool;
  let account: string;
  beforeAll(async () => {
    ({ p, account } = await freshPool());
  });
  const open: PartialRequest[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const r of open.splice(0)) r.abort();
  });

  /** An authenticated feed request declaring 1 MiB that sends `part` bytes of it and stalls. */
  function stalled(part = 64 * 1024): PartialRequest {
    const r = partialRequest(`${base}/providers/v1/${p.id}/credits`, {
      ...signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), 'never all sent'),
      'content-type': 'application/json',
      'content-length': String(FEED_MAX_BYTES),
    });
    void r.write(Buffer.alloc(part, 0x20)).catch(() => undefined);
    open.push(r);
    return r;
  }
  const feedOne = async () => {
    const raw = JSON.stringify({ credits: [credit(h, account, '1.00')] });
    const res = await fetch(`${base}/providers/v1/${p.id}/credits`, {
      method: 'POST',
      headers: { ...signProviderRequestHeaders(p.key, p.secret, newProviderMessageId(), Math.floor(h.clock.now() / 1000), raw), 'content-type': 'application/json' },
      body: raw,
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

  /**
   * The feed parser's timers (FEED_BODY_TIMEOUT_MS), as they are set: one per body being read, so
   * their count tells the test how many bodies hold a share of the budget, and the test fires one
   * when it says the time is up. Every other timer runs as it would.
   */
  function feedTimers() {
    const timers: { fire(): void }[] = [];
    const realSetTimeout = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number, ...args: unknown[]) => {
      const handle = realSetTimeout(fn, ms, ...args);
      if (ms === FEED_BODY_TIMEOUT_MS) timers.push({ fire: () => (clearTimeout(handle), fn()) });
      return handle;
    }) as typeof setTimeout);
    return { timers, stop: () => vi.restoreAllMocks() };
  }
  const fits = Math.floor(FEED_BODY_BUDGET / FEED_MAX_BYTES);

  it('past the budget a request is 503 at once with Retry-After; a sender that goes away frees its share', async () => {
    // One more than the budget takes: whichever comes last through its check is refused, the others are being read.
    const t = feedTimers();
    const all = Array.from({ length: fits + 1 }, () => stalled());
    await eventually('the budget is taken and one sender refused', () => t.timers.length === fits && all.some((r) => !r.pending()), { withinMs: 10_000 });
    t.stop();
    const refused = all.filter((r) => !r.pending());
    expect(refused).toHaveLength(1);
    const a = await refused[0].answer;
    expect(a.status).toBe(503);
    expect(a.headers['retry-after']).toBe('1');
    expect(JSON.parse(a.body).fault.code).toBe('SERVICE_UNAVAILABLE');
    const held = all.filter((r) => r !== refused[0]);
    expect((await feedOne()).status).toBe(503);
    // One sender leaves: its share is free again, and a whole request is served.
    held[0].abort();
    await held[0].closed;
    await eventually('a request is served once a stalled sender left', async () => (await feedOne()).status === 200);
    expect(held.slice(1).filter((r) => !r.pending())).toEqual([]);
  });

  it(`a body not whole within FEED_BODY_TIMEOUT_MS (${FEED_BODY_TIMEOUT_MS / 1000} s) is given up with 408, and its share freed`, async () => {
    const t = feedTimers();
    const held = Array.from({ length: fits }, () => stalled());
    await eventually('every stalled body is being read', () => t.timers.length === fits);
    t.stop();
    expect((await feedOne()).status).toBe(503);
    // The time is up for one stalled body.
    t.timers[0].fire();
    await eventually('the stalled body is given up', () => held.some((r) => !r.pending()), { withinMs: 5_000 });
    const given = held.filter((r) => !r.pending());
    expect(given).toHaveLength(1);
    const a = await given[0].answer;
    expect(a.status).toBe(408);
    expect(JSON.parse(a.body).fault).toMatchObject({ code: 'REQUEST_TIMEOUT', detail: expect.stringMatching(/30 s/) });
    await eventually('a request is served once the stalled body was given up', async () => (await feedOne()).status === 200);
    // And for the rest: every one answered 408.
    for (const timer of t.timers.slice(1)) timer.fire();
    for (const r of held) expect((await answerWithin(r, 5_000, 'the 408 of a stalled body')).status).toBe(408);
    // The budget is whole again: it takes as many bodies as before, and refuses the one more.
    const t2 = feedTimers();
    const again = Array.from({ length: fits + 1 }, () => stalled());
    await eventually('the budget is taken whole again', () => t2.timers.length === fits && again.some((r) => !r.pending()), { withinMs: 10_000 });
    t2.stop();
    expect(await Promise.all(again.filter((r) => !r.pending()).map(async (r) => (await r.answer).status))).toEqual([503]);
  });
});
