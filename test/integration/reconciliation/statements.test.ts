import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, createHarness, json, provisionDesk, type DeskCreds, type Harness } from '../../helpers/harness.js';
import { card, credit, feed, getOrder, placed, pools, type Pool } from './helpers.js';

/** `POST /admin/v1/providers/{id}/statements` (reconciliation contract, "Credits", 2). */

let h: Harness;
let desk: DeskCreds;
let p: Pool;
const IBAN = 'FI21 1234 5600 0007 85';

beforeAll(async () => {
  h = await createHarness({ unlimitedOrders: true });
  desk = await provisionDesk(h.app, { merchant: { name: 'Live', approve: true } });
  p = await pools(h)([{ iban: IBAN, holder: 'Pool Oy', bank: 'Bank' }, { card: card(1) }]);
});
afterAll(() => h.close());

const upload = (body: string | Buffer, contentType: string | null, providerId = p.id, token = ADMIN_TOKEN) =>
  h.app.inject({
    method: 'POST',
    url: `/admin/v1/providers/${providerId}/statements`,
    headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
    payload: body,
  });
const creditCount = async () => Number((await h.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credits')).rows[0].n);

const CSV_HEADER = 'transactionId,account,amount,currency,receivedAt,payer,reference';

function camt(entries: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>M-1</MsgId><CreDtTm>2026-01-15T13:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>S-1</Id>
      <Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>RUB</Ccy></Acct>
      ${entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>`;
}
const entry = (o: { amount: string; ind?: string; sts?: string | null; reversal?: boolean; ref?: string; at?: string; tx?: string }) => `
      <Ntry>
        ${o.ref ? `<NtryRef>${o.ref}</NtryRef>` : ''}
        <Amt Ccy="RUB">${o.amount}</Amt>
        <CdtDbtInd>${o.ind ?? 'CRDT'}</CdtDbtInd>
        ${o.reversal ? '<RvslInd>true</RvslInd>' : ''}
        ${o.sts === null ? '' : `<Sts><Cd>${o.sts ?? 'BOOK'}</Cd></Sts>`}
        <BookgDt><DtTm>${o.at ?? '2026-01-15T12:00:30Z'}</DtTm></BookgDt>
        ${o.ref ? `<AcctSvcrRef>${o.ref}</AcctSvcrRef>` : ''}
        ${o.tx ?? ''}
      </Ntry>`;

describe('statement upload', () => {
  it('camt.053: booked credits are recorded and matched; debits, pending entries and reversals are skipped; a batch gives a credit per transaction', async () => {
    const o = await placed(h, desk, 918, { rail: 'Sbp' });
    expect(o.payment.iban).toBe(IBAN);
    const xml = camt(
      entry({ amount: '918.00', ref: 'ST-1' }) +
        entry({ amount: '50.00', ind: 'DBIT', ref: 'ST-2' }) +
        entry({ amount: '60.00', sts: 'PDNG', ref: 'ST-3' }) +
        entry({ amount: '70.00', reversal: true, ref: 'ST-4' }) +
        entry({
          amount: '30.00',
          ref: 'ST-5',
          tx: `<NtryDtls>
            <TxDtls><Refs><TxId>T-1</TxId></Refs><Amt Ccy="RUB">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><RltdPties><Dbtr><Nm>Ann</Nm></Dbtr></RltdPties><RmtInf><Ustrd>UTR-77</Ustrd></RmtInf></TxDtls>
            <TxDtls><Refs><TxId>T-2</TxId></Refs><Amt Ccy="RUB">20.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TxDtls>
          </NtryDtls>`,
        }),
    );
    const res = await upload(xml, 'application/xml');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ format: 'camt.053', version: '001.08', entries: 6, credits: 3, duplicates: 0, matched: 1, unmatched: 2, skipped: 3, unreadable: 0, sameAs: null });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
    const listed = json(await admin(h.app, 'GET', `/credits?providerId=${p.id}`)).result.items;
    // Both transactions of the batch carry the entry's bank reference; each keeps its own id for people.
    expect(listed.map((c: any) => [c.bankReference, c.sourceId, c.amount, c.status, c.source, c.payer, c.reference]).sort()).toEqual([
      ['ST-1', 'ST-1', '918.00', 'matched', 'statement', null, null],
      ['ST-5', 'ST-5', '10.00', 'unmatched', 'statement', 'Ann', 'UTR-77'],
      ['ST-5', 'ST-5', '20.00', 'unmatched', 'statement', null, null],
    ]);
    expect(listed.find((c: any) => c.status === 'matched')).toMatchObject({ orderId: o.id, account: 'FI2112345600000785', receivedAt: '2026-01-15T12:00:30Z' });
    // The same file again: the statement already recorded, nothing changes.
    const again = await upload(xml, 'application/xml; charset=utf-8');
    expect(json(again).result).toMatchObject({ sameAs: json(res).result.statementId, credits: 3, matched: 1 });
    expect((await h.ctx.db.query('SELECT 1 FROM credits WHERE provider_id = $1', [p.id])).rows).toHaveLength(3);
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${p.id}`)).result.items;
    expect(audit[0]).toMatchObject({ action: 'provider.statement', actor: 'token', outcome: 'ok' });
    expect(audit[0].detail).toContain('camt.053');
  });

  it('CSV: a credit already recorded by the feed counts as a duplicate', async () => {
    const o = await placed(h, desk, 1234);
    const fed = credit(h, card(1), '5.00');
    await feed(h, p, { credits: [fed] });
    const csv = [CSV_HEADER, `${fed.transactionId},${card(1)},5.00,RUB,${fed.receivedAt},IVAN I.,`, `csv-1,${card(1)},1234.00,RUB,2026-01-15T12:00:40Z,,`, 'csv-2,nobody,1.00,RUB,2026-01-15T12:00:40Z,,'].join('\r\n');
    const res = await upload(csv, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ entries: 3, credits: 3, duplicates: 1, matched: 1, unmatched: 1, skipped: 0 });
    expect((await getOrder(h, o.id)).status).toBe('Completed');
  });

  it('a file that is not a statement is 400 STATEMENT_INVALID naming what is wrong, and records nothing', async () => {
    const before = await creditCount();
    const cases: [string, string, RegExp][] = [
      ['a,b,c\n1,2,3\n', 'text/csv', /format|header|column/i],
      ['<?xml version="1.0"?><a>1</a>', 'application/xml', /camt|Document|statement/i],
      ['<Document', 'application/xml', /.+/],
      [`${CSV_HEADER}\n`.replace('transactionId', 'txid'), 'text/csv', /format/i],
    ];
    for (const [body, type, detail] of cases) {
      const res = await upload(body, type);
      expect(res.statusCode, body.slice(0, 80)).toBe(400);
      expect(json(res).fault.code).toBe('STATEMENT_INVALID');
      expect(json(res).fault.detail, body.slice(0, 80)).toMatch(detail);
    }
    expect(await creditCount()).toBe(before);
    const audit = json(await admin(h.app, 'GET', `/audit?objectId=${p.id}`)).result.items;
    expect(audit[0]).toMatchObject({ action: 'provider.statement', outcome: 'STATEMENT_INVALID' });
  });

  it('recognises the format whatever the file type (415 for other types), for pool providers it knows (404, 400), with the operator token (401)', async () => {
    const csv = `${CSV_HEADER}\nx-1,${card(1)},1.00,RUB,2026-01-15T12:00:00Z,,\n`;
    for (const type of ['application/json', 'image/png']) {
      const res = await upload(type === 'application/json' ? '{"a":1}' : csv, type);
      expect(res.statusCode, String(type)).toBe(415);
      expect(json(res).fault.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    for (const [i, type] of ['text/plain', 'application/octet-stream', null].entries()) {
      const res = await upload(`${CSV_HEADER}\nct-${i},${card(1)},1.0${i},RUB,2026-01-15T12:00:00Z,,\n`, type);
      expect(res.statusCode, String(type)).toBe(200);
      expect(json(res).result).toMatchObject({ format: 'csv', credits: 1 });
    }
    expect(json(await upload(csv, 'text/csv', 'prv_nope')).fault.code).toBe('PROVIDER_NOT_FOUND');
    expect((await upload(csv, 'text/csv', 'prv_sandbox')).statusCode).toBe(400);
    const anonymous = await upload(csv, 'text/csv', p.id, 'wrong-token-0123456789');
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous).fault.code).toBe('ADMIN_AUTH_FAILED');
    const empty = await upload('', 'text/csv');
    expect(empty.statusCode).toBe(400);
    expect(json(empty).fault.code).toBe('STATEMENT_INVALID');
  });

  it('reads files past the 64 KiB of JSON bodies, up to 50 MiB, and refuses a larger one with 413', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `big-${i},unknown-account-${i},1.00,RUB,2026-01-15T12:00:00Z,payer ${i},ref ${i}`);
    const csv = [CSV_HEADER, ...rows].join('\n');
    expect(csv.length).toBeGreaterThan(64 * 1024);
    const res = await upload(csv, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ entries: 3000, credits: 3000, unmatched: 3000 });
    const huge = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    const before = await creditCount();
    const tooLarge = await upload(huge, 'text/csv');
    expect(tooLarge.statusCode).toBe(413);
    expect(json(tooLarge).fault.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await creditCount()).toBe(before);
  }, 60_000);
});
