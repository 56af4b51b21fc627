import iconv from 'iconv-lite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueOrders } from '../../src/services/orderActions.js';
import { admin, json, provisionDesk, signed, type DeskCreds } from '../helpers/harness.js';
import { card, credit, pools, sendCredit, type Pool } from '../integration/reconciliation/helpers.js';
import { DESKTOP, PHONE, hasChromium, launch, pageChecks as checkPage, serve, sharedFieldNames, watch, type Served } from './browser.js';

/*
 * The reconciliation pages of the back office in headless Chromium: an admin works the credits
 * queue (matches a candidate, forces a match whose amount differs, ignores a credit), uploads a
 * statement and reads its summary, changes a requisite and reads the day report; reads the bank
 * statements with their checks (and the home page's warning of those that do not add up), keeps a
 * CSV profile with a preview of a sample file and uploads a bank's CSV with it; meets the refusals
 * of a match (another requisite, a sandbox order), an already paid credit, and ignores a filtered
 * queue at once; a support operator sees the queue, statements and profiles without their forms;
 * the cabinet's balance page downloads the statement. Every page passes axe and scrolls no
 * sideways at 390 px, and shows every column at 1280 px; each is screenshotted at both widths
 * when PAYGATE_SCREENSHOTS is set.
 */

const PASSWORD = 'operator passphrase 2026';
const CABINET_PASSWORD = 'correct horse battery staple';
let h: Served;
let browser: Browser;
let desk: DeskCreds;
let p: Pool;
const seeded: Record<string, any> = {};

/** An order through the signed gateway: live for an approved merchant's desk, sandbox for one in the sandbox. */
async function gatewayOrder(d: DeskCreds, amount: number, extra: Record<string, unknown> = {}) {
  const res = await signed(h, d, '/gw/v1/orders', { body: JSON.stringify({ amount, currency: 'RUB', rail: 'C2c', ...extra }) });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}

/** A camt.053 of an account the pool has no requisite for, with the balances it states and its entries, booked on `to`. */
function camt053(id: string, o: { from: string; to: string; opening: string; closing: string; entries: [string, 'CRDT' | 'DBIT', string, string][] }): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${o.to}T20:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${id}</Id><FrToDt><FrDtTm>${o.from}T00:00:00Z</FrDtTm><ToDtTm>${o.to}T23:59:59Z</ToDtTm></FrToDt><Acct><Id><IBAN>RU0204452560040702810412345678901</IBAN></Id><Ccy>RUB</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${o.opening}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${o.from}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="RUB">${o.closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${o.to}</Dt></Dt></Bal>
${o.entries
  .map(([amount, ind, ref, payer]) => `<Ntry><Amt Ccy="RUB">${amount}</Amt><CdtDbtInd>${ind}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${o.to}</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><${ind === 'CRDT' ? 'Dbtr' : 'Cdtr'}><Nm>${payer}</Nm></${ind === 'CRDT' ? 'Dbtr' : 'Cdtr'}></RltdPties></TxDtls></NtryDtls></Ntry>`)
  .join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
}

/** A bank's own CSV export as Sberbank writes it: windows-1251, a preamble line, semicolons, decimal commas. */
const SBER_CSV = iconv.encode(
  [
    'Выписка по счёту 2200150000000011 за 15.01.2026',
    'Дата;Счёт;Сумма;Плательщик;Назначение;Номер',
    '15.01.2026 10:30;2200 1500 0000 0011;1 234,00;ИВАН ПЕТРОВ;Оплата заказа 5521;SB-0001',
    '15.01.2026 11:05;2200 1500 0000 0011;-150,00;;Комиссия банка;SB-0002',
    '15.01.2026 12:40;2200 1500 0000 0011;2 000,50;ООО РОМАШКА;По счёту 17;SB-0003',
    'вчера;2200 1500 0000 0011;75,00;;;SB-0004',
  ].join('\r\n') + '\r\n',
  'windows-1251',
);

beforeAll(async () => {
  if (!hasChromium) return;
  h = await serve({ OFFICE_REQUIRE_2FA: 'false', REQUISITE_QUARANTINE_MINUTES: '0' });
  for (const [email, role] of [['ada@paygate.example', 'admin'], ['sam@paygate.example', 'support']]) {
    expect((await admin(h.app, 'POST', '/operators', { email, password: PASSWORD, role })).statusCode).toBe(201);
  }
  desk = await provisionDesk(h.app, { merchant: { name: 'Book Bazaar', approve: true } });
  p = await pools(h)(
    [
      { card: card(11), holder: 'Anna Karenina', bank: 'Sberbank' },
      { phone: '+7 900 555-66-77', holder: 'Boris Godunov', bank: 'Tinkoff' },
    ],
    { name: 'Platform pool' },
  );
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[0].id}`, { label: 'Main card', dailyLimit: '250000', maxAmount: '50000' });
  const order = async (amount: number, extra: Record<string, unknown> = {}) => {
    const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount, currency: 'RUB', rail: 'C2c', ...extra }) });
    expect(res.statusCode, res.body).toBe(201);
    return json(res).result;
  };
  // Paid and matched at once, so the requisite has money today.
  const paid = await order(918);
  await sendCredit(h, p, credit(h, paid.payment.card ?? paid.payment.phone, '918.00'));
  seeded.paid = paid;
  // Money on an account no requisite has.
  seeded.unknown = await sendCredit(h, p, credit(h, '4000 0000 0000 0002', '12500.00', { payer: 'OOO Romashka', reference: 'INV-2026-0142' }));
  // Money two expired orders of one amount could be (both on the main card: the other requisite rests meanwhile).
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[1].id}`, { state: 'paused' });
  const first = await order(700, { lifetimeMinutes: 5 });
  h.clock.advance(6 * 60_000);
  await expireDueOrders(h.ctx, 100);
  const second = await order(700, { lifetimeMinutes: 5 });
  h.clock.advance(6 * 60_000);
  await expireDueOrders(h.ctx, 100);
  await admin(h.app, 'PATCH', `/requisites/${p.requisites[1].id}`, { state: 'active' });
  seeded.ambiguous = await sendCredit(h, p, credit(h, first.payment.card ?? first.payment.phone, '700.00', { payer: 'IVAN PETROV' }));
  expect(seeded.ambiguous.reason).toBe('ambiguous');
  seeded.late = [first, second];
  // Money near an open order's amount.
  seeded.near = await order(1500);
  seeded.differs = await sendCredit(h, p, credit(h, seeded.near.payment.card ?? seeded.near.payment.phone, '1499.50', { payer: 'MARIA S.' }));
  seeded.open = await order(2750);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Kolkata' });
  const page = await context.newPage();
  const seen = watch(page);
  // Danger buttons ask once more (office.js): the operator says yes.
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${h.origin}/office/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${h.origin}/office`);
  return { context, page, seen };
}

/**
 * axe at both widths and a screenshot of each, nothing sideways at 390 px, every list's columns
 * inside their box at 1280 px. A page answered with the status it is meant to have (a refusal's
 * 400 or 409) is logged by Chromium as a failed load: that line alone is expected.
 */
async function pageChecks(page: Page, seen: ReturnType<typeof watch>, name: string, status?: 400 | 409): Promise<void> {
  if (status) {
    const expected = `the server responded with a status of ${status}`;
    seen.problems.splice(0, seen.problems.length, ...seen.problems.filter((m) => !m.includes(expected)));
  }
  await checkPage(page, seen, h.origin, `reconciliation-${name}`);
  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      lists: [...document.querySelectorAll('.rc-list')].map((l) => ({ id: l.id, over: l.scrollWidth - l.clientWidth })).filter((l) => l.over > 0),
    }));
    expect(overflow.page, `${name} scrolls sideways at ${label} width`).toBeLessThanOrEqual(0);
    expect(overflow.lists, `${name}: a list wider than its box at ${label} width`).toEqual([]);
  }
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!hasChromium)('reconciliation pages in Chromium', () => {
  it('an admin works the credits queue: a candidate matched, a differing amount forced, a credit ignored', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      const nav = page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /Unmatched credits/ });
      expect(await nav.textContent()).toContain('3');
      await nav.click();
      await page.waitForURL(`${h.origin}/office/credits`);
      await pageChecks(page, seen, 'credits');

      // The ambiguous credit: match it with the second of its two candidates.
      const ambiguous = page.locator(`#credit-${seeded.ambiguous.id}`);
      expect(await ambiguous.getByRole('link', { name: seeded.late[0].id }).count()).toBe(1);
      await ambiguous.getByRole('button', { name: `Match with ${seeded.late[1].id}` }).click();
      await page.getByText('Credit matched').waitFor();
      expect(await page.locator(`#credit-${seeded.ambiguous.id}`).count()).toBe(0);
      expect(json(await admin(h.app, 'GET', `/orders/${seeded.late[1].id}`)).result.status).toBe('Completed');

      // The differing amount: typed by hand, refused with the difference, then forced.
      const differs = page.locator(`#credit-${seeded.differs.id}`);
      await differs.getByLabel('Order this credit pays').fill(seeded.near.id);
      await differs.getByRole('button', { name: 'Match', exact: true }).click();
      await page.locator('#amount-mismatch').waitFor();
      expect(await page.locator('#difference').textContent()).toContain('-0.50 RUB');
      await pageChecks(page, seen, 'amount-mismatch', 409);
      await page.getByRole('button', { name: 'Match anyway' }).click();
      await page.getByText('Credit matched').waitFor();
      expect(json(await admin(h.app, 'GET', `/credits/${seeded.differs.id}`)).result).toMatchObject({ status: 'matched', difference: '-0.50' });

      // The unknown account: its own page, then ignored with a reason.
      await page.locator(`#credit-${seeded.unknown.id} h2 a`).click();
      await page.waitForURL(`${h.origin}/office/credits/${seeded.unknown.id}`);
      await pageChecks(page, seen, 'credit');
      await page.getByLabel(/Why it needs no order/).fill('Payment for an invoice outside the gateway');
      await page.getByRole('button', { name: 'Ignore' }).click();
      await page.getByText('Credit ignored').waitFor();
      expect(json(await admin(h.app, 'GET', `/credits/${seeded.unknown.id}`)).result.status).toBe('ignored');
      await page.goto(`${h.origin}/office/credits?status=any`);
      await pageChecks(page, seen, 'credits-all');
    } finally {
      await context.close();
    }
  }, 180_000);

  it('an admin keeps requisites, uploads a statement and reads the day report', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Reconciliation' }).click();
      await pageChecks(page, seen, 'pools');
      await page.getByRole('link', { name: 'Platform pool' }).click();
      await page.waitForURL(`${h.origin}/office/pools/${p.id}`);
      await pageChecks(page, seen, 'pool');

      // A statement with the open order's money and a stranger's.
      const account = seeded.open.payment.card ?? seeded.open.payment.phone;
      const at = new Date(h.clock.now()).toISOString();
      const csv = ['transactionId,account,amount,currency,receivedAt,payer,reference', `bank-1,${account},2750.00,RUB,${at},PAVEL D.,`, `bank-2,4000000000000077,99.00,RUB,${at},,`].join('\r\n');
      await page.getByLabel('Statement file').setInputFiles({ name: 'statement-2026-01-15.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Upload statement' }).click();
      await page.locator('#statement-summary').waitFor();
      const summary = await page.locator('#statement-summary dl').innerText();
      expect(summary.replace(/\s+/g, ' ')).toContain('Entries 2 Credits 2 Duplicates 0 Matched 1 Unmatched 1 Skipped 0');
      await pageChecks(page, seen, 'statement-summary');
      await page.getByLabel('Statement file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await page.getByRole('button', { name: 'Upload statement' }).click();
      await page.locator('#statement-error').waitFor();
      expect(await page.locator('#statement-error').textContent()).toContain('STATEMENT_INVALID');
      await pageChecks(page, seen, 'statement-invalid', 400);

      // A new requisite, then its limits changed and it paused.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      const form = page.locator('form[action$="/requisites"]');
      await form.getByLabel('Card number').fill('2200 1500 0000 0099');
      await form.getByLabel('Holder').fill('Vera S.');
      await form.getByLabel('Label', { exact: true }).fill('Spare card');
      await form.getByRole('button', { name: 'Add requisite' }).click();
      await page.getByText('Requisite added').waitFor();
      await page.getByRole('link', { name: 'Spare card', exact: true }).click();
      await pageChecks(page, seen, 'requisite');
      await page.getByLabel('Largest order').fill('40000');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Requisite saved').waitFor();
      await page.getByRole('button', { name: /^Pause/ }).click();
      await page.getByText('Requisite paused').waitFor();
      const spare = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result.find((r: any) => r.label === 'Spare card');
      expect(spare).toMatchObject({ maxAmount: '40000.00', state: 'paused' });

      await page.goto(`${h.origin}/office/pools/${p.id}`);
      await page.getByRole('link', { name: 'Day report' }).click();
      await page.waitForURL(new RegExp(`/office/pools/${p.id}/report`));
      await pageChecks(page, seen, 'report');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      const text = await (await download.createReadStream()).toArray();
      const lines = Buffer.concat(text.map((c) => Buffer.from(c))).toString('utf8').trimEnd().split('\r\n');
      const api = json(await admin(h.app, 'GET', `/reconciliation?providerId=${p.id}&date=2026-01-15`)).result;
      expect(lines).toHaveLength(api.requisites.length + 2);
      expect(lines[lines.length - 1]).toContain(`,${api.totals.completedAmount},${api.totals.credits},${api.totals.creditsAmount},`);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('an admin reads the bank statements with their checks, sees the home page\'s warning, keeps a CSV profile with a preview and uploads with it', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      // Two statements of one account: the second leaves a gap and its balances do not add up.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      const upload = async (name: string, xml: string) => {
        await page.getByLabel('Statement file').setInputFiles({ name, mimeType: 'application/xml', buffer: Buffer.from(xml) });
        await page.getByRole('button', { name: 'Upload statement' }).click();
        await page.locator('#statement-summary').waitFor();
      };
      await upload('camt053-2026-01-12.xml', camt053('STM-0112', { from: '2026-01-10', to: '2026-01-12', opening: '15000.00', closing: '15000.00', entries: [['500.00', 'CRDT', 'B-100', 'OLGA N.'], ['500.00', 'DBIT', 'B-101', 'Bank fee']] }));
      await upload(
        'camt053-2026-01-15.xml',
        camt053('STM-0115', { from: '2026-01-15', to: '2026-01-15', opening: '14800.00', closing: '16000.00', entries: [['1250.00', 'CRDT', 'B-200', 'SERGEI V.'], ['40.00', 'DBIT', 'B-201', 'Bank fee']] }),
      );
      expect(await page.locator('[data-field="balance-check"]').innerText()).toContain('inconsistent');
      expect(await page.locator('[data-field="continuity"]').innerText()).toContain('gap');
      await pageChecks(page, seen, 'statement-summary-findings');

      await page.getByRole('link', { name: 'Open the statement' }).click();
      await page.locator('#statement-findings').waitFor();
      expect(await page.locator('#statement-findings').innerText()).toContain('no statement for 2026-01-13 to 2026-01-14');
      await pageChecks(page, seen, 'statement');
      await page.getByRole('navigation', { name: 'Entries by outcome' }).getByRole('link', { name: 'Skipped' }).click();
      await page.waitForURL(/outcome=skipped/);
      expect(await page.locator('#entries tbody tr').count()).toBe(1);
      await pageChecks(page, seen, 'statement-skipped');

      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Bank statements' }).click();
      await page.waitForURL(`${h.origin}/office/statements`);
      expect(await page.locator('#statements tbody tr').count()).toBe(3);
      await pageChecks(page, seen, 'statements');

      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Dashboard' }).click();
      await page.locator('#statement-findings').waitFor();
      expect(await page.locator('#statement-findings').innerText()).toContain('camt053-2026-01-15.xml');
      await pageChecks(page, seen, 'home-findings');

      await page.goto(`${h.origin}/office/pools/${p.id}/report?date=2026-01-15`);
      expect(await page.locator('#day-statements tbody tr').count()).toBe(3);
      await pageChecks(page, seen, 'report-statements');

      // A CSV profile for the bank's own export, previewed before it is saved.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      await page.getByRole('link', { name: 'CSV profiles (0)' }).click();
      await page.locator('#profiles-empty').waitFor();
      await pageChecks(page, seen, 'profiles-empty');
      await page.getByRole('link', { name: 'New CSV profile' }).click();
      await pageChecks(page, seen, 'profile-new');
      expect(await sharedFieldNames(page, '#profile-form')).toEqual([]);
      const form = page.locator('#profile-form');
      await form.getByLabel('Name', { exact: true }).fill('Sberbank CSV');
      await form.getByLabel('Delimiter').selectOption('semicolon');
      await form.getByLabel('Encoding').fill('windows-1251');
      await form.getByLabel('Lines before the header').fill('1');
      await form.getByLabel('Decimal separator').selectOption(',');
      await form.getByLabel('Thousands separator').selectOption('space');
      await form.getByLabel('Date format').fill('DD.MM.YYYY HH:mm');
      await form.getByLabel('Time zone').fill('Europe/Moscow');
      await form.getByLabel('Booking date').fill('Дата');
      await form.getByLabel('Amount, signed').fill('Сумма');
      await form.getByLabel('Account', { exact: true }).fill('Счёт');
      await form.getByLabel('Payer', { exact: true }).fill('Плательщик');
      await form.getByLabel('Payer’s reference').fill('Назначение');
      await form.getByLabel('Bank’s reference').fill('Номер');
      await form.getByLabel('Every row’s currency').fill('RUB');
      await form.getByLabel('A statement exported by the bank').setInputFiles({ name: 'sber-2026-01-15.csv', mimeType: 'text/csv', buffer: SBER_CSV });
      await form.getByRole('button', { name: 'Preview' }).click();
      await page.locator('#preview-summary').waitFor({ timeout: 5000 }).catch(async (e) => {
        console.log('DEBUG', await page.locator('main').innerText());
        throw e;
      });
      expect(await page.locator('#preview-summary').innerText()).toContain('The first 4 rows read as 2 credits, 1 unreadable and 1 skipped.');
      expect(await page.locator('#preview-rows').innerText()).toContain('ИВАН ПЕТРОВ');
      expect(json(await admin(h.app, 'GET', `/providers/${p.id}/statement-profiles`)).result).toEqual([]);
      await pageChecks(page, seen, 'profile-preview');
      // A wrong setting shows what the file would become with it.
      await form.getByLabel('Delimiter').selectOption('comma');
      await form.getByRole('button', { name: 'Preview' }).click();
      await page.locator('#preview-problem').waitFor();
      await pageChecks(page, seen, 'profile-preview-problem');
      await form.getByLabel('Delimiter').selectOption('semicolon');
      await form.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('CSV profile saved').waitFor();
      await pageChecks(page, seen, 'profiles');
      const [profile] = json(await admin(h.app, 'GET', `/providers/${p.id}/statement-profiles`)).result;
      expect(profile).toMatchObject({ name: 'Sberbank CSV', delimiter: ';', encoding: 'windows-1251', columns: { amount: 'Сумма', receivedAt: 'Дата' } });
      seeded.profile = profile;
      await page.getByRole('link', { name: 'Sberbank CSV' }).click();
      await page.locator('#profile-form').waitFor();
      await pageChecks(page, seen, 'profile');

      // The bank's export uploaded with its profile: its credits recorded, the statement linked.
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      await page.getByLabel('Statement file').setInputFiles({ name: 'sber-2026-01-15.csv', mimeType: 'text/csv', buffer: SBER_CSV });
      await page.getByLabel('Read it as').selectOption(profile.id);
      await page.getByRole('button', { name: 'Upload statement' }).click();
      await page.locator('#statement-summary').waitFor();
      expect((await page.locator('#statement-summary dl').innerText()).replace(/\s+/g, ' ')).toContain('Format CSV (bank profile) Entries 4 Credits 2');
      await pageChecks(page, seen, 'statement-summary-profile');
      await page.getByRole('link', { name: 'Open the statement' }).click();
      await page.locator('#entries').waitFor();
      // The credit an entry made, with the entry that evidences it.
      await page.locator('#entries tbody tr').first().getByRole('link', { name: /^crd_/ }).click();
      await page.locator('#evidence').waitFor();
      expect(await page.locator('#evidence').innerText()).toContain('sber-2026-01-15.csv');
      await pageChecks(page, seen, 'credit-evidence');
    } finally {
      await context.close();
    }
  }, 240_000);

  it('an admin meets an already paid credit, the refusals of a match, and ignores a filtered queue at once', async () => {
    const { context, page, seen } = await signIn('ada@paygate.example');
    try {
      // A second payment for the order that was paid in the set-up.
      const again = await sendCredit(h, p, credit(h, seeded.paid.payment.card ?? seeded.paid.payment.phone, '918.00', { payer: 'ANNA K.' }));
      expect(again.reason).toBe('already paid');
      await page.goto(`${h.origin}/office/credits/${again.id}`);
      expect(await page.getByRole('button', { name: /^Match/ }).count()).toBe(0);
      expect(await page.getByText('paid already', { exact: true }).count()).toBe(1);
      await pageChecks(page, seen, 'credit-already-paid');

      // Money on the other requisite than the one the order was given.
      const o = await gatewayOrder(desk, 633);
      const requisites: any[] = json(await admin(h.app, 'GET', `/providers/${p.id}/requisites`)).result;
      const given = requisites.find((r) => (r.payment.card ?? null) === (o.payment.card ?? null) && (r.payment.phone ?? null) === (o.payment.phone ?? null))!;
      const other = requisites.find((r) => r.id !== given.id && r.state === 'active')!;
      const elsewhere = await sendCredit(h, p, credit(h, other.payment.card ?? other.payment.phone, '633.00', { payer: 'DMITRY K.' }));
      await page.goto(`${h.origin}/office/credits/${elsewhere.id}`);
      await page.getByLabel('Order this credit pays').fill(o.id);
      await page.getByRole('button', { name: 'Match', exact: true }).click();
      await page.locator('#requisite-mismatch').waitFor();
      await pageChecks(page, seen, 'requisite-mismatch', 409);

      // A sandbox order: refused, no forced match offered.
      const sandboxDesk = await provisionDesk(h.app, { merchant: { name: 'Test Kitchen' } });
      const so = await gatewayOrder(sandboxDesk, 633);
      await page.goto(`${h.origin}/office/credits/${elsewhere.id}`);
      await page.getByLabel('Order this credit pays').fill(so.id);
      await page.getByRole('button', { name: 'Match', exact: true }).click();
      await page.locator('#sandbox-order').waitFor();
      expect(await page.getByRole('button', { name: 'Match anyway' }).count()).toBe(0);
      await pageChecks(page, seen, 'sandbox-order', 409);
      await page.getByLabel('Order this credit pays').fill(o.id);
      await page.getByRole('button', { name: 'Match', exact: true }).click();
      await page.locator('#requisite-mismatch').waitFor();
      // The refusal answered 409 once more: Chromium's line about it is expected.
      seen.problems.splice(0, seen.problems.length, ...seen.problems.filter((m) => !m.includes('status of 409')));
      await page.getByRole('button', { name: 'Match anyway' }).click();
      await page.getByText('Credit matched').waitFor();
      expect(json(await admin(h.app, 'GET', `/credits/${elsewhere.id}`)).result).toMatchObject({ status: 'matched', orderId: o.id });

      // The pool's queue ignored at once: the statements' unknown-account credits and the rest.
      await page.goto(`${h.origin}/office/credits?providerId=${p.id}`);
      const waiting = json(await admin(h.app, 'GET', `/credits?status=unmatched&providerId=${p.id}&limit=500`)).result.items.length;
      expect(waiting).toBeGreaterThan(1);
      await page.getByText(`Ignore these ${waiting} credits at once`).click();
      await page.getByLabel('Why they need no order').fill('Bank test transfers, refunded on 2026-01-15');
      await pageChecks(page, seen, 'credits-ignore-queue');
      await page.getByRole('button', { name: `Ignore ${waiting} credits` }).click();
      await page.getByText(`${waiting} credits ignored`).waitFor();
      expect(json(await admin(h.app, 'GET', `/credits?status=unmatched&providerId=${p.id}`)).result.items).toEqual([]);
      await pageChecks(page, seen, 'credits-ignored-queue');
    } finally {
      await context.close();
    }
  }, 180_000);

  it('a support operator reads the queue and the pool without their forms', async () => {
    const { context, page, seen } = await signIn('sam@paygate.example');
    try {
      await page.goto(`${h.origin}/office/credits?status=any`);
      expect(await page.getByRole('button', { name: /Match|Ignore/ }).count()).toBe(0);
      expect(await page.getByText('Matching and ignoring credits is for administrators.').count()).toBeGreaterThan(0);
      await pageChecks(page, seen, 'credits-support');
      await page.goto(`${h.origin}/office/pools/${p.id}`);
      expect(await page.getByRole('button', { name: /Pause|Upload|Add requisite/ }).count()).toBe(0);
      await pageChecks(page, seen, 'pool-support');
      await page.goto(`${h.origin}/office/statements`);
      await page.locator('#statements').getByRole('link', { name: 'camt053-2026-01-15.xml' }).click();
      await page.locator('#statement-findings').waitFor();
      await pageChecks(page, seen, 'statement-support');
      await page.goto(`${h.origin}/office/pools/${p.id}/profiles/${seeded.profile.id}`);
      expect(await page.locator('#profile-form').count()).toBe(0);
      expect(await page.getByText('Changing CSV profiles is for administrators.').count()).toBe(1);
      await pageChecks(page, seen, 'profile-support');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('the cabinet\'s balance page downloads the statement of live money', async () => {
    const email = 'owner@bookbazaar.example';
    expect((await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email, password: CABINET_PASSWORD })).statusCode).toBe(201);
    const context = await browser.newContext({ viewport: PHONE, timezoneId: 'Asia/Kolkata', acceptDownloads: true });
    const page = await context.newPage();
    const seen = watch(page);
    try {
      await page.goto(`${h.origin}/cabinet/sign-in`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(CABINET_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${h.origin}/cabinet`);
      await page.goto(`${h.origin}/cabinet/balance`);
      await checkPage(page, seen, h.origin, 'cabinet-balance-statement');
      await page.setViewportSize(PHONE);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download statement (CSV)' }).click()]);
      expect(download.suggestedFilename()).toBe('statement-2026-01-01-2026-01-15.csv');
      const chunks = await (await download.createReadStream()).toArray();
      const rows = Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8').trimEnd().split('\r\n');
      expect(rows[0]).toBe('at,type,orderId,withdrawalId,amountUsd,balanceUsd');
      expect(rows[1]).toMatch(/^2026-01-01T00:00:00Z,opening,,,,0\.00000000$/);
      expect(rows[rows.length - 1]).toMatch(/^2026-01-15T23:59:59Z,closing,,,,\d+\.\d{8}$/);
      expect(rows.length).toBeGreaterThan(3);
    } finally {
      await context.close();
    }
  }, 120_000);
});
