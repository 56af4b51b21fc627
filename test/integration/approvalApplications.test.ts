import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { adminCall, listen, SocketBrowser } from '../helpers/sockets.js';

/*
 * Asking for approval (web spec, "A money-right first day"): the cabinet's application form with
 * its statuses, the back office's review queue and decisions, the operator API's read and reject,
 * the decision mails from the outbox and the audit trail; every request over real HTTP. Run on
 * PGlite, and on PostgreSQL with DATABASE_URL set.
 */

const PASSWORD = 'correct horse battery staple';
const OPERATOR_PASSWORD = 'operator passphrase 2026';
let h: Harness;
let origin: string;
let n = 0;

beforeAll(async () => {
  h = await createHarness({ env: { OFFICE_REQUIRE_2FA: 'false', PUBLIC_BASE_URL: 'https://pay.example.test' } });
  origin = await listen(h);
  // A default tariff: approvals here are about the application, not about pricing (firstDay.test.ts).
  expect((await adminCall(origin, 'POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], default: true })).status).toBe(201);
}, 600_000);
afterAll(() => h?.close());

/** Sign-ups and sign-ins from one address are limited to 10 a minute: each flow starts a minute later. */
const nextMinute = () => h.clock.advance(61_000);

async function signUp(company: string): Promise<{ b: SocketBrowser; email: string; merchantId: string }> {
  nextMinute();
  const b = new SocketBrowser(origin);
  const email = `owner${++n}@applicant.example`;
  await b.get('/cabinet/sign-up');
  const res = await b.post('/cabinet/sign-up', [['company', company], ['email', email], ['password', PASSWORD]]);
  expect(res.status, res.body.slice(0, 300)).toBe(303);
  const merchants = (await adminCall(origin, 'GET', '/merchants?status=UnderReview')).json.result.items as { id: string; name: string }[];
  return { b, email, merchantId: merchants.find((m) => m.name === company)!.id };
}

async function operator(role: 'admin' | 'support'): Promise<{ b: SocketBrowser; id: string }> {
  nextMinute();
  const email = `${role}-${++n}@office.example`;
  const made = await adminCall(origin, 'POST', '/operators', { email, password: OPERATOR_PASSWORD, role });
  expect(made.status, made.body).toBe(201);
  const b = new SocketBrowser(origin);
  await b.get('/office/sign-in');
  expect((await b.post('/office/sign-in', [['email', email], ['password', OPERATOR_PASSWORD]])).status).toBe(303);
  await b.get('/office');
  return { b, id: made.json.result.id };
}

const COMPLETE: [string, string][] = [
  ['legalName', 'Sakura Trading GmbH'],
  ['country', 'DE'],
  ['website', 'https://sakura.example.com'],
  ['description', 'Green tea and tea ware, sold online to customers in Europe and Central Asia.'],
  ['monthlyVolumeUsd', '25000.50'],
  ['contact', 'Anna Weber, +49 30 1234567, anna@sakura.example.com'],
];
const submitted = (fields: [string, string][] = COMPLETE): [string, string][] => [...fields, ['submit', 'true']];
const replaced = (name: string, value: string): [string, string][] => COMPLETE.map(([k, v]) => [k, k === name ? value : v]);

const application = async (merchantId: string) => (await adminCall(origin, 'GET', `/merchants/${merchantId}/application`)).json.result;
const mails = async (kind: string) =>
  (await h.ctx.db.query<{ to_address: string; kind: string; lang: string; data: Record<string, string> }>('SELECT to_address, kind, lang, data FROM mail_outbox WHERE kind = $1 ORDER BY created_at, id', [kind])).rows;
/** The merchant's audit entries of the application's life (submissions and decisions), newest first. */
const auditOf = async (id: string) =>
  ((await adminCall(origin, 'GET', `/audit?objectId=${id}`)).json.result.items as { actor: string; action: string; outcome: string }[])
    .filter((e) => ['application.submit', 'merchant.reject', 'merchant.approve'].includes(e.action))
    .map((e) => `${e.actor} ${e.action} ${e.outcome}`);
/** The per-field messages of a refused form, in the order the page lists them. */
const problemsOf = (body: string) => [...body.matchAll(/<span class="field-error" id="app-(\w+)-error">([^<]*)<\/span>/g)].map((m) => `${m[1]}: ${m[2]}`);

describe('the application in the cabinet', () => {
  it('a new merchant is asked to apply; a draft keeps what was typed and any field may be empty', async () => {
    const { b, merchantId } = await signUp('Sakura Tea');
    const home = await b.get('/cabinet');
    expect(home.body).toContain('Apply for approval');
    expect(home.body).toContain('href="/cabinet/application"');
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}/application`)).json).toMatchObject({ status: 'error', fault: { code: 'APPLICATION_NOT_FOUND' } });

    const form = await b.get('/cabinet/application');
    expect(form.status).toBe(200);
    for (const name of ['legalName', 'country', 'website', 'description', 'monthlyVolumeUsd', 'contact']) expect(form.body).toContain(`name="${name}"`);
    expect(form.body).toContain('<button type="submit" name="submit" value="true">Submit for review</button>');
    expect(form.body).toContain('<option value="KZ">Kazakhstan</option>');

    const draft = await b.post('/cabinet/application', [['legalName', '  Sakura   Trading GmbH '], ['country', 'de'], ['submit', 'false']]);
    expect(draft.status, draft.body.slice(0, 400)).toBe(303);
    expect(draft.location).toBe('/cabinet/application?done=saved');
    expect(await application(merchantId)).toEqual({
      status: 'draft', legalName: 'Sakura Trading GmbH', country: 'DE', website: null, description: null, monthlyVolumeUsd: null, contact: null, submittedAt: null, decidedAt: null, reason: null,
    });
    const again = await b.get('/cabinet/application?done=saved');
    expect(again.body).toContain('Draft saved');
    expect(again.body).toContain('value="Sakura Trading GmbH"');
    expect(again.body).toContain('<option value="DE" selected>Germany</option>');
    expect((await b.get('/cabinet')).body).toContain('Your application is a draft');
    // Drafts are not waiting for anyone: no audit entry, no mail.
    expect(await auditOf(merchantId)).toEqual([]);
  });

  it('a submission needs every field, each checked: problems named beside their fields, what was typed kept, nothing saved', async () => {
    const { b, merchantId } = await signUp('Checked Goods');
    await b.get('/cabinet/application');
    const empty = await b.post('/cabinet/application', [['submit', 'true']]);
    expect(empty.status).toBe(400);
    expect(problemsOf(empty.body).map((p) => p.split(':')[0])).toEqual(['legalName', 'country', 'website', 'description', 'monthlyVolumeUsd', 'contact']);
    expect(empty.body).toContain('6 fields need a change; nothing was saved');

    const bad = await b.post('/cabinet/application', submitted([
      ['legalName', '12345'],
      ['country', 'XX'],
      ['website', 'javascript:alert(1)'],
      ['description', 'Tea'],
      ['monthlyVolumeUsd', '1.234'],
      ['contact', 'Anna\u0007 <b>Weber</b>'],
    ]));
    expect(bad.status).toBe(400);
    expect(problemsOf(bad.body)).toEqual([
      'legalName: Legal name: must contain letters, in any script',
      'country: Country: an ISO 3166-1 country code, such as DE or KZ',
      'website: Website: an address starting with https:// or http://, such as https://shop.example.com',
      'description: What you sell: 20 to 2000 characters (now 3)',
      'monthlyVolumeUsd: Monthly volume: an amount in USD with at most 2 decimals, such as 25000 or 1500.50',
      'contact: Contact: contains a character that cannot be shown (a control or direction-override character)',
    ]);
    // Each field points at its message; what was typed is back, escaped.
    expect(bad.body).toContain('aria-describedby="app-website-hint app-website-error" aria-invalid="true" value="javascript:alert(1)"');
    expect(bad.body).toContain('&lt;b&gt;Weber&lt;/b&gt;');
    expect(bad.body).not.toContain('<b>Weber</b>');
    expect(bad.body).toContain('<a href="#app-country">');

    for (const [field, value, message] of [
      ['monthlyVolumeUsd', '0', 'Monthly volume: must be greater than zero'],
      ['monthlyVolumeUsd', '-5', 'Monthly volume: an amount in USD'],
      ['monthlyVolumeUsd', '1e5', 'Monthly volume: an amount in USD'],
      ['monthlyVolumeUsd', '12345678901234', 'Monthly volume: an amount in USD'],
      ['website', 'sakura.example.com', 'Website: an address starting with https://'],
      ['website', 'https://anna:secret@sakura.example.com', 'Website: an address without a user name or password'],
      ['website', 'https://localhost', 'Website: a full address with its domain'],
      ['legalName', 'A', 'Legal name: 2 to 200 characters (now 1)'],
      ['legalName', `Sakura \u202Eevil`, 'Legal name: contains a character that cannot be shown'],
      ['contact', '!!', 'Contact: 3 to 200 characters (now 2)'],
    ] as const) {
      const res = await b.post('/cabinet/application', submitted(replaced(field, value)));
      expect(res.status, `${field}=${value}`).toBe(400);
      expect(problemsOf(res.body), `${field}=${value}`).toHaveLength(1);
      expect(problemsOf(res.body)[0], `${field}=${value}`).toContain(`${field}: ${message}`);
    }
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}/application`)).status).toBe(404);
  });

  it('takes names in any script, counting characters rather than bytes', async () => {
    const { b, merchantId } = await signUp('Scripts');
    await b.get('/cabinet/application');
    for (const name of ['ООО «Ромашка»', '株式会社', 'شركة الشاي', 'Çay Evi Ltd. Şti.', '茶'.repeat(200)]) {
      const res = await b.post('/cabinet/application', [['legalName', name], ['submit', 'false']]);
      expect(res.status, name).toBe(303);
      expect((await application(merchantId)).legalName).toBe(name);
    }
    // 200 four-byte characters are 200 characters; the 201st is one too many.
    const emoji = await b.post('/cabinet/application', [['legalName', `Tea ${'🍵'.repeat(196)}`], ['submit', 'false']]);
    expect(emoji.status).toBe(303);
    const long = await b.post('/cabinet/application', [['legalName', '茶'.repeat(201)], ['submit', 'false']]);
    expect(long.status).toBe(400);
    expect(problemsOf(long.body)).toEqual(['legalName: Legal name: 2 to 200 characters (now 201)']);
    // A line break in the description is kept; a single-line field's runs of space become one.
    const fields = COMPLETE.map(([k, v]): [string, string] => [k, k === 'contact' ? 'Anna\t  Weber,   anna@sakura.example.com' : k === 'description' ? 'Green tea, for shops.\r\nTea ware, sold online.' : v]);
    expect((await b.post('/cabinet/application', submitted(fields))).status).toBe(303);
    expect(await application(merchantId)).toMatchObject({ status: 'submitted', contact: 'Anna Weber, anna@sakura.example.com', description: 'Green tea, for shops.\nTea ware, sold online.' });
  });

  it('only an owner writes it: a developer reads it and gets 403 posting it', async () => {
    const { merchantId } = await signUp('Team Tea');
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/users`, { email: `dev${++n}@applicant.example`, password: PASSWORD, role: 'developer' })).status).toBe(201);
    nextMinute();
    const dev = new SocketBrowser(origin);
    await dev.get('/cabinet/sign-in');
    expect((await dev.post('/cabinet/sign-in', [['email', `dev${n}@applicant.example`], ['password', PASSWORD]])).status).toBe(303);
    const page = await dev.get('/cabinet/application');
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('id="application-form"');
    expect(page.body).toContain('An owner of Team Tea fills in and submits the application.');
    const refused = await dev.post('/cabinet/application', submitted());
    expect(refused.status).toBe(403);
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}/application`)).status).toBe(404);
  });
});

describe('submitted, reviewed, rejected, submitted again, approved', () => {
  let owner: SocketBrowser;
  let merchantId: string;
  let ownerEmail: string;
  let secondOwner: string;
  let adm: { b: SocketBrowser; id: string };
  let support: { b: SocketBrowser; id: string };

  beforeAll(async () => {
    ({ b: owner, merchantId, email: ownerEmail } = await signUp('Queue Tea'));
    secondOwner = `owner2-${++n}@applicant.example`;
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/users`, { email: secondOwner, password: PASSWORD, role: 'owner' })).status).toBe(201);
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/users`, { email: `viewer${++n}@applicant.example`, password: PASSWORD, role: 'viewer' })).status).toBe(201);
    adm = await operator('admin');
    support = await operator('support');
  });

  it('rejecting needs a submitted application: none, a draft and an unknown merchant are refused, and nothing is mailed', async () => {
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/reject`, { reason: 'Tell us more about the goods.' })).json.fault).toEqual({
      code: 'APPLICATION_NOT_SUBMITTED',
      detail: `merchant ${merchantId} has not written an application`,
    });
    await owner.get('/cabinet/application');
    expect((await owner.post('/cabinet/application', [['legalName', 'Queue Tea LLP'], ['submit', 'false']])).status).toBe(303);
    const draft = await adminCall(origin, 'POST', `/merchants/${merchantId}/reject`, { reason: 'Tell us more about the goods.' });
    expect(draft.status).toBe(409);
    expect(draft.json.fault).toEqual({ code: 'APPLICATION_NOT_SUBMITTED', detail: 'the application is draft, not submitted' });
    expect((await adminCall(origin, 'POST', '/merchants/mer_unknown/reject', { reason: 'Tell us more.' })).json.fault.code).toBe('MERCHANT_NOT_FOUND');
    expect((await adminCall(origin, 'GET', '/merchants/mer_unknown/application')).json.fault.code).toBe('MERCHANT_NOT_FOUND');
    expect(await mails('application-rejected')).toEqual([]);
  });

  it('the owner submits: audited with the user as actor, the cabinet says it waits, a second submit is 409 and changes nothing', async () => {
    await owner.get('/cabinet/application');
    const res = await owner.post('/cabinet/application', submitted());
    expect(res.status, res.body.slice(0, 400)).toBe(303);
    expect(res.location).toBe('/cabinet/application?done=submitted');
    const submittedAt = new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(await application(merchantId)).toEqual({
      status: 'submitted',
      legalName: 'Sakura Trading GmbH',
      country: 'DE',
      website: 'https://sakura.example.com',
      description: 'Green tea and tea ware, sold online to customers in Europe and Central Asia.',
      monthlyVolumeUsd: '25000.50',
      contact: 'Anna Weber, +49 30 1234567, anna@sakura.example.com',
      submittedAt,
      decidedAt: null,
      reason: null,
    });
    const userId = (await h.ctx.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [ownerEmail])).rows[0]!.id;
    expect((await auditOf(merchantId))[0]).toBe(`${userId} application.submit ok`);
    const page = await owner.get('/cabinet/application');
    expect(page.body).toContain('Submitted');
    expect(page.body).not.toContain('id="application-form"');
    expect((await owner.get('/cabinet')).body).toContain('Application submitted');

    h.clock.advance(1000);
    for (const fields of [submitted(), [...replaced('legalName', 'Other Name'), ['submit', 'false']] as [string, string][]]) {
      const twice = await owner.post('/cabinet/application', fields);
      expect(twice.status).toBe(409);
      expect(twice.body).toContain('Nothing was changed: the application is submitted and waits for a decision');
    }
    expect(await application(merchantId)).toMatchObject({ status: 'submitted', legalName: 'Sakura Trading GmbH', submittedAt });
    expect((await auditOf(merchantId)).filter((e) => e.includes('application.submit'))).toHaveLength(1);
  });

  it('the review queue shows it with its details and counts it in the navigation; support sees no decision forms', async () => {
    const queue = await adm.b.get('/office/queues/review');
    expect(queue.status).toBe(200);
    const card = queue.body.slice(queue.body.indexOf(`id="application-${merchantId}"`));
    expect(card).toContain('Queue Tea');
    expect(card).toContain('Sakura Trading GmbH');
    expect(card).toContain('Germany (DE)');
    expect(card).toContain('href="https://sakura.example.com" rel="noopener noreferrer nofollow"');
    expect(card).toContain('25,000.50 USD');
    expect(card).toContain(`action="/office/merchants/${merchantId}/reject"`);
    // Counted: this one and the one submitted above (Scripts).
    expect(queue.body).toMatch(/Applications to review <span class="count">2<span class="visually-hidden"> waiting<\/span><\/span>/);
    // The merchants that have not applied are listed apart, not counted.
    expect(queue.body).toContain('Under review without a submitted application');
    const csv = await adm.b.get('/office/queues/review.csv');
    expect(csv.body.split('\r\n')[0]).toBe('merchantId,name,applicationStatus,submittedAt,legalName,country,website,description,monthlyVolumeUsd,contact,merchantCreatedAt,desks,sandboxOrders,sandboxCompleted');
    // Submitted applications first, the longest waiting first (Scripts, then this one), then the merchants that have not applied.
    const rows = csv.body.split('\r\n');
    expect(rows[2]).toContain(`${merchantId},Queue Tea,submitted,`);
    expect(rows[3]).toMatch(/,Sakura Tea,draft,/);

    const sup = await support.b.get('/office/queues/review');
    expect(sup.body).toContain('Sakura Trading GmbH');
    expect(sup.body).not.toContain(`action="/office/merchants/${merchantId}/reject"`);
    expect((await support.b.post(`/office/merchants/${merchantId}/reject`, [['reason', 'No.']])).status).toBe(403);
    expect((await application(merchantId)).status).toBe('submitted');
  });

  it('a reject without a reason is 400 (API and page) and changes nothing', async () => {
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(1001) }]) {
      const res = await adminCall(origin, 'POST', `/merchants/${merchantId}/reject`, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.json.fault.code).toBe('VALIDATION_ERROR');
      expect(res.json.fault.detail).toMatch(/^reason/);
    }
    await adm.b.get('/office/queues/review');
    expect((await adm.b.post(`/office/merchants/${merchantId}/reject`, [['reason', ''], ['back', 'queue']])).status).toBe(400);
    expect((await application(merchantId)).status).toBe('submitted');
    expect(await mails('application-rejected')).toEqual([]);
  });

  it('an admin rejects from the queue with a reason: the owners are mailed it, the cabinet shows it, the merchant stays under review', async () => {
    h.clock.advance(60_000);
    // The second owner reads mail in Russian (the language their browser gave when they joined).
    await h.ctx.db.query(`UPDATE users SET lang = 'ru' WHERE email = $1`, [secondOwner]);
    await adm.b.get('/office/queues/review');
    const res = await adm.b.post(`/office/merchants/${merchantId}/reject`, [['reason', '  Tell us which countries your customers are in,\nand show prices on the site.  '], ['back', 'queue']]);
    expect(res.status, res.body.slice(0, 300)).toBe(303);
    expect(res.location).toBe('/office/queues/review?done=application-rejected');
    const decidedAt = new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const reason = 'Tell us which countries your customers are in,\nand show prices on the site.';
    expect(await application(merchantId)).toMatchObject({ status: 'rejected', decidedAt, reason });
    expect((await adminCall(origin, 'GET', `/merchants/${merchantId}`)).json.result.status).toBe('UnderReview');
    expect(await auditOf(merchantId)).toEqual([
      `${adm.id} merchant.reject ok`,
      'token merchant.reject VALIDATION_ERROR',
      'token merchant.reject VALIDATION_ERROR',
      expect.stringMatching(/^usr_\w+ application.submit ok$/),
      'token merchant.reject APPLICATION_NOT_SUBMITTED',
      'token merchant.reject APPLICATION_NOT_SUBMITTED',
    ]);
    // One mail per owner (the viewer gets none), with the reason and the way back to the form.
    const sent = await mails('application-rejected');
    expect(sent.map((m) => m.to_address).sort()).toEqual([ownerEmail, secondOwner].sort());
    expect(sent.map((m) => [m.to_address, m.lang]).sort()).toEqual([[ownerEmail, 'en'], [secondOwner, 'ru']].sort());
    expect(sent[0]!.data).toEqual({ merchantName: 'Queue Tea', reason, cabinetUrl: 'https://pay.example.test/cabinet/application' });
    expect((await adm.b.get('/office/queues/review?done=application-rejected')).body).not.toContain(`id="application-${merchantId}"`);

    const page = await owner.get('/cabinet/application');
    expect(page.body).toContain('Rejected');
    expect(page.body).toContain('Tell us which countries your customers are in,\nand show prices on the site.');
    expect(page.body).toContain('id="application-form"');
    expect((await owner.get('/cabinet')).body).toContain('We could not approve the application');

    // Decided already: a second rejection is refused, and mails nobody.
    const again = await adminCall(origin, 'POST', `/merchants/${merchantId}/reject`, { reason: 'Again.' });
    expect(again.json.fault).toEqual({ code: 'APPLICATION_NOT_SUBMITTED', detail: 'the application is rejected, not submitted' });
    expect(await mails('application-rejected')).toHaveLength(2);
  });

  it('the owner changes it and submits again: submitted, the last decision and its reason cleared', async () => {
    h.clock.advance(3_600_000);
    await owner.get('/cabinet/application');
    const saved = await owner.post('/cabinet/application', [...replaced('description', 'Green tea and tea ware for customers in Germany and Austria; prices on every page.'), ['submit', 'false']]);
    expect(saved.status).toBe(303);
    // Saving keeps it rejected, with its reason, until it is submitted.
    expect(await application(merchantId)).toMatchObject({ status: 'rejected', reason: expect.stringContaining('Tell us') });
    expect((await owner.post('/cabinet/application', submitted(replaced('description', 'Green tea and tea ware for customers in Germany and Austria; prices on every page.')))).status).toBe(303);
    expect(await application(merchantId)).toMatchObject({
      status: 'submitted',
      description: 'Green tea and tea ware for customers in Germany and Austria; prices on every page.',
      submittedAt: new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      decidedAt: null,
      reason: null,
    });
  });

  it('approving the merchant approves the application and mails the owners, in one transaction with the approval; the form is closed after', async () => {
    h.clock.advance(60_000);
    const page = await adm.b.get(`/office/merchants/${merchantId}`);
    expect(page.body).toContain('id="application"');
    expect(page.body).toContain('Sakura Trading GmbH');
    const res = await adm.b.post(`/office/merchants/${merchantId}/approve`);
    expect(res.status).toBe(303);
    expect(await application(merchantId)).toMatchObject({ status: 'approved', decidedAt: new Date(h.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: null });
    const sent = await mails('application-approved');
    expect(sent.map((m) => m.to_address).sort()).toEqual([ownerEmail, secondOwner].sort());
    expect(sent[0]!.data).toEqual({ merchantName: 'Queue Tea', cabinetUrl: 'https://pay.example.test/cabinet' });
    expect((await auditOf(merchantId))[0]).toBe(`${adm.id} merchant.approve ok`);

    // Approving again changes nothing and mails nobody.
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/approve`)).status).toBe(200);
    expect(await mails('application-approved')).toHaveLength(2);

    const cabinet = await owner.get('/cabinet/application');
    expect(cabinet.body).toContain('Approved');
    expect(cabinet.body).not.toContain('id="application-form"');
    const late = await owner.post('/cabinet/application', submitted());
    expect(late.status).toBe(409);
    expect(late.body).toContain('the account is approved');
    expect((await adminCall(origin, 'POST', `/merchants/${merchantId}/reject`, { reason: 'Too late.' })).json.fault.code).toBe('APPLICATION_NOT_SUBMITTED');
  });

  it('an approval without an application still mails the owners; an approval refused leaves the application and sends nothing', async () => {
    const { merchantId: direct, email } = await signUp('Direct Tea');
    expect((await adminCall(origin, 'POST', `/merchants/${direct}/approve`)).status).toBe(200);
    expect((await mails('application-approved')).filter((m) => m.to_address === email)).toHaveLength(1);
    expect((await adminCall(origin, 'GET', `/merchants/${direct}/application`)).json.fault.code).toBe('APPLICATION_NOT_FOUND');

    // No default tariff, a desk without one: TARIFF_REQUIRED, and the submitted application stays as it was.
    const { b, merchantId: refused, email: refusedOwner } = await signUp('Refused Tea');
    await b.get('/cabinet/application');
    expect((await b.post('/cabinet/application', submitted())).status).toBe(303);
    const tariffs = (await adminCall(origin, 'GET', '/tariffs')).json.result.items as { id: string; default: boolean }[];
    const standard = tariffs.find((t) => t.default)!.id;
    expect((await adminCall(origin, 'PATCH', `/tariffs/${standard}`, { default: false })).status).toBe(200);
    try {
      await b.get('/cabinet/desks');
      const desk = await b.post('/cabinet/desks', [['method', 'Classic'], ['rails', 'Sbp'], ['currencies', 'RUB'], ['minUsd', '0'], ['maxUsd', '0'], ['callbacksEnabled', 'false']]);
      expect(desk.status, desk.body.slice(0, 300)).toBe(201);
      const res = await adminCall(origin, 'POST', `/merchants/${refused}/approve`);
      expect(res.status).toBe(409);
      expect(res.json.fault.code).toBe('TARIFF_REQUIRED');
      expect(await application(refused)).toMatchObject({ status: 'submitted', decidedAt: null });
      expect((await mails('application-approved')).filter((m) => m.to_address === refusedOwner)).toEqual([]);
    } finally {
      await adminCall(origin, 'PATCH', `/tariffs/${standard}`, { default: true });
    }
  });
});
