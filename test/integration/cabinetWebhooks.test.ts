import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WebhookSender } from '../../src/callbacks/webhookSender.js';
import { admin, createHarness, json, provisionDesk, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { HttpBrowser, type HttpAnswer } from '../helpers/httpBrowser.js';
import { freePort } from '../helpers/ports.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';

/*
 * The cabinet's webhook endpoint pages over real HTTP, as a browser without JavaScript uses them:
 * the list and the new-endpoint form, the secret shown once (and it signs what the receiver gets),
 * enabling and disabling, the rotation with both secrets valid, recovery, the test event and the
 * attempt log with its pages; refusals come back as the form with the reason and its code; roles
 * decide who posts; another merchant's endpoint is not found. Run on PGlite, and on PostgreSQL
 * with DATABASE_URL set.
 */

const PASSWORD = 'correct horse battery staple';

let h: Harness & { origin: string };
let rx: Receiver;
let sender: WebhookSender;

beforeAll(async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const harness = await createHarness({ env: { PUBLIC_BASE_URL: origin, TRUST_PROXY: 'loopback', CALLBACK_ALLOWLIST: '127.0.0.1' } });
  // Deliveries are checked with a library that reads the real clock: the fake one starts at real time.
  harness.clock.set(Date.now());
  await harness.app.listen({ port, host: '127.0.0.1' });
  h = { ...harness, origin };
  rx = await startReceiver();
  sender = new WebhookSender(h.ctx, { timeoutMs: 1000, random: () => 0.5 });
}, 600_000);
afterAll(async () => {
  await sender?.stop(1000);
  await rx?.close();
  await h?.close();
});
afterEach(() => {
  rx.hits.length = 0;
  rx.respond(() => ({ status: 200, body: 'ok' }));
});

/** Runs the sender until nothing is due at the current fake time. */
async function sendDue() {
  while ((await sender.runOnce()) > 0);
}

let counter = 0;
interface Shop {
  desk: DeskCreds;
  owner: HttpBrowser;
  name: string;
}

/** A merchant with a desk (through the operator API) and an owner signed in to the cabinet. */
async function shop(): Promise<Shop> {
  const name = `Hook Shop ${++counter}`;
  const desk = await provisionDesk(h.app, { merchant: { name } });
  const owner = await member(desk, 'owner');
  return { desk, owner, name };
}

async function member(desk: DeskCreds, role: 'owner' | 'developer' | 'viewer'): Promise<HttpBrowser> {
  const email = `${role}${++counter}@hooks.example`;
  const res = await admin(h.app, 'POST', `/merchants/${desk.merchantId}/users`, { email, password: PASSWORD, role });
  expect(res.statusCode, res.body).toBe(201);
  const b = new HttpBrowser(h.origin);
  await b.get('/cabinet/sign-in');
  const signedIn = await b.post('/cabinet/sign-in', [['email', email], ['password', PASSWORD]]);
  expect(signedIn.statusCode, signedIn.body).toBe(303);
  return b;
}

/** The page's text without tags, spaces joined: what a reader sees. */
const textOf = (page: HttpAnswer) => page.body.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;|&rsquo;/g, "'").replace(/\s+/g, ' ');
const pick = (page: HttpAnswer, id: string) => new RegExp(`id="${id}"[^>]*>([^<]+)<`).exec(page.body)?.[1];

/** Fills the new-endpoint form and posts it. */
async function createEndpoint(b: HttpBrowser, fields: [string, string][]): Promise<HttpAnswer> {
  await b.get('/cabinet/webhooks');
  return b.post('/cabinet/webhooks', fields);
}

async function created(b: HttpBrowser, fields: [string, string][] = [['url', `${rx.url}/hook`], ['events', '*'], ['deskScope', 'all']]): Promise<{ id: string; secret: string; page: HttpAnswer }> {
  const page = await createEndpoint(b, fields);
  expect(page.statusCode, page.body).toBe(201);
  return { id: pick(page, 'endpoint-id')!, secret: pick(page, 'endpoint-secret')!, page };
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body.toString('utf8'), {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; data: Record<string, unknown> };

async function completedOrder(desk: DeskCreds): Promise<string> {
  const res = await signed(h, desk, '/gw/v1/orders', { body: JSON.stringify({ amount: 918, rail: 'Sbp' }) });
  expect(res.statusCode, res.body).toBe(201);
  const id = json(res).result.id as string;
  expect((await admin(h.app, 'POST', `/orders/${id}/simulate-payment`)).statusCode).toBe(200);
  return id;
}

const noStackTrace = (page: HttpAnswer) => expect(page.body).not.toMatch(/at .*\.[jt]s:\d+|Internal Server Error/);

describe('cabinet webhooks', () => {
  it('lists endpoints and creates one from the form; the secret is shown once and signs the deliveries', async () => {
    const { desk, owner } = await shop();
    const empty = await owner.get('/cabinet/webhooks');
    expect(empty.statusCode).toBe(200);
    // the navigation has it beside Callbacks, marked as the current page
    expect(empty.body).toMatch(/href="\/cabinet\/callbacks">Callbacks<\/a><a href="\/cabinet\/webhooks" aria-current="page">Webhooks<\/a>/);
    expect(textOf(empty)).toContain('No webhook endpoint yet');
    expect(empty.body).toContain('<form class="card stack" method="post" action="/cabinet/webhooks" id="new-endpoint"');

    const { id, secret, page } = await created(owner, [
      ['url', `${rx.url}/erp`],
      ['events', 'order.completed'],
      ['events', 'order.cancelled'],
      ['deskScope', 'chosen'],
      ['desks', desk.id],
      ['description', 'ERP <import>'],
    ]);
    expect(id).toMatch(/^whe_[0-9a-z]{26}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(textOf(page)).toContain('Copy it now: it is not shown again.');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(textOf(page)).toContain('How your server checks a delivery');
    expect(page.body).toContain(`href="/cabinet/webhooks/${id}"`);

    // the API sees the same endpoint, as the form said
    const api = json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result;
    expect(api).toMatchObject({ url: `${rx.url}/erp`, events: ['order.completed', 'order.cancelled'], desks: [desk.id], description: 'ERP <import>', enabled: true });

    // the list: URL, events, desks, state, created; the secret nowhere again
    const list = await owner.get('/cabinet/webhooks');
    const row = /<tr>(?:(?!<\/tr>).)*<\/tr>/s.exec(list.body.slice(list.body.indexOf('<tbody>', list.body.indexOf('id="endpoints"'))))![0];
    expect(row).toContain(`href="/cabinet/webhooks/${id}"`);
    expect(row).toContain(`${rx.url}/erp`);
    expect(row).toContain('ERP &lt;import&gt;');
    expect(row).toContain('order.completed, order.cancelled');
    expect(row).toContain(`href="/cabinet/desks/${desk.id}"`);
    expect(row).toContain('Enabled');
    expect(row).toMatch(/<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">/);
    const detail = await owner.get(`/cabinet/webhooks/${id}`);
    expect(detail.statusCode).toBe(200);
    const secretPart = secret.slice(6);
    for (const p of [list, detail]) expect(p.body).not.toContain(secretPart);

    // the secret signs a real delivery: an order of the chosen desk completes
    await completedOrder(desk);
    await sendDue();
    const hits = rx.hits.filter((r) => r.path === '/erp');
    expect(hits).toHaveLength(1);
    expect(verify(secret, hits[0]!).type).toBe('order.completed');
  });

  it('sends a test event; the attempt log shows it, newest first, and pages with "before"', async () => {
    const { owner } = await shop();
    const { id, secret } = await created(owner);
    await owner.get(`/cabinet/webhooks/${id}`);
    const sent = await owner.post(`/cabinet/webhooks/${id}/test`);
    expect(sent.statusCode).toBe(303);
    const location = sent.headers.location!;
    expect(location).toMatch(new RegExp(`^/cabinet/webhooks/${id}\\?test=evt_[0-9a-z]+$`));
    const eventId = location.split('test=')[1]!;
    const queued = await owner.get(location);
    expect(textOf(queued)).toContain(`Test event ${eventId} is queued`);

    rx.respond(() => ({ status: 204 }));
    await sendDue();
    expect(rx.hits).toHaveLength(1);
    expect(String(rx.hits[0]!.headers['webhook-id'])).toBe(eventId);
    expect(verify(secret, rx.hits[0]!)).toMatchObject({ type: 'webhook.test', data: { endpointId: id } });

    const log = await owner.get(`/cabinet/webhooks/${id}`);
    const table = log.body.slice(log.body.indexOf('id="attempt-log"'));
    expect(table).toContain(eventId);
    expect(table).toContain('webhook.test');
    expect(table).toContain('>delivered<');
    expect(table).toMatch(/data-label="Status code" class="num">204</);
    expect(table).toMatch(/data-label="Duration" class="num">\d+ ms</);

    // a failing receiver: the outcome, the code, the error and the next attempt
    rx.respond(() => ({ status: 500, body: 'down' }));
    await owner.post(`/cabinet/webhooks/${id}/test`);
    await sendDue();
    const failing = await owner.get(`/cabinet/webhooks/${id}`);
    const rows = [...failing.body.slice(failing.body.indexOf('id="attempt-log"')).matchAll(/<tr>((?:(?!<\/tr>).)*)<\/tr>/gs)].map((m) => m[1]!).slice(1);
    expect(rows).toHaveLength(2);
    // newest first: the failed attempt, retrying in 5 seconds
    expect(rows[0]).toContain('will retry');
    expect(rows[0]).toMatch(/data-label="Status code" class="num">500</);
    expect(rows[0]).toMatch(/data-label="Next attempt \(UTC\)"><time datetime="[^"]+Z">/);
    expect(rows[1]).toContain(eventId);

    // more than a page: 50 a page, "Older attempts" leads to the rest, and no row is on both
    rx.respond(() => ({ status: 200 }));
    for (let i = 0; i < 50; i++) expect((await owner.post(`/cabinet/webhooks/${id}/test`)).statusCode).toBe(303);
    await sendDue();
    const first = await owner.get(`/cabinet/webhooks/${id}`);
    const idsOf = (p: HttpAnswer) => [...p.body.slice(p.body.indexOf('id="attempt-log"')).matchAll(/<span class="mono small">(evt_[0-9a-z]+)<\/span>/g)].map((m) => m[1]!);
    expect(idsOf(first)).toHaveLength(50);
    const older = /href="(\/cabinet\/webhooks\/whe_[0-9a-z]+\?before=\d+)#attempts" rel="next"/.exec(first.body)?.[1];
    expect(older).toBeTruthy();
    const second = await owner.get(older!);
    expect(second.statusCode).toBe(200);
    expect(idsOf(second)).toHaveLength(2);
    expect(idsOf(second)).not.toContain(idsOf(first)[0]);
    expect(idsOf(second)[1]).toBe(eventId);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain(`href="/cabinet/webhooks/${id}#attempts">Newest</a>`);
    // a "before" that is no attempt id: a page saying so, not an error
    const bad = await owner.get(`/cabinet/webhooks/${id}?before=abc`);
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad)).toContain('Before: an attempt id from a previous page.');
    noStackTrace(bad);
  });

  it('refuses a bad form with the reason and its code, and keeps what was typed', async () => {
    const { desk, owner } = await shop();
    const other = await provisionDesk(h.app, { merchant: { name: 'Not Mine' } });
    const cases: { fields: [string, string][]; status: number; says: string }[] = [
      { fields: [['url', 'https://erp.example.com/a'], ['deskScope', 'all']], status: 400, says: 'Events: tick “All events” or at least one kind. (VALIDATION_ERROR)' },
      { fields: [['url', 'http://10.0.0.7/hook'], ['events', '*'], ['deskScope', 'all']], status: 400, says: '(INVALID_CALLBACK_URL)' },
      { fields: [['url', 'https://erp.example.com/b'], ['events', 'order.completed'], ['deskScope', 'chosen']], status: 400, says: 'Desks: tick at least one desk, or choose every desk. (VALIDATION_ERROR)' },
      { fields: [['url', 'https://erp.example.com/c'], ['events', '*'], ['deskScope', 'chosen'], ['desks', other.id]], status: 400, says: 'is not a desk of this merchant. (VALIDATION_ERROR)' },
      { fields: [['url', 'https://erp.example.com/d'], ['events', 'order.shipped'], ['deskScope', 'all']], status: 400, says: 'unknown event kind' },
      { fields: [['url', ''], ['events', '*'], ['deskScope', 'all']], status: 400, says: 'Url: give the address that receives the deliveries. (VALIDATION_ERROR)' },
      { fields: [['url', 'https://erp.example.com/e'], ['events', '*'], ['deskScope', 'all'], ['description', 'x'.repeat(501)]], status: 400, says: 'Description: must be at most 500 characters. (VALIDATION_ERROR)' },
      { fields: [['url', 'https://erp.example.com/f'], ['events', '*'], ['deskScope', 'sometimes']], status: 400, says: 'DeskScope: must be all or chosen. (VALIDATION_ERROR)' },
    ];
    for (const c of cases) {
      const page = await createEndpoint(owner, c.fields);
      expect(page.statusCode, JSON.stringify(c.fields)).toBe(c.status);
      expect(textOf(page), JSON.stringify(c.fields)).toContain('Nothing was created.');
      expect(textOf(page), JSON.stringify(c.fields)).toContain(c.says);
      const url = c.fields.find(([k]) => k === 'url')![1];
      if (url) expect(page.body).toContain(`value="${url}"`);
      noStackTrace(page);
    }
    expect(json(await signed(h, desk, '/gw/v1/webhook-endpoints')).result.endpoints).toEqual([]);

    // "All events" ticked with kinds beside it: all events
    const { id } = await created(owner, [['url', 'https://erp.example.com/all'], ['events', '*'], ['events', 'order.completed'], ['deskScope', 'all']]);
    expect((await owner.get(`/cabinet/webhooks/${id}`)).body).toContain('<dt>Events</dt><dd>All events</dd>');

    // an unknown field is refused, a form without its token too
    expect((await createEndpoint(owner, [['url', 'https://erp.example.com/g'], ['events', '*'], ['colour', 'red']])).statusCode).toBe(400);
    expect((await owner.post('/cabinet/webhooks', [['url', 'https://erp.example.com/h'], ['events', '*']], { csrf: null })).statusCode).toBe(403);
  });

  it('changes the settings; a refused change shows the form with the reason; disables and enables', async () => {
    const { desk, owner } = await shop();
    const { id } = await created(owner);
    await owner.get(`/cabinet/webhooks/${id}`);
    const saved = await owner.post(`/cabinet/webhooks/${id}/settings`, [
      ['url', 'https://warehouse.example.com/in'],
      ['events', 'order.appealed'],
      ['deskScope', 'chosen'],
      ['desks', desk.id],
      ['description', 'Warehouse'],
    ]);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`/cabinet/webhooks/${id}?done=saved`);
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toMatchObject({ url: 'https://warehouse.example.com/in', events: ['order.appealed'], desks: [desk.id], description: 'Warehouse' });
    const page = await owner.get(saved.headers.location!);
    expect(textOf(page)).toContain('Saved.');
    expect(page.body).toMatch(/<input type="checkbox" name="events" value="order.appealed" checked>/);
    expect(page.body).toMatch(new RegExp(`<input type="checkbox" name="desks" value="${desk.id}" checked>`));

    const refused = await owner.post(`/cabinet/webhooks/${id}/settings`, [['url', 'http://192.168.1.10/x'], ['events', '*'], ['deskScope', 'all'], ['description', '']]);
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused)).toContain('Nothing was saved.');
    expect(textOf(refused)).toContain('(INVALID_CALLBACK_URL)');
    expect(refused.body).toContain('value="http://192.168.1.10/x"');
    noStackTrace(refused);
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result.url).toBe('https://warehouse.example.com/in');
    // an empty description clears it
    await owner.post(`/cabinet/webhooks/${id}/settings`, [['url', 'https://warehouse.example.com/in'], ['events', '*'], ['deskScope', 'all'], ['description', '']]);
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toMatchObject({ events: ['*'], desks: null, description: null });

    const off = await owner.post(`/cabinet/webhooks/${id}/enabled`, [['enabled', 'false']]);
    expect(off.statusCode).toBe(303);
    expect(off.headers.location).toBe(`/cabinet/webhooks/${id}?done=off`);
    const offPage = await owner.get(off.headers.location!);
    expect(textOf(offPage)).toContain('Disabled: disabled by the merchant.');
    expect(offPage.body).toContain('Enable the endpoint');
    const listed = await owner.get('/cabinet/webhooks');
    expect(textOf(listed)).toMatch(/Disabled disabled by the merchant/);
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toMatchObject({ enabled: false, disabledReason: 'disabled by the merchant' });
    const on = await owner.post(`/cabinet/webhooks/${id}/enabled`, [['enabled', 'true']]);
    expect(on.headers.location).toBe(`/cabinet/webhooks/${id}?done=on`);
    expect((await owner.get(on.headers.location!)).body).toContain('Disable the endpoint');
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('rotates the secret after a confirmation: the new one is shown once, both sign for 24 hours', async () => {
    const { owner } = await shop();
    const { id, secret: old } = await created(owner);
    await owner.get(`/cabinet/webhooks/${id}`);
    const unconfirmed = await owner.post(`/cabinet/webhooks/${id}/rotate-secret`);
    expect(unconfirmed.statusCode).toBe(400);
    expect(textOf(unconfirmed)).toContain('Confirm: tick the box first');
    expect(textOf(unconfirmed)).toContain('(VALIDATION_ERROR)');
    expect(unconfirmed.body).toContain('id="rotate" aria-describedby="rotate-error"');

    const rotated = await owner.post(`/cabinet/webhooks/${id}/rotate-secret`, [['confirm', 'yes']]);
    expect(rotated.statusCode).toBe(200);
    const secret = pick(rotated, 'endpoint-secret')!;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(old);
    expect(textOf(rotated)).toContain('Copy it now: it is not shown again.');
    expect(textOf(rotated)).toContain('The old secret keeps working for 24 hours');
    expect((await owner.get(`/cabinet/webhooks/${id}`)).body).not.toContain(secret.slice(6));

    await owner.post(`/cabinet/webhooks/${id}/test`);
    await sendDue();
    expect(rx.hits).toHaveLength(1);
    expect(String(rx.hits[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, rx.hits[0]!).type).toBe('webhook.test');
    expect(verify(old, rx.hits[0]!).type).toBe('webhook.test');
  });

  it('recovers since a time within 30 days and says how many were queued; refuses a time out of bounds', async () => {
    const { desk, owner } = await shop();
    const { id, secret } = await created(owner);
    const page = await owner.get(`/cabinet/webhooks/${id}`);
    // the field's bounds are the rule's: 30 days ago to now (UTC, to the minute)
    const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    const now = h.clock.now();
    expect(page.body).toContain(`max="${local(now)}"`);
    expect(page.body).toContain(`min="${local(Math.ceil((now - 30 * 86_400_000) / 60_000) * 60_000)}"`);
    expect(textOf(page)).toContain('At most 30 days back');

    await owner.post(`/cabinet/webhooks/${id}/enabled`, [['enabled', 'false']]);
    const missed = await completedOrder(desk);
    await sendDue();
    expect(rx.hits).toHaveLength(0);
    await owner.post(`/cabinet/webhooks/${id}/enabled`, [['enabled', 'true']]);

    for (const [since, says] of [
      [local(now + 3_600_000), 'Since: must not be in the future. (VALIDATION_ERROR)'],
      [local(now - 31 * 86_400_000), 'Since: at most 30 days ago. (VALIDATION_ERROR)'],
      ['yesterday', 'Since: must be a timestamp (ISO 8601). (VALIDATION_ERROR)'],
      ['', 'Since: give the date and time (UTC) to recover from. (VALIDATION_ERROR)'],
    ] as const) {
      const refused = await owner.post(`/cabinet/webhooks/${id}/recover`, [['since', since]]);
      expect(refused.statusCode, since).toBe(400);
      expect(textOf(refused), since).toContain(says);
      expect(refused.body).toContain('id="recover" aria-describedby="recover-error"');
      noStackTrace(refused);
    }

    const recovered = await owner.post(`/cabinet/webhooks/${id}/recover`, [['since', local(now - 3_600_000)]]);
    expect(recovered.statusCode).toBe(303);
    expect(recovered.headers.location).toBe(`/cabinet/webhooks/${id}?recovered=1`);
    expect(textOf(await owner.get(recovered.headers.location!))).toContain('1 event is queued again for this endpoint');
    await sendDue();
    expect(rx.hits).toHaveLength(1);
    expect(verify(secret, rx.hits[0]!).data.id).toBe(missed);
    // delivered now: a second recovery queues nothing
    const again = await owner.post(`/cabinet/webhooks/${id}/recover`, [['since', local(now - 3_600_000)]]);
    expect(textOf(await owner.get(again.headers.location!))).toContain('0 events are queued again');
  });

  it('shows why the sender disabled an endpoint, at the address its mail links to', async () => {
    const { owner } = await shop();
    const { id } = await created(owner);
    await owner.get(`/cabinet/webhooks/${id}`);
    rx.respond(() => ({ status: 410 }));
    await owner.post(`/cabinet/webhooks/${id}/test`);
    await sendDue();
    const { rows } = await h.ctx.db.query<{ data: { cabinetUrl: string } }>(`SELECT data FROM mail_outbox WHERE kind = 'webhook-disabled' AND data->>'cabinetUrl' LIKE '%' || $1`, [id]);
    expect(rows.length).toBeGreaterThan(0);
    const link = rows[0]!.data.cabinetUrl;
    expect(link).toBe(`${h.origin}/cabinet/webhooks/${id}`);
    const page = await owner.get(link);
    expect(page.statusCode).toBe(200);
    expect(textOf(page)).toContain('Disabled: the receiver answered 410 Gone.');
    expect(textOf(page)).toContain('Fix the receiver, enable the endpoint, then recover');
    expect(textOf(await owner.get('/cabinet/webhooks'))).toContain('the receiver answered 410 Gone');
  });

  it('lets developers manage endpoints and viewers read them; another merchant finds nothing', async () => {
    const { desk, owner } = await shop();
    const { id } = await created(owner);
    await owner.post(`/cabinet/webhooks/${id}/test`);
    await sendDue();

    const developer = await member(desk, 'developer');
    const dev = await created(developer, [['url', 'https://dev.example.com/hook'], ['events', 'order.completed'], ['deskScope', 'all']]);
    await developer.get(`/cabinet/webhooks/${dev.id}`);
    expect((await developer.post(`/cabinet/webhooks/${dev.id}/enabled`, [['enabled', 'false']])).statusCode).toBe(303);
    expect((await developer.post(`/cabinet/webhooks/${dev.id}/rotate-secret`, [['confirm', 'yes']])).statusCode).toBe(200);

    const viewer = await member(desk, 'viewer');
    const list = await viewer.get('/cabinet/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="/cabinet/webhooks/${id}"`);
    expect(list.body).not.toContain('id="new-endpoint"');
    const detail = await viewer.get(`/cabinet/webhooks/${id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('id="attempt-log"');
    expect(detail.body).toContain('webhook.test');
    expect(detail.body).not.toMatch(/<form[^>]*action="\/cabinet\/webhooks/);
    const before = json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result;
    for (const [path, fields] of [
      ['/cabinet/webhooks', [['url', 'https://viewer.example.com/h'], ['events', '*']]],
      [`/cabinet/webhooks/${id}/enabled`, [['enabled', 'false']]],
      [`/cabinet/webhooks/${id}/settings`, [['url', 'https://viewer.example.com/h'], ['events', '*']]],
      [`/cabinet/webhooks/${id}/rotate-secret`, [['confirm', 'yes']]],
      [`/cabinet/webhooks/${id}/recover`, [['since', new Date(h.clock.now() - 3_600_000).toISOString()]]],
      [`/cabinet/webhooks/${id}/test`, []],
    ] as [string, [string, string][]][]) {
      const res = await viewer.post(path, fields);
      expect(res.statusCode, path).toBe(403);
      expect(textOf(res)).toContain('Your role can read everything here but change nothing.');
    }
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toEqual(before);
    expect(json(await signed(h, desk, '/gw/v1/webhook-endpoints')).result.endpoints).toHaveLength(2);

    const stranger = (await shop()).owner;
    const notFound = await stranger.get(`/cabinet/webhooks/${id}`);
    expect(notFound.statusCode).toBe(404);
    expect(notFound.body).not.toContain(desk.id);
    await stranger.get('/cabinet/webhooks');
    for (const [path, fields] of [
      [`/cabinet/webhooks/${id}/enabled`, [['enabled', 'false']]],
      [`/cabinet/webhooks/${id}/settings`, [['url', 'https://x.example.com/h'], ['events', '*'], ['deskScope', 'all']]],
      [`/cabinet/webhooks/${id}/rotate-secret`, [['confirm', 'yes']]],
      [`/cabinet/webhooks/${id}/recover`, [['since', new Date(h.clock.now() - 3_600_000).toISOString()]]],
      [`/cabinet/webhooks/${id}/test`, []],
    ] as [string, [string, string][]][]) expect((await stranger.post(path, fields)).statusCode, path).toBe(404);
    expect((await stranger.get('/cabinet/webhooks/whe_nothing')).statusCode).toBe(404);
    expect(json(await signed(h, desk, `/gw/v1/webhook-endpoints/${id}`)).result).toEqual(before);

    // who did what is in the audit trail under the user
    const { rows } = await h.ctx.db.query<{ actor: string; action: string }>(`SELECT actor, action FROM audit_entries WHERE object_id = $1 ORDER BY id`, [dev.id]);
    expect(rows.map((r) => r.action)).toEqual(['webhook-endpoint.create', 'webhook-endpoint.disable', 'webhook-endpoint.rotate-secret']);
    expect(rows.every((r) => r.actor.startsWith('usr_'))).toBe(true);
  });
});

