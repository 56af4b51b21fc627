import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../../src/services/orderActions.js';
import { admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { FormBrowser } from '../../helpers/formBrowser.js';
import { card, credit, getOrder, order, placed, pools, sendCredit, type Pool } from './helpers.js';

/*
 * The reconciliation pages of the back office over HTTP, as a browser uses them: the credits queue
 * with its count in the navigation, its candidates and both actions (admin) or none (support), the
 * pool's requisites with their limits and state changes, the statement upload with its summary or
 * its refusal, and the day report on a page and as CSV with the API's figures.
 */

const PASSWORD = 'operator passphrase 2026';
const minutes = (n: number) => n * 60_000;

let h: Harness;
let desk: DeskCreds;
let p: Pool;
let a: FormBrowser;
let s: FormBrowser;
let adminId: string;

async function operator(role: 'admin' | 'support') {
  const email = `${role}-recon@paygate.example`;
  const res = await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role });
  expect(res.statusCode, res.body).toBe(201);
  const b = new FormBrowser(h.app);
  await b.get('/office/sign-in');
  expect((await b.post('/office/sign-in', [['email', email], ['password', PASSWORD]])).statusCode).toBe(303);
  return { b, id: json(res).result.id as string };
}

const creditOf = async (id: string) => json(await admin(h.app, 'GET', `/credits/${id}`)).result;
const auditOf = async (objectId: string) => json(await admin(h.app, 'GET', `/audit?objectId=${objectId}`)).result.items;
const count = async (sql: string) => Number((await h.ctx.db.query<{ n: number }>(sql)).rows[0]!.n);
/** The badge beside a navigation link: its number, or null without one. */
function navCount(body: string, label: string): number | null {
  const m = new RegExp(`<a href="[^"]*"[^>]*>${label}(?: <span class="count[^"]*">(\\d+)<span class="visually-hidden"> waiting</span></span>)?</a>`).exec(body);
  expect(m, `navigation link ${label}`).not.toBeNull();
  return m![1] === undefined ? null : Number(m![1]);
}

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false', REQUISITE_QUARANTINE_MINUTES: '0' }, unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live Shop', approve: true } });
  p = await pools(h)([{ card: card(11), holder: 'Anna K.', bank: 'Bank' }, { phone: '+7 900 555-66-77', holder: 'Boris' }], { name: 'Main pool' });
  ({ b: a, id: adminId } = await operator('admin'));
  ({ b: s } = await operator('support'));
});
afterAll(() => h.close());

describe('the credits queue', () => {
  let unknown: any;
  let differs: any;
  let near: any;
  let ambiguous: any;
  let late: any[];

  beforeAll(async () => {
    // Money on an account no requisite has; money that is near an open order; money two expired orders could be.
    unknown = await sendCredit(h, p, credit(h, '4000 0000 0000 0002', '120.00', { payer: 'Stranger' }));
    near = await placed(h, desk, 1000);
    differs = await sendCredit(h, p, credit(h, near.payment.card ?? near.payment.phone, '999.00'));
    expect(differs).toMatchObject({ status: 'unmatched', reason: 'amount differs', candidates: [near.id] });
    const first = await placed(h, desk, 700, { lifetimeMinutes: 5 });
    h.clock.advance(minutes(6));
    await expireDueOrders(h.ctx, 100);
    const second = await placed(h, desk, 700, { lifetimeMinutes: 5 });
    expect(second.payment).toEqual(first.payment);
    h.clock.advance(minutes(6));
    await expireDueOrders(h.ctx, 100);
    late = [first, second];
    ambiguous = await sendCredit(h, p, credit(h, first.payment.card ?? first.payment.phone, '700.00'));
    expect(ambiguous).toMatchObject({ status: 'unmatched', reason: 'ambiguous' });
    expect([...ambiguous.candidates].sort()).toEqual([first.id, second.id].sort());
  });

  it('counts unmatched credits in the navigation of every page, linked from the home page', async () => {
    const home = await a.get('/office');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('href="/office/credits"');
    expect(navCount(home.body, 'Unmatched credits')).toBe(3);
    expect(navCount(home.body, 'Reconciliation')).toBeNull();
    expect(navCount((await s.get('/office/merchants')).body, 'Unmatched credits')).toBe(3);
  });

  it('lists the unmatched credits oldest first, each with its reason, candidates linked to their orders, and both forms for an admin', async () => {
    const res = await a.get('/office/credits');
    expect(res.statusCode).toBe(200);
    const order = [unknown.id, differs.id, ambiguous.id].map((id) => res.body.indexOf(`id="credit-${id}"`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(res.body).toContain('aria-current="page">Unmatched credits');
    expect(res.body).toContain('Unknown account');
    expect(res.body).toContain(`href="/office/orders/${near.id}"`);
    for (const o of late) expect(res.body).toContain(`href="/office/orders/${o.id}"`);
    // Exact amounts a hover away; the near order's difference (credit less order) shown.
    expect(res.body).toContain('title="999.00 RUB"');
    expect(res.body).toContain('title="-1.00 RUB"');
    expect(res.body).toContain(`action="/office/credits/${ambiguous.id}/match"`);
    expect(res.body).toContain(`action="/office/credits/${unknown.id}/ignore"`);
  });

  it('a support operator sees the queue read-only, and posting either action answers 403 and changes nothing', async () => {
    const res = await s.get('/office/credits');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`id="credit-${ambiguous.id}"`);
    expect(res.body).not.toContain('/match"');
    expect(res.body).not.toContain('/ignore"');
    expect(res.body).toContain('Matching and ignoring credits is for administrators.');
    expect((await s.post(`/office/credits/${ambiguous.id}/match`, [['orderId', late[0].id]])).statusCode).toBe(403);
    expect((await s.post(`/office/credits/${unknown.id}/ignore`, [['reason', 'test']])).statusCode).toBe(403);
    expect((await creditOf(ambiguous.id)).status).toBe('unmatched');
    expect((await creditOf(unknown.id)).status).toBe('unmatched');
  });

  it('filters like the API: status, provider, requisite; pages oldest first', async () => {
    const byRequisite = await a.get(`/office/credits?requisiteId=${differs.requisiteId}`);
    expect(byRequisite.body).toContain(`id="credit-${differs.id}"`);
    expect(byRequisite.body).not.toContain(`id="credit-${unknown.id}"`);
    const other = await a.get('/office/credits?providerId=prv_none');
    expect(other.body).toContain('No credits match these filters.');
    const matched = await a.get('/office/credits?status=matched');
    expect(matched.body).not.toContain(`id="credit-${differs.id}"`);
    const all = await a.get('/office/credits?status=any');
    for (const c of [unknown, differs, ambiguous]) expect(all.body).toContain(`id="credit-${c.id}"`);
    // `any` is the page's word for every status; the API has no such value (docs/back-office.md says so).
    expect((await admin(h.app, 'GET', '/credits?status=any')).statusCode).toBe(400);
    expect((await admin(h.app, 'GET', '/credits')).statusCode).toBe(200);
    // A page continues after the last credit of the one before.
    const after = await a.get(`/office/credits?after=${differs.id}`);
    expect(after.body).toContain(`id="credit-${ambiguous.id}"`);
    expect(after.body).not.toContain(`id="credit-${unknown.id}"`);
    expect((await a.get(`/office/credits/${unknown.id}`)).body).toContain(`<code>${unknown.id}</code>`);
    expect((await a.get('/office/credits/crd_nothing')).statusCode).toBe(404);
  });

  it('matches a credit with one of its candidates: the order completes, the credit leaves the queue, audited with the operator', async () => {
    await a.get('/office/credits');
    const res = await a.post(`/office/credits/${ambiguous.id}/match`, [['orderId', late[1].id], ['back', '/office/credits?status=unmatched']]);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/office/credits?status=unmatched&done=matched');
    expect(await creditOf(ambiguous.id)).toMatchObject({ status: 'matched', orderId: late[1].id, matchedBy: 'operator' });
    expect((await getOrder(h, late[1].id)).status).toBe('Completed');
    expect((await auditOf(ambiguous.id))[0]).toMatchObject({ actor: adminId, action: 'credit.match', outcome: 'ok' });
    const page = await a.get(res.headers.location as string);
    expect(page.body).toContain('Credit matched: the order is completed and the merchant credited.');
    expect(page.body).not.toContain(`id="credit-${ambiguous.id}"`);
    expect(navCount(page.body, 'Unmatched credits')).toBe(2);
  });

  it('an amount that differs shows both amounts and the difference, and matches only with force', async () => {
    await a.get('/office/credits');
    const refused = await a.post(`/office/credits/${differs.id}/match`, [['orderId', near.id]]);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('The amounts differ');
    expect(refused.body).toMatch(/id="difference"><data class="money" value="-1.00"/);
    expect(refused.body).toContain('name="force" value="true"');
    expect((await creditOf(differs.id)).status).toBe('unmatched');
    expect((await getOrder(h, near.id)).status).toBe('Created');
    const forced = await a.post(`/office/credits/${differs.id}/match`, [['orderId', near.id], ['force', 'true'], ['back', '/office/credits']]);
    expect(forced.statusCode, forced.body).toBe(303);
    expect(await creditOf(differs.id)).toMatchObject({ status: 'matched', orderId: near.id, difference: '-1.00' });
    expect((await getOrder(h, near.id)).status).toBe('Completed');
    const entries = await auditOf(differs.id);
    expect(entries.map((e: any) => [e.action, e.outcome])).toEqual([['credit.match', 'ok'], ['credit.forceMatch', 'ok'], ['credit.match', 'AMOUNT_MISMATCH']]);
  });

  it('refuses a match the API refuses, with the reason on a page', async () => {
    await a.get('/office/credits');
    const res = await a.post(`/office/credits/${unknown.id}/match`, [['orderId', near.id]]);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain(`order ${near.id} is already completed`);
    expect((await a.post(`/office/credits/${unknown.id}/match`, [['orderId', '']])).statusCode).toBe(400);
    expect((await a.post(`/office/credits/${unknown.id}/match`, [['orderId', 'ord_x'], ['back', 'https://evil.example/']])).statusCode).toBe(400);
    expect((await creditOf(unknown.id)).status).toBe('unmatched');
  });

  it('ignores a credit with a reason of 1 to 500 characters', async () => {
    await a.get('/office/credits');
    expect((await a.post(`/office/credits/${unknown.id}/ignore`, [['reason', '   ']])).statusCode).toBe(400);
    expect((await a.post(`/office/credits/${unknown.id}/ignore`, [['reason', 'x'.repeat(501)]])).statusCode).toBe(400);
    expect((await creditOf(unknown.id)).status).toBe('unmatched');
    const res = await a.post(`/office/credits/${unknown.id}/ignore`, [['reason', 'Refund sent back to the payer']]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/office/credits?done=ignored');
    expect(await creditOf(unknown.id)).toMatchObject({ status: 'ignored', reason: 'Refund sent back to the payer' });
    expect((await auditOf(unknown.id))[0]).toMatchObject({ actor: adminId, action: 'credit.ignore', outcome: 'ok' });
    const page = await a.get('/office/credits');
    expect(page.body).toContain('No credit is waiting');
    expect(navCount(page.body, 'Unmatched credits')).toBeNull();
  });
});

describe('requisites', () => {
  it('the reconciliation page lists the pool providers; a pool page shows each requisite with its limits, state, open orders and today\'s money', async () => {
    const list = await a.get('/office/reconciliation');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="/office/pools/${p.id}"`);
    expect(list.body).toContain('Main pool');
    const open = await placed(h, desk, 333);
    const page = await a.get(`/office/pools/${p.id}`);
    expect(page.statusCode).toBe(200);
    for (const r of p.requisites) expect(page.body).toContain(`id="requisite-${r.id}"`);
    const used = p.requisites.find((r) => (r.payment.card ?? null) === open.payment.card && (r.payment.phone ?? null) === open.payment.phone)!;
    const view = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((r: any) => r.id === used.id);
    expect(view.openOrders).toBe(1);
    expect(page.body).toContain(`${view.openOrders} <span class="muted">of ${view.maxOpenOrders}</span>`);
    expect(page.body).toContain(`value="${view.receivedToday}"`);
    expect(page.body).toContain('2200 1500 0000 0011');
    expect(page.body).toContain('action="/office/pools/' + p.id + '/requisites"');
    expect((await a.get('/office/pools/prv_none')).statusCode).toBe(404);
  });

  it('a pool page lists the orders the pool declined, with the reason and what became of each, and how many in the last 24 hours', async () => {
    const before = await s.get(`/office/pools/${p.id}`);
    expect(before.body).toContain('The pool has declined no order.');
    // One amount on every requisite until none can take another: the next order of it is declined.
    let refused: any = null;
    for (let i = 0; i < 10 && !refused; i++) {
      const o = await order(h, desk, 4321);
      if (o.statusCode === 503) refused = json(o).fault;
      else expect(o.statusCode, o.body).toBe(201);
    }
    expect(refused?.code).toBe('NO_AVAILABLE_METHOD');
    const [declined] = (await h.ctx.db.query<{ id: string }>(`SELECT id FROM orders WHERE amount = 4321 AND placement = 'failed'`)).rows;
    expect(declined).toBeDefined();
    const page = await s.get(`/office/pools/${p.id}`);
    expect(page.statusCode).toBe(200);
    const section = page.body.slice(page.body.indexOf('id="declines-h"'), page.body.indexOf('id="statement-h"'));
    expect(section).toContain('<strong>1</strong> order declined in the last 24 hours');
    expect(section).toContain(declined.id);
    expect(section).not.toContain(`href="/office/orders/${declined.id}"`);
    expect(section).toMatch(/no requisite can take 4321\.00 RUB: \d+ same amount open/);
    expect(section).toContain('refused');
  });

  it('an admin adds a requisite through the form; a refused one shows the form again with what was typed', async () => {
    await a.get(`/office/pools/${p.id}`);
    const bad = await a.post(`/office/pools/${p.id}/requisites`, [['holder', 'Only A Name'], ['label', 'Spare card'], ['maxOpenOrders', '5']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('needs at least one payable detail');
    expect(bad.body).toContain('value="Only A Name"');
    const wrong = await a.post(`/office/pools/${p.id}/requisites`, [['card', '2200 1500 0000 0099'], ['minAmount', '12.345']]);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('minAmount: must be a decimal string');
    const res = await a.post(`/office/pools/${p.id}/requisites`, [
      ['card', '2200 1500 0000 0099'],
      ['holder', 'Vera S.'],
      ['currency', 'RUB'],
      ['rails', 'C2c'],
      ['minAmount', '100'],
      ['maxAmount', '5000'],
      ['dailyLimit', '20000'],
      ['maxOpenOrders', '3'],
      ['label', 'Spare card'],
    ]);
    expect(res.statusCode, res.body).toBe(303);
    const made = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((r: any) => r.label === 'Spare card');
    expect(made).toMatchObject({ currency: 'RUB', rails: ['C2c'], minAmount: '100.00', maxAmount: '5000.00', dailyLimit: '20000.00', maxOpenOrders: 3, state: 'active' });
    expect(made.payment).toMatchObject({ card: '2200 1500 0000 0099', holder: 'Vera S.' });
    expect(res.headers.location).toBe(`/office/pools/${p.id}?done=created#requisite-${made.id}`);
    expect((await auditOf(made.id))[0]).toMatchObject({ actor: adminId, action: 'requisite.create', outcome: 'ok' });
  });

  it('edits limits and label, pauses, resumes and retires, each as PATCH /admin/v1/requisites does', async () => {
    const r = p.requisites[1];
    const page = await a.get(`/office/requisites/${r.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Change limits and label');
    const bad = await a.post(`/office/requisites/${r.id}`, [['minAmount', '500'], ['maxAmount', '100'], ['maxOpenOrders', '4']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('minAmount: must not exceed maxAmount');
    expect(bad.body).toContain('value="500"');
    const saved = await a.post(`/office/requisites/${r.id}`, [['minAmount', '50'], ['maxAmount', ''], ['dailyLimit', '100000'], ['maxOpenOrders', '4'], ['label', 'Boris phone']]);
    expect(saved.statusCode).toBe(303);
    const after = async () => json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((x: any) => x.id === r.id);
    expect(await after()).toMatchObject({ minAmount: '50.00', maxAmount: '0.00', dailyLimit: '100000.00', maxOpenOrders: 4, label: 'Boris phone' });
    for (const [verb, state, back] of [['pause', 'paused', 'pool'], ['resume', 'active', 'requisite'], ['retire', 'retired', 'pool'], ['resume', 'active', 'pool']] as const) {
      const res = await a.post(`/office/requisites/${r.id}/${verb}`, [['back', back]]);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toMatch(back === 'pool' ? new RegExp(`^/office/pools/${p.id}\\?done=`) : new RegExp(`^/office/requisites/${r.id}\\?done=`));
      expect((await after()).state).toBe(state);
    }
    const outcomes = (await auditOf(r.id)).filter((e: any) => e.action === 'requisite.update' && e.actor === adminId).map((e: any) => e.outcome);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'VALIDATION_ERROR']);
  });

  it('support sees requisites without forms, and posting any requisite action answers 403', async () => {
    const r = p.requisites[0];
    const page = await s.get(`/office/pools/${p.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`id="requisite-${r.id}"`);
    expect(page.body).not.toContain('Add requisite');
    expect(page.body).not.toContain('/pause"');
    expect(page.body).toContain('Uploading statements is for administrators.');
    expect((await s.get(`/office/requisites/${r.id}`)).body).not.toContain('Change limits and label');
    expect((await s.post(`/office/requisites/${r.id}/pause`, [['back', 'pool']])).statusCode).toBe(403);
    expect((await s.post(`/office/requisites/${r.id}`, [['label', 'x']])).statusCode).toBe(403);
    expect((await s.post(`/office/pools/${p.id}/requisites`, [['card', '2200 1500 0000 0777']])).statusCode).toBe(403);
    expect(json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((x: any) => x.id === r.id).state).toBe('active');
  });
});

describe('statement upload', () => {
  const CSV_HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference';

  it('reads a CSV statement through the API\'s service and shows its summary on the pool page', async () => {
    const o = await placed(h, desk, 4321);
    const account = o.payment.card ?? o.payment.phone;
    const at = new Date(h.clock.now()).toISOString();
    const csv = [CSV_HEADER, `st-1,${account},4321.00,RUB,${at},IVAN I.,`, `st-2,${account},11.00,RUB,${at},,`].join('\r\n');
    await a.get(`/office/pools/${p.id}`);
    const res = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'day.csv', type: 'text/csv', content: Buffer.from(csv) } }]);
    expect(res.statusCode, res.body).toBe(200);
    const summary = /id="statement-summary"[\s\S]*?<\/dl>/.exec(res.body)![0];
    const field = (k: string) => Number(new RegExp(`data-field="${k}">(\\d+)<`).exec(summary)![1]);
    expect(['entries', 'credits', 'duplicates', 'matched', 'unmatched', 'skipped'].map(field)).toEqual([2, 2, 0, 1, 1, 0]);
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    const audit = (await auditOf(p.id)).find((e: any) => e.action === 'provider.statement');
    expect(audit).toMatchObject({ actor: adminId, outcome: 'ok' });
    // The same file again: recorded before, nothing new.
    const again = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'day.csv', type: 'application/vnd.ms-excel', content: Buffer.from(csv) } }]);
    expect(again.statusCode).toBe(200);
    expect(again.body).toMatch(/data-field="same-as">stm_/);
  });

  it('reads camt.053 by its content, and shows STATEMENT_INVALID with its reason when the file is no statement, recording nothing', async () => {
    const before = await count('SELECT count(*)::int AS n FROM credits');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M-9</MsgId><CreDtTm>2026-01-15T13:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>S-9</Id><Acct><Id><Othr><Id>${card(11).replace(/ /g, '')}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>
<Ntry><Amt Ccy="RUB">55.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>2026-01-15T12:00:30Z</DtTm></BookgDt><AcctSvcrRef>CAMT-9</AcctSvcrRef></Ntry>
<Ntry><Amt Ccy="RUB">10.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>2026-01-15T12:00:30Z</DtTm></BookgDt><AcctSvcrRef>CAMT-10</AcctSvcrRef></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
    await a.get(`/office/pools/${p.id}`);
    const ok = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'camt.xml', type: 'application/octet-stream', content: Buffer.from(`\ufeff${xml}`) } }]);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.body).toMatch(/data-field="entries">2</);
    expect(ok.body).toMatch(/data-field="skipped">1</);
    expect(ok.body).toMatch(/data-field="unmatched">1</);
    expect(await count('SELECT count(*)::int AS n FROM credits')).toBe(before + 1);

    const bad = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'notes.csv', type: 'text/csv', content: Buffer.from('date,amount\n2026-01-15,10\n') } }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="statement-error"');
    expect(bad.body).toContain('STATEMENT_INVALID');
    expect(bad.body).toContain('notes.csv');
    const broken = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'broken.xml', type: 'text/xml', content: Buffer.from('<Document><BkToCstmrStmt>') } }]);
    expect(broken.statusCode).toBe(400);
    expect(broken.body).toContain('STATEMENT_INVALID');
    expect(await count('SELECT count(*)::int AS n FROM credits')).toBe(before + 1);
    const refused = (await auditOf(p.id)).filter((e: any) => e.action === 'provider.statement' && e.outcome === 'STATEMENT_INVALID');
    expect(refused.length).toBeGreaterThanOrEqual(2);

    const none = await a.upload(`/office/pools/${p.id}/statements`, []);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Choose a statement file');
  });

  it('refuses a support operator, a stranger and a missing CSRF token before it reads the file', async () => {
    const file = [{ name: 'statement', file: { name: 'x.csv', type: 'text/csv', content: Buffer.from(`${CSV_HEADER}\r\n`) } }];
    await s.get(`/office/pools/${p.id}`);
    expect((await s.upload(`/office/pools/${p.id}/statements`, file)).statusCode).toBe(403);
    expect((await new FormBrowser(h.app).upload(`/office/pools/${p.id}/statements`, file, { csrf: null })).statusCode).toBe(403);
    await a.get(`/office/pools/${p.id}`);
    expect((await a.upload(`/office/pools/${p.id}/statements`, file, { csrf: 'forged' })).statusCode).toBe(403);
    // A declared body past the upload's bound is not read at all.
    const huge = await h.app.inject({
      method: 'POST',
      url: `/office/pools/${p.id}/statements`,
      headers: { cookie: [...a.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(201 * 1024 * 1024) },
      payload: '--x--\r\n',
    });
    expect([400, 413]).toContain(huge.statusCode);
  });
});

describe('the day report', () => {
  it('shows the rows of GET /admin/v1/reconciliation for the day and downloads them as CSV with the same figures', async () => {
    const api = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=2026-01-15`)).result;
    const page = await a.get(`/office/pools/${p.id}/report?date=2026-01-15`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/office/pools/' + p.id + '/report.csv?date=2026-01-15"');
    expect(page.body).toContain(`value="${api.totals.creditsAmount}"`);
    for (const row of api.requisites) expect(page.body).toContain(`href="/office/requisites/${row.requisiteId}"`);
    const csv = await a.get(`/office/pools/${p.id}/report.csv?date=2026-01-15`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.trimEnd().split('\r\n').map((l) => l.split(','));
    const head = lines[0]!;
    expect(head).toEqual(['date', 'providerId', 'requisiteId', 'label', 'ordersIssued', 'ordersCompleted', 'completedAmount', 'credits', 'creditsAmount', 'matched', 'unmatched', 'ignored', 'completedWithoutCredit']);
    const figures = ['ordersIssued', 'ordersCompleted', 'completedAmount', 'credits', 'creditsAmount', 'matched', 'unmatched', 'ignored', 'completedWithoutCredit'];
    const rowOf = (cells: string[]) => Object.fromEntries(head.map((k, i) => [k, cells[i]]));
    const rows = lines.slice(1).map(rowOf);
    expect(rows).toHaveLength(api.requisites.length + 1);
    api.requisites.forEach((r: any, i: number) => {
      expect(rows[i]!.requisiteId).toBe(r.requisiteId);
      for (const f of figures) expect(rows[i]![f], f).toBe(String(r[f]));
    });
    const total = rows[rows.length - 1]!;
    expect(total).toMatchObject({ requisiteId: '', label: 'Total', date: '2026-01-15', providerId: p.id });
    for (const f of figures) expect(total[f], f).toBe(String(api.totals[f]));
    expect(Number(api.totals.credits)).toBeGreaterThan(0);
    // The ignored credit of the queue counts in its column, on the page as in the CSV.
    expect(api.totals.ignored).toBeGreaterThan(0);
    expect(page.body).toMatch(/<th scope="col" class="num">Ignored<\/th>/);
    expect(page.body).toContain(`<td data-label="Ignored" class="num"><div class="rc-v">${api.totals.ignored}</div></td>`);
    // The day's statements, each linked, with its checks.
    expect(api.statements.length).toBeGreaterThan(0);
    const day = page.body.slice(page.body.indexOf('id="day-statements-h"'));
    for (const st of api.statements) expect(day).toContain(`href="/office/statements/${st.id}"`);
    expect(day).toContain('<span class="badge">not stated</span>');
    expect((await a.get(`/office/pools/${p.id}/report?date=2026-01-14`)).body).toContain('id="day-statements-empty"');
    expect((await a.get(`/office/pools/${p.id}/report?date=2026-02-30`)).statusCode).toBe(400);
    // Today by default.
    expect((await s.get(`/office/pools/${p.id}/report`)).body).toContain('2026-01-15');
  });
});

describe('the queue, further', () => {
  let second: Pool;
  const stranger = '4000 0000 0000 0101';

  beforeAll(async () => {
    // A pool of its own for the whole-queue action, paused so that no order is given its requisite.
    second = await pools(h)([{ card: card(91), holder: 'Second' }], { name: 'Second pool' });
    expect((await admin(h.app, 'POST', `/providers/${second.id}/pause`)).statusCode).toBe(200);
  });

  it('an already paid credit offers no match with the completed order, leads with ignoring it, and keeps matching another order one step away', async () => {
    const o = await placed(h, desk, 812);
    const account = o.payment.card ?? o.payment.phone;
    expect(await sendCredit(h, p, credit(h, account, '812.00'))).toMatchObject({ status: 'matched', orderId: o.id });
    const twice = await sendCredit(h, p, credit(h, account, '812.00'));
    expect(twice).toMatchObject({ status: 'unmatched', reason: 'already paid', candidates: [o.id] });
    const page = await a.get(`/office/credits/${twice.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/office/orders/${o.id}"`);
    expect(page.body).not.toContain(`Match<span class="visually-hidden"> with ${o.id}</span>`);
    expect(page.body).toContain('paid already');
    expect(page.body).toContain('there is no order to match it with');
    const ignore = page.body.indexOf(`action="/office/credits/${twice.id}/ignore"`);
    const other = page.body.indexOf('<summary>It pays another order</summary>');
    expect(ignore).toBeGreaterThan(0);
    expect(other).toBeGreaterThan(ignore);
    expect(page.body.indexOf(`action="/office/credits/${twice.id}/match"`)).toBeGreaterThan(other);
    // The same credit for support: the facts without a form.
    const support = await s.get(`/office/credits/${twice.id}`);
    expect(support.body).toContain('Already paid: the only such order was completed by another credit.');
    expect(support.body).not.toContain(`/office/credits/${twice.id}/ignore"`);
  });

  it('money on another requisite than the order\'s is refused with both requisites shown, and matched with force', async () => {
    const o = await placed(h, desk, 633);
    const requisites: any[] = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result;
    const given = requisites.find((r) => (r.payment.card ?? null) === (o.payment.card ?? null) && (r.payment.phone ?? null) === (o.payment.phone ?? null))!;
    const other = requisites.find((r) => r.id !== given.id && r.state === 'active')!;
    const c = await sendCredit(h, p, credit(h, other.payment.card ?? other.payment.phone, '633.00'));
    expect(c).toMatchObject({ status: 'unmatched', requisiteId: other.id });
    await a.get(`/office/credits/${c.id}`);
    const refused = await a.post(`/office/credits/${c.id}/match`, [['orderId', o.id], ['back', `/office/credits/${c.id}`]]);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('The requisites differ');
    expect(refused.body).toContain('id="requisite-mismatch"');
    expect(refused.body).toContain(`href="/office/requisites/${other.id}"`);
    expect(refused.body).toContain(`href="/office/requisites/${given.id}"`);
    expect(refused.body).toContain('name="force" value="true"');
    expect(refused.body).toContain('another requisite than the one shown to its payer');
    expect((await creditOf(c.id)).status).toBe('unmatched');
    const forced = await a.post(`/office/credits/${c.id}/match`, [['orderId', o.id], ['force', 'true'], ['back', `/office/credits/${c.id}`]]);
    expect(forced.statusCode, forced.body).toBe(303);
    expect(forced.headers.location).toBe(`/office/credits/${c.id}?done=matched`);
    expect(await creditOf(c.id)).toMatchObject({ status: 'matched', orderId: o.id });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    expect((await auditOf(c.id)).map((e: any) => [e.action, e.outcome])).toEqual([['credit.match', 'ok'], ['credit.match', 'REQUISITE_MISMATCH']]);
  });

  it('a sandbox order is refused clearly, with no forced match, and another order may be named', async () => {
    const sandboxDesk = await provisionDesk(h.app, { merchant: { name: 'Sandbox Shop' } });
    const so = await placed(h, sandboxDesk, 640);
    expect(so.sandbox ?? json(await admin(h.app, 'GET', `/orders/${so.id}`)).result.sandbox).toBe(true);
    const c = await sendCredit(h, second, credit(h, stranger, '640.00'));
    await a.get('/office/credits');
    const refused = await a.post(`/office/credits/${c.id}/match`, [['orderId', so.id]]);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('A sandbox order');
    expect(refused.body).toContain('id="sandbox-order"');
    expect(refused.body).toContain('not even by force');
    expect(refused.body).not.toContain('name="force"');
    expect(refused.body).toContain(`action="/office/credits/${c.id}/match"`);
    expect(await creditOf(c.id)).toMatchObject({ status: 'unmatched' });
    expect((await auditOf(c.id))[0]).toMatchObject({ action: 'credit.match', outcome: 'SANDBOX_ORDER' });
    // Forcing it anyway changes nothing: the service refuses it whatever the form says.
    expect((await a.post(`/office/credits/${c.id}/match`, [['orderId', so.id], ['force', 'true']])).statusCode).toBe(409);
    expect((await getOrder(h, so.id)).status).toBe('Created');
    await a.post(`/office/credits/${c.id}/ignore`, [['reason', 'test money']]);
  });

  it('ignores a filtered queue as a whole with one reason: exactly the credits the page counted, and says how many', async () => {
    const made = [];
    for (const amount of ['10.00', '11.00', '12.00']) made.push(await sendCredit(h, second, credit(h, stranger, amount)));
    const filtered = `/office/credits?providerId=${second.id}`;
    const support = await s.get(filtered);
    expect(support.body).not.toContain('id="ignore-queue"');
    expect((await s.post('/office/credits/ignore', [['ids', made.map((c) => c.id).join(' ')], ['reason', 'x']])).statusCode).toBe(403);

    const page = await a.get(filtered);
    expect(page.body).toContain('id="ignore-queue"');
    expect(page.body).toContain(`name="ids" value="${made.map((c) => c.id).join(' ')}"`);
    expect(page.body).toContain('Ignore 3 credits');
    // After the page was shown: one more credit arrives, and one of the three is ignored on its own.
    const late = await sendCredit(h, second, credit(h, stranger, '13.00'));
    await a.post(`/office/credits/${made[1].id}/ignore`, [['reason', 'on its own']]);
    await a.get(filtered);
    const form: [string, string][] = [['ids', made.map((c) => c.id).join(' ')], ['back', `/office/credits?providerId=${second.id}`]];
    expect((await a.post('/office/credits/ignore', [...form, ['reason', 'Test transfers of the bank']], { csrf: 'forged' })).statusCode).toBe(403);
    expect((await a.post('/office/credits/ignore', [...form, ['reason', '  ']])).statusCode).toBe(400);
    expect((await a.post('/office/credits/ignore', [['ids', 'crd_a; DROP'], ['reason', 'x']])).statusCode).toBe(400);
    expect((await a.post('/office/credits/ignore', [...form.slice(0, 1), ['back', 'https://evil.example/'], ['reason', 'x']])).statusCode).toBe(400);
    expect((await creditOf(made[0].id)).status).toBe('unmatched');

    const res = await a.post('/office/credits/ignore', [...form, ['reason', 'Test transfers of the bank']]);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/office/credits?providerId=${second.id}&done=ignored-queue&n=2&of=3`);
    const after = await a.get(res.headers.location as string);
    expect(after.body).toContain('2 credits ignored: they left the queue with your reason. 1 of those shown had been matched or ignored meanwhile and stayed as they were.');
    for (const c of [made[0], made[2]]) expect(await creditOf(c.id)).toMatchObject({ status: 'ignored', reason: 'Test transfers of the bank' });
    expect(await creditOf(made[1].id)).toMatchObject({ status: 'ignored', reason: 'on its own' });
    // The credit that arrived after the page was shown is still waiting, on the page.
    expect(await creditOf(late.id)).toMatchObject({ status: 'unmatched' });
    expect(after.body).toContain(`id="credit-${late.id}"`);
    expect(after.body).not.toContain('id="ignore-queue"');
    expect((await auditOf(made[0].id))[0]).toMatchObject({ actor: adminId, action: 'credit.ignore', outcome: 'ok', detail: 'Test transfers of the bank' });
    await a.post(`/office/credits/${late.id}/ignore`, [['reason', 'test money']]);
  });

  it('a credit\'s page shows the statement entries that evidence it, linked to their statement, or says there is none', async () => {
    const [st] = json(await admin(h.app, 'GET', `/statements?providerId=${p.id}`)).result.items.filter((x: any) => x.filename === 'day.csv');
    const entries = json(await admin(h.app, 'GET', `/statements/${st.id}`)).result.entries.items;
    const e = entries.find((x: any) => x.creditId);
    const page = await s.get(`/office/credits/${e.creditId}`);
    expect(page.statusCode).toBe(200);
    const section = page.body.slice(page.body.indexOf('id="evidence-h"'));
    expect(section).toContain(`<a href="/office/statements/${st.id}">day.csv</a>`);
    expect(section).toContain(`href="/office/statements/${st.id}?after=${e.index - 1}#entry-${e.index}"`);
    expect(section).toContain('badge ok">new');
    const fromFeed = json(await admin(h.app, 'GET', `/credits?providerId=${second.id}&limit=1`)).result.items[0];
    expect((await s.get(`/office/credits/${fromFeed.id}`)).body).toContain('No uploaded bank statement shows this money yet: it was recorded from the credit feed.');
  });
});

describe('bank statements', () => {
  let day: any;
  let camt: any;

  beforeAll(async () => {
    const items = json(await admin(h.app, 'GET', `/statements?providerId=${p.id}`)).result.items;
    day = items.find((x: any) => x.filename === 'day.csv');
    camt = items.find((x: any) => x.filename === 'camt.xml');
    expect(day && camt).toBeTruthy();
  });

  it('lists the statements newest first with their checks, filtered by pool and account, in the navigation', async () => {
    const res = await s.get('/office/statements');
    expect(res.statusCode).toBe(200);
    expect(navCount(res.body, 'Bank statements')).toBeNull();
    expect(res.body).toContain('aria-current="page">Bank statements');
    const at = (id: string) => res.body.indexOf(`href="/office/statements/${id}"`);
    expect(at(camt.id)).toBeGreaterThan(0);
    expect(at(day.id)).toBeGreaterThan(at(camt.id));
    expect(res.body).toContain('camt.053 001.08');
    expect(res.body).toContain('admin-recon@paygate.example');
    const byAccount = await s.get(`/office/statements?account=${encodeURIComponent(card(11).replace(/ /g, '-'))}`);
    expect(byAccount.body).toContain(`href="/office/statements/${camt.id}"`);
    expect(byAccount.body).not.toContain(`href="/office/statements/${day.id}"`);
    expect((await s.get('/office/statements?providerId=prv_none')).body).toContain('No statements match these filters.');
    expect((await s.get('/office/statements?before=stm_nothing')).statusCode).toBe(400);
    // The pool's page links its statements.
    expect((await s.get(`/office/pools/${p.id}`)).body).toContain(`href="/office/statements?providerId=${p.id}"`);
  });

  it('a statement\'s page shows the file, its balances and checks, who uploaded it, and every entry\'s outcome linked to its credit', async () => {
    const page = await s.get(`/office/statements/${day.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1 class="rc-wrap">Statement day.csv</h1>');
    expect(page.body).toContain(day.sha256);
    expect(page.body).toContain('CSV (Paygate columns)');
    expect(page.body).toContain('by <a href="/office/operators#' + adminId + '">admin-recon@paygate.example</a>');
    expect(page.body).toMatch(/id="balance-check"><span class="badge">not stated<\/span>/);
    expect(page.body).toMatch(/id="continuity"><span class="badge">not stated<\/span>/);
    const entries = json(await admin(h.app, 'GET', `/statements/${day.id}`)).result.entries.items;
    for (const e of entries) {
      expect(page.body).toContain(`id="entry-${e.index}"`);
      expect(page.body).toContain(`href="/office/credits/${e.creditId}"`);
    }
    expect(page.body).toMatch(/data-field="entries">2</);
    expect(page.body).toMatch(/data-field="matched">1</);
    // Entries by outcome, and paged after an index.
    const skipped = await s.get(`/office/statements/${camt.id}?outcome=skipped`);
    expect(skipped.body).toContain('id="entry-2"');
    expect(skipped.body).not.toContain('id="entry-1"');
    expect(skipped.body).toContain('none: money out');
    expect(skipped.body).toContain('aria-current="true"><strong>Skipped</strong>');
    expect((await s.get(`/office/statements/${day.id}?outcome=duplicate`)).body).toContain('No duplicate entries.');
    const later = await s.get(`/office/statements/${day.id}?after=1`);
    expect(later.body).toContain('id="entry-2"');
    expect(later.body).not.toContain('id="entry-1"');
    expect(later.body).toContain('First entries');
    expect((await s.get(`/office/statements/${day.id}?outcome=nonsense`)).statusCode).toBe(200);
    expect((await s.get('/office/statements/stm_nothing')).statusCode).toBe(404);
  });

  it('the upload\'s summary links the statement it recorded, or the one recorded before', async () => {
    const at = new Date(h.clock.now()).toISOString();
    const csv = ['transactionId,account,amount,currency,receivedAt,payer,reference', `st-9,4000000000000009,9.00,RUB,${at},,`].join('\r\n');
    await a.get(`/office/pools/${p.id}`);
    const res = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'nine.csv', type: 'text/csv', content: Buffer.from(csv) } }]);
    expect(res.statusCode).toBe(200);
    const id = /data-field="statement">(stm_[0-9a-z]+)</.exec(res.body)![1];
    expect(res.body).toContain(`href="/office/statements/${id}"`);
    expect(res.body).toContain('read and recorded as');
    const again = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'statement', file: { name: 'nine.csv', type: 'text/csv', content: Buffer.from(csv) } }]);
    expect(again.body).toContain(`was recorded before as <a href="/office/statements/${id}"`);
  });
});

describe('CSV profiles', () => {
  const HEADER = 'Дата;Счёт;Сумма;Плательщик;Назначение;Номер';
  const bank = (rows: string[]) => iconv.encode(['Выписка по счёту 2200150000000011', HEADER, ...rows].join('\r\n') + '\r\n', 'windows-1251');
  const sample = bank([
    '15.01.2026 10:30;2200150000000011;1 500,00;ИВАН И.;Оплата заказа;A-1',
    '15.01.2026 11:00;2200150000000011;-200,00;;Комиссия;A-2',
    'вчера;2200150000000011;50,00;ПЁТР;;A-3',
  ]);
  const fields: [string, string][] = [
    ['name', 'Sber CSV'],
    ['delimiter', 'semicolon'],
    ['quote', 'double'],
    ['encoding', 'windows-1251'],
    ['skipRows', '1'],
    ['decimalSeparator', ','],
    ['thousandsSeparator', 'space'],
    ['dateFormat', 'DD.MM.YYYY HH:mm'],
    ['timeZone', 'Europe/Moscow'],
    ['receivedAt', 'Дата'],
    ['account', 'Счёт'],
    ['amount', 'Сумма'],
    ['payer', 'Плательщик'],
    ['reference', 'Назначение'],
    ['bankReference', 'Номер'],
    ['fixedCurrency', 'RUB'],
  ];
  /** Every field of the form, as a browser sends them: the ones not given empty. */
  const FIELDS = ['name', 'delimiter', 'quote', 'encoding', 'skipRows', 'decimalSeparator', 'thousandsSeparator', 'dateFormat', 'timeZone', 'receivedAt', 'amount', 'credit', 'debit', 'account', 'currency', 'payer', 'reference', 'bankReference', 'fixedAccount', 'fixedCurrency'];
  const parts = (f: [string, string][], file: Buffer | null = sample) => [
    ...f.map(([name, value]) => ({ name, value })),
    ...FIELDS.filter((k) => !f.some(([name]) => name === k)).map((name) => ({ name, value: '' })),
    ...(file ? [{ name: 'sample', file: { name: 'sber.csv', type: 'text/csv', content: file } }] : []),
  ];
  const profilesOf = async (id: string) => json(await admin(h.app, 'GET', `/providers/${id}/statement-profiles`)).result;
  let made: any;

  it('lists a pool\'s profiles, with the new-profile form for an admin only', async () => {
    const list = await a.get(`/office/pools/${p.id}/profiles`);
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('id="profiles-empty"');
    expect(list.body).toContain(`href="/office/pools/${p.id}/profiles/new"`);
    expect((await s.get(`/office/pools/${p.id}/profiles`)).body).not.toContain('New CSV profile</a>');
    const form = await a.get(`/office/pools/${p.id}/profiles/new`);
    expect(form.body).toContain('id="profile-form"');
    expect(form.body).toContain('enctype="multipart/form-data"');
    expect((await s.get(`/office/pools/${p.id}/profiles/new`)).body).toContain('Creating CSV profiles is for administrators.');
    expect((await a.get('/office/pools/prv_none/profiles')).statusCode).toBe(404);
  });

  it('previews the first rows of a sample file as the entries they would be, problems shown, recording nothing', async () => {
    await a.get(`/office/pools/${p.id}/profiles/new`);
    const res = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields, ['intent', 'preview']]));
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.body.slice(res.body.indexOf('id="preview"'), res.body.indexOf('id="profile-form"'));
    expect(preview).toContain('Preview of sber.csv');
    expect(preview).toContain('3 <code>Сумма</code>');
    expect(preview).toContain('The first 3 rows read as 1 credit, 1 unreadable and 1 skipped.');
    expect(preview).toContain('value="1500.00"');
    expect(preview).toContain('<time datetime="2026-01-15T07:30:00Z">2026-01-15 07:30:00 UTC</time>');
    expect(preview).toContain('ИВАН И.');
    expect(preview).toContain('<code>A-1</code>');
    expect(preview).toContain('a credit, matched if its order waits');
    expect(preview).toContain('skipped: money out');
    expect(preview).toContain('badge bad">unreadable');
    // What was typed stays, and the sample is kept for the next preview.
    expect(res.body).toContain('value="DD.MM.YYYY HH:mm"');
    expect(res.body).toMatch(/name="kept" value="[A-Za-z0-9+/=]+"/);
    expect(await profilesOf(p.id)).toEqual([]);
    const kept = /name="kept" value="([^"]+)"/.exec(res.body)![1]!;
    const again = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields, ['kept', kept], ['keptName', 'sber.csv'], ['intent', 'preview']], null));
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('The first 3 rows read as 1 credit');
    // The same file read as UTF-8 or with the wrong delimiter: the preview says what is wrong.
    const wrong = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields.filter(([k]) => k !== 'delimiter'), ['delimiter', 'comma'], ['intent', 'preview']]));
    expect(wrong.statusCode).toBe(200);
    expect(wrong.body).toContain('id="preview-problem"');
    const incomplete = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields.filter(([k]) => k !== 'dateFormat'), ['intent', 'preview']]));
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.body).toContain('The profile cannot read a file yet: dateFormat must be');
    const none = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields, ['intent', 'preview']], null));
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Choose a sample file to preview');
    expect(await profilesOf(p.id)).toEqual([]);
  });

  it('saves a profile as the API would, refuses an incomplete one with what was typed, and edits it', async () => {
    await a.get(`/office/pools/${p.id}/profiles/new`);
    const bad = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields.filter(([k]) => k !== 'receivedAt'), ['intent', 'save']], null));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Not saved: columns.receivedAt is required');
    expect(bad.body).toContain('value="Сумма"');
    const res = await a.upload(`/office/pools/${p.id}/profiles/new`, parts([...fields, ['intent', 'save']]));
    expect(res.statusCode, res.body).toBe(303);
    [made] = await profilesOf(p.id);
    expect(made).toMatchObject({
      name: 'Sber CSV', delimiter: ';', quote: '"', encoding: 'windows-1251', skipRows: 1, decimalSeparator: ',', thousandsSeparator: ' ',
      dateFormat: 'DD.MM.YYYY HH:mm', timeZone: 'Europe/Moscow', fixedCurrency: 'RUB', fixedAccount: null,
      columns: { receivedAt: 'Дата', account: 'Счёт', amount: 'Сумма', payer: 'Плательщик', reference: 'Назначение', bankReference: 'Номер' },
    });
    expect(res.headers.location).toBe(`/office/pools/${p.id}/profiles?done=profile-created#profile-${made.id}`);
    expect((await auditOf(made.id))[0]).toMatchObject({ actor: adminId, action: 'statementProfile.create', outcome: 'ok' });
    const list = await a.get(res.headers.location as string);
    expect(list.body).toContain('CSV profile saved');
    expect(list.body).toContain(`id="profile-${made.id}"`);

    const page = await a.get(`/office/pools/${p.id}/profiles/${made.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('value="Номер"');
    expect(page.body).toMatch(/<option value="semicolon" selected>/);
    // Renamed, and its bank reference column cleared (a column as a position this time).
    const changed = fields.map(([k, v]): [string, string] => (k === 'name' ? [k, 'Sber CSV 2026'] : k === 'bankReference' ? [k, ''] : k === 'payer' ? [k, '4'] : [k, v]));
    const saved = await a.upload(`/office/pools/${p.id}/profiles/${made.id}`, parts([...changed, ['intent', 'save']], null));
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`/office/pools/${p.id}/profiles/${made.id}?done=profile-saved`);
    const [after] = await profilesOf(p.id);
    expect(after).toMatchObject({ name: 'Sber CSV 2026', columns: { payer: 4 } });
    expect(after.columns.bankReference).toBeUndefined();
    expect((await auditOf(made.id))[0]).toMatchObject({ actor: adminId, action: 'statementProfile.update', outcome: 'ok' });
    // A preview on the profile's page reads with the form as typed.
    const preview = await a.upload(`/office/pools/${p.id}/profiles/${made.id}`, parts([...changed, ['intent', 'preview']]));
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('Preview of sber.csv');
    expect((await a.get(`/office/pools/${p.id}/profiles/csp_nothing`)).statusCode).toBe(404);
  });

  it('support reads a profile without its form; posting, or posting without the session\'s token, changes nothing', async () => {
    const page = await s.get(`/office/pools/${p.id}/profiles/${made.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('id="profile-form"');
    expect(page.body).toContain('Changing CSV profiles is for administrators.');
    expect(page.body).toContain('DD.MM.YYYY HH:mm');
    const before = await profilesOf(p.id);
    const change = parts([...fields, ['intent', 'save']], null);
    expect((await s.upload(`/office/pools/${p.id}/profiles/${made.id}`, change)).statusCode).toBe(403);
    expect((await s.upload(`/office/pools/${p.id}/profiles/new`, change)).statusCode).toBe(403);
    await a.get(`/office/pools/${p.id}/profiles/${made.id}`);
    expect((await a.upload(`/office/pools/${p.id}/profiles/${made.id}`, change, { csrf: 'forged' })).statusCode).toBe(403);
    expect((await a.upload(`/office/pools/${p.id}/profiles/${made.id}`, [...change, { name: 'surprise', value: '1' }])).statusCode).toBe(400);
    expect(await profilesOf(p.id)).toEqual(before);
  });

  it('the pool\'s upload reads a bank\'s CSV with the profile chosen, and refuses a profile of another pool', async () => {
    const page = await a.get(`/office/pools/${p.id}`);
    expect(page.body).toContain(`<option value="${made.id}">CSV profile: Sber CSV 2026</option>`);
    expect(page.body).toContain(`href="/office/pools/${p.id}/profiles">CSV profiles (1)</a>`);
    const res = await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'profile', value: made.id }, { name: 'statement', file: { name: 'sber.csv', type: 'text/csv', content: sample } }]);
    expect(res.statusCode, res.body).toBe(200);
    const summary = /id="statement-summary"[\s\S]*?<\/dl>/.exec(res.body)![0];
    expect(summary).toContain('CSV (bank profile)');
    expect(summary).toMatch(/data-field="credits">1</);
    expect(summary).toMatch(/data-field="skipped">1</);
    expect(summary).toMatch(/data-field="unreadable">1</);
    expect(res.body).toContain(`<option value="${made.id}" selected>`);
    const other = await pools(h)([{ card: card(92) }], { name: 'Third pool' });
    await admin(h.app, 'POST', `/providers/${other.id}/pause`);
    const foreign = await a.upload(`/office/pools/${other.id}/statements`, [{ name: 'profile', value: made.id }, { name: 'statement', file: { name: 'sber.csv', type: 'text/csv', content: sample } }]);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body).toContain('STATEMENT_PROFILE_NOT_FOUND');
    expect((await a.upload(`/office/pools/${p.id}/statements`, [{ name: 'profile', value: '../x' }, { name: 'statement', file: { name: 'sber.csv', type: 'text/csv', content: sample } }])).statusCode).toBe(400);
  });
});

describe('statement checks on the statement, the day report and the home page', () => {
  let second: Pool;
  /** A camt.053 of card 93 with balances stated for the days given and the entries given. */
  const camt = (id: string, o: { from: string; to: string; opening: string; closing: string; entries: [string, 'CRDT' | 'DBIT', string][] }) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${o.to}T20:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${id}</Id><FrToDt><FrDtTm>${o.from}T00:00:00Z</FrDtTm><ToDtTm>${o.to}T23:59:59Z</ToDtTm></FrToDt><Acct><Id><Othr><Id>2200150000000093</Id></Othr></Id><Ccy>RUB</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${o.opening}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${o.from}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${o.closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${o.to}</Dt></Dt></Bal>
${o.entries.map(([amount, ind, ref]) => `<Ntry><Amt Ccy="RUB">${amount}</Amt><CdtDbtInd>${ind}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${o.to}</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef></Ntry>`).join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
  let first: string;
  let broken: string;

  beforeAll(async () => {
    second = await pools(h)([{ card: card(93), holder: 'Checks' }], { name: 'Checked pool' });
    await admin(h.app, 'POST', `/providers/${second.id}/pause`);
  });

  it('a statement whose balances do not add up and that leaves a gap says so on its page, with the previous statement linked', async () => {
    await a.get(`/office/pools/${second.id}`);
    const upload = (name: string, xml: string) => a.upload(`/office/pools/${second.id}/statements`, [{ name: 'statement', file: { name, type: 'application/xml', content: Buffer.from(xml) } }]);
    const ok = await upload('jan-10.xml', camt('C-1', { from: '2026-01-10', to: '2026-01-12', opening: '1000.00', closing: '1000.00', entries: [['50.00', 'CRDT', 'R1'], ['50.00', 'DBIT', 'R2']] }));
    expect(ok.statusCode, ok.body).toBe(200);
    first = /data-field="statement">(stm_[0-9a-z]+)</.exec(ok.body)![1]!;
    expect(ok.body).toMatch(/data-field="balance-check"><span class="badge ok">consistent/);
    const off = await upload('jan-15.xml', camt('C-2', { from: '2026-01-15', to: '2026-01-15', opening: '900.00', closing: '1000.00', entries: [['55.00', 'CRDT', 'R3']] }));
    expect(off.statusCode, off.body).toBe(200);
    broken = /data-field="statement">(stm_[0-9a-z]+)</.exec(off.body)![1]!;
    const api = json(await admin(h.app, 'GET', `/statements/${broken}`)).result;
    expect(api).toMatchObject({ balanceCheck: 'inconsistent', balanceDifference: '-45.00', continuity: 'gap', gap: { from: '2026-01-13', to: '2026-01-14' } });
    expect(off.body).toMatch(/data-field="balance-check"><span class="badge bad">inconsistent<\/span> <span class="nowrap">by <data class="money" value="-45.00"/);
    expect(off.body).toContain('no statement for 2026-01-13 to 2026-01-14');

    const page = await s.get(`/office/statements/${broken}`);
    const findings = /id="statement-findings"[\s\S]*?<\/div>/.exec(page.body)![0];
    expect(findings).toContain('The balances do not add up');
    expect(findings).toContain('value="-45.00"');
    expect(findings).toContain('no statement for 2026-01-13 to 2026-01-14');
    expect(findings).toContain(`href="/office/statements/${first}"`);
    expect(findings).toContain('value="1000.00"');
    const balances = page.body.slice(page.body.indexOf('id="balances-h"'), page.body.indexOf('id="entries-h"'));
    expect(balances).toContain('value="900.00"');
    expect(balances).toContain('value="55.00"');
    expect(balances).toContain('<span class="nowrap">2026-01-15</span>');
    expect((await s.get(`/office/statements/${first}`)).body).not.toContain('id="statement-findings"');
  });

  it('the day report lists the day\'s statements with their checks', async () => {
    const page = await s.get(`/office/pools/${second.id}/report?date=2026-01-15`);
    const day = page.body.slice(page.body.indexOf('id="day-statements-h"'));
    expect(day).toContain(`href="/office/statements/${first}">jan-10.xml</a>`);
    expect(day).toContain(`href="/office/statements/${broken}">jan-15.xml</a>`);
    expect(day).toContain('<span class="badge bad">inconsistent</span>');
    expect(day).toContain('<span class="badge bad">gap</span> <span>no statement for 2026-01-13 to 2026-01-14</span>');
    expect(day).toContain('<span class="badge ok">consistent</span>');
    expect(day).toContain('<span class="badge">first</span>');
  });

  it('the home page warns of recent statements with findings, on the live dashboard only, and no longer once they are old', async () => {
    const home = await s.get('/office');
    expect(home.statusCode).toBe(200);
    const warning = /id="statement-findings"[\s\S]*?<\/section>/.exec(home.body)![0];
    expect(warning).toContain('Bank statements to look at');
    expect(warning).toContain(`href="/office/statements/${broken}">jan-15.xml</a>`);
    expect(warning).toContain('Checked pool');
    expect(warning).toContain('balances inconsistent by');
    expect(warning).toContain('gap: no statement for 2026-01-13 to 2026-01-14');
    expect(warning).not.toContain(`href="/office/statements/${first}"`);
    expect(home.body.indexOf('id="statement-findings"')).toBeLessThan(home.body.indexOf('id="statuses-h"'));
    expect((await s.get('/office?mode=sandbox')).body).not.toContain('id="statement-findings"');
    // A fortnight later the warning is gone (the statement keeps its findings).
    h.clock.advance(15 * 86_400_000);
    const fresh = new FormBrowser(h.app);
    await fresh.get('/office/sign-in');
    expect((await fresh.post('/office/sign-in', [['email', 'support-recon@paygate.example'], ['password', PASSWORD]])).statusCode).toBe(303);
    const later = await fresh.get('/office');
    expect(later.statusCode).toBe(200);
    expect(later.body).not.toContain('id="statement-findings"');
    expect((await fresh.get(`/office/statements/${broken}`)).body).toContain('id="statement-findings"');
  });
});

describe('a queue past 999', () => {
  it('the navigation, the reconciliation page and the pool\'s page say "999+" where counting stops; the day report still counts every one', async () => {
    // 1,000 more unmatched credits on the pool, written as the feed leaves a credit it cannot match.
    await h.ctx.db.query(
      `INSERT INTO credits (id, provider_id, requisite_id, account, amount, currency, received_at, source, source_id, status, reason, created_at, updated_at, account_key, booking_day)
       SELECT 'crd_many' || lpad(g::text, 4, '0'), c.provider_id, c.requisite_id, c.account, 5000 + g, c.currency, c.received_at, 'feed', 'many-' || g, 'unmatched', 'no order', c.created_at, c.updated_at, c.account_key, c.booking_day
         FROM generate_series(1, 1000) g, (SELECT * FROM credits WHERE provider_id = $1 ORDER BY seq LIMIT 1) c`,
      [p.id],
    );
    expect(await count(`SELECT count(*) AS n FROM credits WHERE status = 'unmatched'`)).toBeGreaterThan(1000);
    const badge = (body: string) => /<a href="[^"]*"[^>]*>Unmatched credits <span class="count[^"]*">([^<]+)<span class="visually-hidden"> waiting<\/span><\/span><\/a>/.exec(body)?.[1];
    // Signed in again: the earlier tests moved the clock past the sessions' idle limit.
    const again = async (role: 'admin' | 'support') => {
      const b = new FormBrowser(h.app);
      await b.get('/office/sign-in');
      expect((await b.post('/office/sign-in', [['email', `${role}-recon@paygate.example`], ['password', PASSWORD]])).statusCode).toBe(303);
      return b;
    };
    const [ad, su] = [await again('admin'), await again('support')];
    expect(badge((await ad.get('/office')).body)).toBe('999+');
    expect(badge((await su.get('/office/merchants')).body)).toBe('999+');
    const pools = await ad.get('/office/reconciliation');
    expect(pools.statusCode).toBe(200);
    expect(pools.body).toMatch(/>999\+<\/a>/);
    const pool = await ad.get(`/office/pools/${p.id}`);
    expect(pool.body).toContain('Unmatched credits (999+)');
    // The day report still counts every one of them: the cap is the badges' alone.
    const { rows: [{ day }] } = await h.ctx.db.query<{ day: string }>(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM credits WHERE id = 'crd_many0001'`);
    const report = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=${day}`)).result;
    expect(report.totals.unmatched).toBe(await count(`SELECT count(*) AS n FROM credits WHERE provider_id = '${p.id}' AND status = 'unmatched' AND received_at >= '${day}' AND received_at < '${day}'::date + 1`));
    expect(report.totals.unmatched).toBeGreaterThan(1000);
  });
});
