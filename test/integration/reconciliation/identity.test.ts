import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, feed, getOrder, placed, pools, type Pool } from './helpers.js';

/**
 * Credit identity (reconciliation contract, "Credits", changed 2026-11-28): a payment is never
 * dropped and two payments are never taken for one, whatever the bank writes as references.
 */

let h: Harness;
let desk: DeskCreds;
let pool: ReturnType<typeof pools>;

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  pool = pools(h);
});
afterAll(() => h.close());

const upload = (p: Pool, body: string | Buffer, contentType: string | null = 'application/xml', query = '') =>
  h.app.inject({
    method: 'POST',
    url: `/admin/v1/providers/${p.id}/statements${query}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(contentType ? { 'content-type': contentType } : {}) },
    payload: body,
  });
const creditsOf = async (p: Pool) => json(await admin(h.app, 'GET', `/credits?providerId=${p.id}&limit=500`)).result.items;
const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);

/** A camt.053 of one account with the entries given; `Ntry` written as banks write them. */
function camt053(account: string, entries: string, opts: { id?: string; opening?: string; closing?: string } = {}): string {
  const bal = (code: string, amount: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${amount.replace('-', '')}</Amt><CdtDbtInd>${amount.startsWith('-') ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${opts.id ?? 'M-1'}</MsgId><CreDtTm>${today()}T13:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${opts.id ?? 'S-1'}</Id>
      <Acct><Id><Othr><Id>${account}</Id></Othr></Id><Ccy>RUB</Ccy></Acct>
      ${opts.opening !== undefined ? bal('OPBD', opts.opening) : ''}
      ${opts.closing !== undefined ? bal('CLBD', opts.closing) : ''}
      ${entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>`;
}
const ntry = (o: { amount: string; ntryRef?: string; bankRef?: string; at?: string; e2e?: string; ind?: string }) => `
      <Ntry>
        ${o.ntryRef ? `<NtryRef>${o.ntryRef}</NtryRef>` : ''}
        <Amt Ccy="RUB">${o.amount}</Amt>
        <CdtDbtInd>${o.ind ?? 'CRDT'}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><DtTm>${o.at ?? new Date(h.clock.now()).toISOString()}</DtTm></BookgDt>
        ${o.bankRef ? `<AcctSvcrRef>${o.bankRef}</AcctSvcrRef>` : ''}
        ${o.e2e ? `<NtryDtls><TxDtls><Refs><EndToEndId>${o.e2e}</EndToEndId></Refs></TxDtls></NtryDtls>` : ''}
      </Ntry>`;

describe('credit identity', () => {
  it('two statements whose entries share NtryRef 1 on two cards are two payments: both orders complete', async () => {
    const p = await pool([{ card: card(11) }, { card: card(12) }]);
    const a = await placed(h, desk, 4321, { rail: 'C2c' });
    const b = await placed(h, desk, 4322, { rail: 'C2c' });
    const first = await upload(p, camt053(card(11), ntry({ amount: '4321.00', ntryRef: '1' }), { id: 'A' }));
    expect(first.statusCode, first.body).toBe(200);
    expect(json(first).result).toMatchObject({ credits: 1, duplicates: 0, matched: 1 });
    const second = await upload(p, camt053(card(12), ntry({ amount: '4322.00', ntryRef: '1' }), { id: 'B' }));
    expect(json(second).result).toMatchObject({ credits: 1, duplicates: 0, matched: 1 });
    expect((await getOrder(h, a.id)).status).toBe('Completed');
    expect((await getOrder(h, b.id)).status).toBe('Completed');
  });

  it('two equal payments of one payer on one day in one file are two credits; the same file again records nothing (sameAs)', async () => {
    const p = await pool([{ card: card(21) }]);
    const xml = camt053(card(21), ntry({ amount: '77.00', e2e: 'NOTPROVIDED' }) + ntry({ amount: '77.00', e2e: 'NOTPROVIDED' }), { id: 'twins' });
    const res = await upload(p, xml);
    expect(json(res).result).toMatchObject({ entries: 2, credits: 2, duplicates: 0, sameAs: null });
    const again = await upload(p, xml, 'text/plain');
    expect(again.statusCode).toBe(200);
    expect(json(again).result).toMatchObject({ statementId: json(res).result.statementId, sameAs: json(res).result.statementId, credits: 2 });
    // Another file of the same day with the same two bookings (a new statement of the period): the same money, found.
    const other = await upload(p, camt053(card(21), ntry({ amount: '77.00' }) + ntry({ amount: '77.00' }) + ntry({ amount: '78.00' }), { id: 'twins-2' }));
    expect(json(other).result).toMatchObject({ credits: 3, duplicates: 2 });
    expect((await creditsOf(p)).length).toBe(3);
  });

  it('the bank\'s own reference tells equal payments apart; the payer\'s end-to-end id never joins two', async () => {
    const p = await pool([{ card: card(31) }]);
    await upload(p, camt053(card(31), ntry({ amount: '10.00', bankRef: 'BR-1', e2e: 'SAME' }) + ntry({ amount: '10.00', bankRef: 'BR-2', e2e: 'SAME' }), { id: 'r1' }));
    expect((await creditsOf(p)).length).toBe(2);
    // A camt.053 after the day's camt.054 notifications with the same bank references: nothing new.
    const res = await upload(p, camt053(card(31), ntry({ amount: '10.00', bankRef: 'BR-2' }) + ntry({ amount: '10.00', bankRef: 'BR-1' }) + ntry({ amount: '10.00', bankRef: 'BR-3' }), { id: 'r2' }));
    expect(json(res).result).toMatchObject({ credits: 3, duplicates: 2 });
    const statement = json(await admin(h.app, 'GET', `/statements/${json(res).result.statementId}`)).result;
    expect(statement.entries.items.map((e: any) => [e.bankReference, e.outcome])).toEqual([['BR-2', 'duplicate'], ['BR-1', 'duplicate'], ['BR-3', 'new']]);
    expect(statement.entries.items[0].duplicateOf).toBe(statement.entries.items[0].creditId);
  });

  it('the statement confirms the money the feed saw instead of doubling it', async () => {
    const p = await pool([{ card: card(41) }]);
    const o = await placed(h, desk, 555, { rail: 'C2c' });
    const fed = await feed(h, p, { credits: [credit(h, card(41), '555.00')] });
    const fedCredit = json(fed).result.credits[0];
    expect(fedCredit).toMatchObject({ status: 'matched', orderId: o.id, duplicate: false, duplicateOf: null, warnings: [] });
    const res = await upload(p, camt053(card(41), ntry({ amount: '555.00', bankRef: 'X-555' })));
    expect(json(res).result).toMatchObject({ credits: 1, duplicates: 1, matched: 0 });
    const statement = json(await admin(h.app, 'GET', `/statements/${json(res).result.statementId}`)).result;
    expect(statement.entries.items[0]).toMatchObject({ outcome: 'duplicate', creditId: fedCredit.creditId, duplicateOf: fedCredit.creditId });
    const c = json(await admin(h.app, 'GET', `/credits/${fedCredit.creditId}`)).result;
    expect(c.bankReference).toBe('X-555');
  });

  it('a transactionId sent again with the same terms is a duplicate naming its credit; with other terms it is a new payment with a warning', async () => {
    const p = await pool([{ card: card(51) }]);
    const o1 = await placed(h, desk, 601, { rail: 'C2c' });
    const o2 = await placed(h, desk, 602, { rail: 'C2c' });
    const item = credit(h, card(51), '601.00', { transactionId: 'dup-1' });
    const first = json(await feed(h, p, { credits: [item] })).result.credits[0];
    expect(first).toMatchObject({ status: 'matched', orderId: o1.id, duplicate: false });
    const again = json(await feed(h, p, { credits: [item] })).result.credits[0];
    expect(again).toMatchObject({ creditId: first.creditId, duplicate: true, duplicateOf: first.creditId, warnings: [] });
    const reused = json(await feed(h, p, { credits: [{ ...item, amount: '602.00' }] })).result.credits[0];
    expect(reused.creditId).not.toBe(first.creditId);
    expect(reused).toMatchObject({ status: 'matched', orderId: o2.id, duplicate: false, duplicateOf: null, warnings: ['TRANSACTION_ID_REUSED'] });
    // Within one request too: the same id and terms twice is one credit.
    const twice = json(await feed(h, p, { credits: [credit(h, card(51), '3.00', { transactionId: 'tw' }), credit(h, card(51), '3.00', { transactionId: 'tw' })] })).result.credits;
    expect(twice[1]).toMatchObject({ creditId: twice[0].creditId, duplicate: true, duplicateOf: twice[0].creditId });
    expect((await getOrder(h, o2.id)).status).toBe('Completed');
  });

  it('a credit by hand repeats only with the same terms', async () => {
    const p = await pool([{ card: card(61) }]);
    const body = { providerId: p.id, account: card(61), amount: '9.00', currency: 'RUB', receivedAt: new Date(h.clock.now()).toISOString(), sourceId: 'hand-1' };
    const first = await admin(h.app, 'POST', '/credits', body);
    expect(first.statusCode).toBe(201);
    const again = await admin(h.app, 'POST', '/credits', body);
    expect(again.statusCode).toBe(200);
    expect(json(again).result.id).toBe(json(first).result.id);
    const other = await admin(h.app, 'POST', '/credits', { ...body, amount: '9.50' });
    expect(other.statusCode).toBe(201);
    expect(json(other).result.id).not.toBe(json(first).result.id);
  });
});

describe('partial files and no crash', () => {
  const HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference';
  const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`paygate-statement-${process.pid}-`));

  it('a bad row after a hundred good ones: the hundred are recorded, the bad one listed, the server serves on, no temporary file stays', async () => {
    const p = await pool([{ card: '2200150000001005' }]);
    const rows = Array.from({ length: 100 }, (_, i) => `C${i},2200150000001005,1.00,RUB,2026-03-02T10:00:00Z,p,r`);
    const csv = [HEADER, ...rows, 'BAD,acc,-1,RUB,2026-03-02T10:00:00Z,p,r', 'WORSE,acc,abc,RUB,2026-03-02T10:00:00Z,p,r'].join('\n');
    const res = await upload(p, csv, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    const r = json(res).result;
    expect(r).toMatchObject({ format: 'csv', entries: 102, credits: 100, unreadable: 1, skipped: 1 });
    expect(r.problems).toEqual([{ index: 102, problem: expect.stringMatching(/amount/) }]);
    expect(spools()).toEqual([]);
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('a file that is no statement records nothing and leaves no temporary file', async () => {
    const p = await pool([{ card: card(71) }]);
    for (const [body, type] of [['hello world', 'text/plain'], ['<Document xmlns="urn:x"><a/></Document>', 'application/xml'], ['<Document', 'application/xml']] as const) {
      const res = await upload(p, body, type);
      expect(res.statusCode, body).toBe(400);
      expect(json(res).fault.code).toBe('STATEMENT_INVALID');
    }
    expect(await creditsOf(p)).toEqual([]);
    expect(json(await admin(h.app, 'GET', `/statements?providerId=${p.id}`)).result.items).toEqual([]);
    expect(spools()).toEqual([]);
  });

  it('states its balances: consistent, inconsistent with the difference, and the gap to the previous statement', async () => {
    const p = await pool([{ card: card(81) }]);
    const ok = json(await upload(p, camt053(card(81), ntry({ amount: '10.00', bankRef: 'b1' }) + ntry({ amount: '4.00', bankRef: 'b2', ind: 'DBIT' }), { id: 'bal-1', opening: '100.00', closing: '106.00' }))).result;
    expect(ok).toMatchObject({ balanceCheck: 'consistent', balanceDifference: null, continuity: 'first' });
    const off = json(await upload(p, camt053(card(81), ntry({ amount: '5.00', bankRef: 'b3' }), { id: 'bal-2', opening: '106.00', closing: '112.00' }))).result;
    expect(off).toMatchObject({ balanceCheck: 'inconsistent', balanceDifference: '-1.00', continuity: 'continuous' });
    const gap = json(await upload(p, camt053(card(81), ntry({ amount: '1.00', bankRef: 'b4' }), { id: 'bal-3', opening: '200.00', closing: '201.00' }))).result;
    expect(gap).toMatchObject({ continuity: 'gap' });
    const listed = json(await admin(h.app, 'GET', `/statements?providerId=${p.id}`)).result.items;
    expect(listed.map((s: any) => s.balanceCheck)).toEqual(['consistent', 'inconsistent', 'consistent']);
  });
});
