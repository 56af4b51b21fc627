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
    expect(head).toEqual(['date', 'providerId', 'requisiteId', 'label', 'ordersIssued', 'ordersCompleted', 'completedAmount', 'credits', 'creditsAmount', 'matched', 'unmatched', 'completedWithoutCredit']);
    const figures = ['ordersIssued', 'ordersCompleted', 'completedAmount', 'credits', 'creditsAmount', 'matched', 'unmatched', 'completedWithoutCredit'];
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
    expect((await a.get(`/office/pools/${p.id}/report?date=2026-02-30`)).statusCode).toBe(400);
    // Today by default.
    expect((await s.get(`/office/pools/${p.id}/report`)).body).toContain('2026-01-15');
  });
});
