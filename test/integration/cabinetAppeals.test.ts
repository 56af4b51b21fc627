import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createHarness, json, signed, type DeskCreds, type Harness } from '../helpers/harness.js';
import { cabinetKit, type CabinetBrowser } from '../helpers/cabinet.js';

/*
 * Appeals from the cabinet: a multipart form with a receipt checked by content, the same rules and
 * effects as POST /gw/v1/appeals, the receipt served only to its merchant.
 */

let h: Harness;
const { signUp, createDesk, order } = cabinetKit(() => h);

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
const MIB5 = 5 * 1024 * 1024;

let b: CabinetBrowser;
let desk: DeskCreds;

async function cancelledOrder(ref?: string) {
  const o = await order(desk, { amount: 1500, rail: 'Sbp', ...(ref ? { orderRef: ref } : {}) });
  const res = await signed(h, desk, `/gw/v1/orders/${o.id}/cancel`, { body: '{}' });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return o.id;
}

const statusOf = async (id: string) => json(await signed(h, desk, `/gw/v1/orders/${id}`)).result.status as string;

beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://pay.example.test' }, unlimitedOrders: true });
  await admin(h.app, 'PUT', '/currencies/RUB', { enabled: true, spreadPercent: '0' });
  await admin(h.app, 'PUT', '/rates/RUB', { rate: '91.8' });
  ({ b } = await signUp('Appeal Shop'));
  desk = await createDesk(b);
});
afterAll(() => h.close());

describe('opening an appeal from the cabinet', () => {
  it('moves the order to Dispute, stores a PNG named .pdf as a PNG, and serves it to the merchant only', async () => {
    const id = await cancelledOrder();
    h.clock.advance(1000);
    const page = await b.get(`/cabinet/orders/${id}`);
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toContain('name="receipt"');

    const res = await b.upload('/cabinet/appeals', [
      { name: 'orderId', value: id },
      { name: 'reason', value: 'Paid at 12:05 <from> Sberbank' },
      { name: 'evidenceUrl', value: 'https://bank.example/a\r\nhttps://bank.example/b' },
      { name: 'receipt', file: { name: 'statement.pdf', type: 'application/pdf', content: PNG } },
    ]);
    expect(res.statusCode, res.body).toBe(303);
    const appealId = /\/cabinet\/appeals\/(apl_[A-Za-z0-9]+)/.exec(String(res.headers.location))![1]!;
    expect(await statusOf(id)).toBe('Dispute');

    // the same appeal through the API, with the evidence URLs joined as the API keeps them
    const api = json(await signed(h, desk, `/gw/v1/appeals/${appealId}`)).result;
    expect(api).toMatchObject({ orderId: id, status: 'Open', reason: 'Paid at 12:05 <from> Sberbank', evidenceUrl: 'https://bank.example/a; https://bank.example/b' });

    // the order's timeline: every status change with its time, the appeal, the callback events
    const timeline = (await b.get(`/cabinet/orders/${id}`)).body;
    const steps = [...timeline.matchAll(/<strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
    expect(steps).toEqual(['Created', 'Created → Canceled', 'Callback order.cancelled', 'Canceled → Dispute', 'Appeal opened', 'Callback order.appealed']);
    expect(timeline).toContain(`href="/cabinet/appeals/${appealId}"`);

    const shown = await b.get(`/cabinet/appeals/${appealId}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('Paid at 12:05 &lt;from&gt; Sberbank');
    expect(shown.body).toContain('image/png');
    const list = await b.get('/cabinet/appeals');
    expect(list.body).toContain(appealId);

    const file = await b.get(`/cabinet/appeals/${appealId}/receipt`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="receipt-${appealId}.png"`);
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(file.rawPayload, PNG)).toBe(0);

    // a repeat finds the open appeal, as the API's does
    const again = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: id }]);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toContain(appealId);

    // another merchant: the appeal, its receipt and the order do not exist
    const { b: other } = await signUp('Other Shop');
    expect((await other.get(`/cabinet/appeals/${appealId}`)).statusCode).toBe(404);
    expect((await other.get(`/cabinet/appeals/${appealId}/receipt`)).statusCode).toBe(404);
    expect((await other.get('/cabinet/appeals')).body).not.toContain(appealId);
    const theirs = await cancelledOrder();
    expect((await other.upload('/cabinet/appeals', [{ name: 'orderId', value: theirs }])).statusCode).toBe(404);
    expect(await statusOf(theirs)).toBe('Canceled');
  });

  it('opens by orderRef with a PDF and without a file', async () => {
    const id = await cancelledOrder('ref-appeal-1');
    const res = await b.upload('/cabinet/appeals', [
      { name: 'orderId', value: 'ref-appeal-1' },
      { name: 'reason', value: '' },
      { name: 'receipt', file: { name: '', type: 'application/octet-stream', content: Buffer.alloc(0) } },
    ]);
    expect(res.statusCode, res.body).toBe(303);
    expect(await statusOf(id)).toBe('Dispute');
    const pdf = await cancelledOrder();
    const withPdf = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: pdf }, { name: 'receipt', file: { name: 'r', type: 'text/plain', content: Buffer.from('%PDF-1.7\n...') } }]);
    expect(withPdf.statusCode).toBe(303);
    const file = await b.get(`${withPdf.headers.location!.split('?')[0]}/receipt`);
    expect(file.headers['content-type']).toBe('application/pdf');
  });

  it('refuses a text file named .png (400) and a file of 5 MiB + 1 (413) with a page, leaving the order cancelled', async () => {
    const id = await cancelledOrder();
    const text = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: id }, { name: 'receipt', file: { name: 'receipt.png', type: 'image/png', content: Buffer.from('not an image at all') } }]);
    expect(text.statusCode).toBe(400);
    expect(text.headers['content-type']).toContain('text/html');
    expect(text.body).toContain('not a PDF, PNG or JPEG');

    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MIB5 + 1 - 9, 0x20)]);
    expect(big.length).toBe(MIB5 + 1);
    const tooLarge = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: id }, { name: 'receipt', file: { name: 'big.pdf', type: 'application/pdf', content: big } }]);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.headers['content-type']).toContain('text/html');
    expect(tooLarge.body).toContain('larger than 5 MiB');

    // far past the route's cap: still a page, not a reset connection or an envelope
    const huge = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: id }, { name: 'receipt', file: { name: 'huge.pdf', type: 'application/pdf', content: Buffer.concat([big, big]) } }]);
    expect(huge.statusCode).toBe(413);
    expect(huge.headers['content-type']).toContain('text/html');

    // exactly 5 MiB is taken
    const max = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MIB5 - 9, 0x20)]);
    expect(await statusOf(id)).toBe('Canceled');
    const ok = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: id }, { name: 'receipt', file: { name: 'max.pdf', type: 'application/pdf', content: max } }]);
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(303);
  });

  it('answers the API’s refusals as pages: an open order is 409 ORDER_STILL_OPEN, an unknown one 404', async () => {
    const open = await order(desk);
    const res = await b.upload('/cabinet/appeals', [{ name: 'orderId', value: open.id }]);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('ORDER_STILL_OPEN');
    expect((await b.upload('/cabinet/appeals', [{ name: 'orderId', value: 'ord_nothing' }])).statusCode).toBe(404);
    expect((await b.upload('/cabinet/appeals', [{ name: 'orderId', value: '' }])).statusCode).toBe(400);
  });

  it('refuses the multipart form without a valid CSRF token (403) and changes nothing', async () => {
    const id = await cancelledOrder();
    const parts = [{ name: 'orderId', value: id }, { name: 'receipt', file: { name: 'r.png', type: 'image/png', content: PNG } }];
    expect((await b.upload('/cabinet/appeals', parts, { csrf: null })).statusCode).toBe(403);
    expect((await b.upload('/cabinet/appeals', parts, { csrf: 'forged' })).statusCode).toBe(403);
    expect(await statusOf(id)).toBe('Canceled');
  });

  it('takes the upload over a real socket from fetch’s own multipart encoder, and answers a body far past the cap with the 413 page', async () => {
    const id = await cancelledOrder();
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    await b.get(`/cabinet/orders/${id}`);
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const send = (file: Blob, name: string) => {
      const form = new FormData();
      form.set('_csrf', b.csrf!);
      form.set('orderId', id);
      form.set('reason', 'über 5 000 ₽ — paid');
      form.set('receipt', file, name);
      return fetch(`${address}/cabinet/appeals`, { method: 'POST', body: form, headers: { cookie }, redirect: 'manual' });
    };
    const huge = await send(new Blob([new Uint8Array(12 * 1024 * 1024).fill(0x25)]), 'huge.pdf');
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain('larger than 5 MiB');
    expect(await statusOf(id)).toBe('Canceled');

    // a declared length far past anything reasonable is refused before a byte is read
    const flood = await new Promise<number>((resolve, reject) => {
      const req = request(`${address}/cabinet/appeals`, { method: 'POST', headers: { cookie, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(100 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
        req.destroy();
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(flood).toBe(413);

    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2048, 1)]);
    const res = await send(new Blob([jpeg], { type: 'image/png' }), 'photo "1".png');
    expect(res.status).toBe(303);
    const appealId = /apl_[A-Za-z0-9]+/.exec(res.headers.get('location')!)![0];
    expect(await statusOf(id)).toBe('Dispute');
    expect(json(await signed(h, desk, `/gw/v1/appeals/${appealId}`)).result.reason).toBe('über 5 000 ₽ — paid');
    const file = await fetch(`${address}/cabinet/appeals/${appealId}/receipt`, { headers: { cookie } });
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.compare(Buffer.from(await file.arrayBuffer()), jpeg)).toBe(0);
    expect((await b.get(`/cabinet/appeals/${appealId}`)).body).toContain('photo &quot;1&quot;.png');
  });
});
