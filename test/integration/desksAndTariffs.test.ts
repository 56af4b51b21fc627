import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, CLASSIC_DESK, createHarness, json, type Harness } from '../helpers/harness.js';
import { cabinetKit } from '../helpers/cabinet.js';

// Desks have names; a desk's rails and currencies must fit together; tariffs are listed, read,
// edited, and one of them is the default that desks get when nobody names a tariff.

let h: Harness;
const kit = cabinetKit(() => h);

beforeAll(async () => {
  h = await createHarness();
  // The cross-border desks below need their currencies on the platform.
  for (const code of ['INR', 'KZT', 'TRY']) expect((await admin(h.app, 'PUT', `/currencies/${code}`, { enabled: true, spreadPercent: '0' })).statusCode).toBe(200);
});
afterAll(() => h.close());

const call = (method: Parameters<typeof admin>[1], url: string, body?: unknown) => admin(h.app, method, url, body);

async function merchant(): Promise<string> {
  return json(await call('POST', '/merchants', { name: 'Shop' })).result.id;
}

async function tariff(body: Record<string, unknown> = {}) {
  const res = await call('POST', '/tariffs', { name: 'Standard', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '3' }], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json(res).result;
}

describe('desk names', () => {
  it('a desk created without a name is "Desk N", numbered per merchant; a given name is kept and shown in reads and lists', async () => {
    const m = await merchant();
    const create = async (body: Record<string, unknown>) => {
      h.clock.advance(1000);
      return json(await call('POST', `/merchants/${m}/desks`, body)).result;
    };
    const first = await create(CLASSIC_DESK);
    const second = await create({ ...CLASSIC_DESK, name: 'Online store' });
    const third = await create(CLASSIC_DESK);
    expect([first.name, second.name, third.name]).toEqual(['Desk 1', 'Online store', 'Desk 3']);
    expect(json(await call('GET', `/desks/${second.id}`)).result.name).toBe('Online store');
    const list = json(await call('GET', `/desks?merchantId=${m}`)).result.items;
    expect(list.map((d: { name: string }) => d.name)).toEqual(['Desk 3', 'Online store', 'Desk 1']);
  });

  it('PATCH renames; an empty or over-long name answers 400 VALIDATION_ERROR and changes nothing', async () => {
    const m = await merchant();
    const d = json(await call('POST', `/merchants/${m}/desks`, CLASSIC_DESK)).result;
    const renamed = await call('PATCH', `/desks/${d.id}`, { name: 'Kiosk' });
    expect(json(renamed).result.name).toBe('Kiosk');
    for (const name of ['', 'x'.repeat(101), '   ']) {
      const res = await call('PATCH', `/desks/${d.id}`, { name });
      expect(res.statusCode, name).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
      expect(json(res).fault.detail).toMatch(/^name/);
    }
    expect(json(await call('GET', `/desks/${d.id}`)).result.name).toBe('Kiosk');
  });
});

describe('rails and currencies that cannot work together', () => {
  const crossBorder = (rails: string[], currencies: string[]) => ({ ...CLASSIC_DESK, method: 'CrossBorder', rails, currencies });

  it.each([
    [['Upi'], ['KZT'], /^rails: Upi serves INR only/],
    [['Havale'], ['INR'], /^rails: Havale serves TRY only/],
    [['Upi', 'Iban'], ['INR', 'TRY', 'KZT'], /^currencies: none of the desk's rails \(Upi, Iban\) serves KZT/],
  ])('%j with %j is refused with the reason, and no desk is created', async (rails, currencies, reason) => {
    const m = await merchant();
    const res = await call('POST', `/merchants/${m}/desks`, crossBorder(rails, currencies));
    expect(res.statusCode, res.body).toBe(400);
    expect(json(res).fault).toMatchObject({ code: 'VALIDATION_ERROR', detail: expect.stringMatching(reason) });
    expect(json(await call('GET', `/desks?merchantId=${m}`)).result.items).toEqual([]);
  });

  it('a combination where every rail and every currency has a partner is taken', async () => {
    const m = await merchant();
    const res = await call('POST', `/merchants/${m}/desks`, crossBorder(['Upi', 'C2c'], ['INR', 'KZT']));
    expect(res.statusCode, res.body).toBe(201);
  });

  it('a PATCH that would make a desk impossible is refused against the stored other list', async () => {
    const m = await merchant();
    const d = json(await call('POST', `/merchants/${m}/desks`, crossBorder(['Upi'], ['INR']))).result;
    const res = await call('PATCH', `/desks/${d.id}`, { currencies: ['KZT'] });
    expect(res.statusCode).toBe(400);
    expect(json(res).fault.detail).toMatch(/^rails: Upi serves INR only/);
    expect(json(await call('GET', `/desks/${d.id}`)).result.currencies).toEqual(['INR']);
  });

  it('the cabinet refuses it too, with the reason on the form, and creates nothing', async () => {
    const { b } = await kit.signUp('Fitco');
    await b.get('/cabinet/desks');
    const form: [string, string][] = [
      ['method', 'CrossBorder'],
      ['rails', 'Upi'],
      ['currencies', 'KZT'],
      ['minUsd', '0'],
      ['maxUsd', '0'],
      ['callbackUrl', 'https://merchant.example/callbacks'],
      ['callbacksEnabled', 'true'],
    ];
    const res = await b.post('/cabinet/desks', form);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Upi serves INR only');
    expect((await b.get('/cabinet/desks')).body).not.toContain('id="desk-key"');
  });
});

describe('tariffs', () => {
  it('are listed newest first and read one by one; an unknown id answers 404 TARIFF_NOT_FOUND', async () => {
    const a = await tariff({ name: 'A' });
    h.clock.advance(1000);
    const b = await tariff({ name: 'B' });
    const page = json(await call('GET', '/tariffs?limit=2')).result;
    expect(page.items.map((t: { id: string }) => t.id)).toEqual([b.id, a.id]);
    const read = json(await call('GET', `/tariffs/${a.id}`)).result;
    expect(read).toEqual(a);
    expect(read).toMatchObject({ name: 'A', default: false, bands: [{ fromUsd: '0.00000000', toUsd: null, ratePercent: '3.0000' }] });
    const missing = await call('GET', '/tariffs/trf_nope');
    expect(missing.statusCode).toBe(404);
    expect(json(missing).fault.code).toBe('TARIFF_NOT_FOUND');
  });

  it('PATCH renames and replaces bands, checked like creation', async () => {
    const t = await tariff();
    const res = await call('PATCH', `/tariffs/${t.id}`, { name: 'Premium', bands: [{ fromUsd: '0', toUsd: '100', ratePercent: '4' }, { fromUsd: '100', toUsd: null, ratePercent: '2' }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).result).toMatchObject({ name: 'Premium', bands: [{ ratePercent: '4.0000' }, { ratePercent: '2.0000' }] });
    const overlap = await call('PATCH', `/tariffs/${t.id}`, { bands: [{ fromUsd: '0', toUsd: '100', ratePercent: '4' }, { fromUsd: '50', toUsd: null, ratePercent: '2' }] });
    expect(overlap.statusCode).toBe(400);
    expect(json(await call('GET', `/tariffs/${t.id}`)).result.name).toBe('Premium');
  });

  it('one tariff at a time is the default: a new default makes the previous one step down', async () => {
    const first = await tariff({ name: 'First default', default: true });
    expect(first.default).toBe(true);
    const second = await tariff({ name: 'Second default', default: true });
    expect(json(await call('GET', `/tariffs/${first.id}`)).result.default).toBe(false);
    expect(json(await call('GET', `/tariffs/${second.id}`)).result.default).toBe(true);
    const back = await call('PATCH', `/tariffs/${first.id}`, { default: true });
    expect(json(back).result.default).toBe(true);
    expect(json(await call('GET', `/tariffs/${second.id}`)).result.default).toBe(false);
  });

  it('a desk created without a tariffId gets the default; tariffId null means no fee; a named one is kept', async () => {
    const standard = await tariff({ name: 'Standard default', default: true });
    const other = await tariff({ name: 'Other' });
    const m = await merchant();
    const { tariffId: _t, ...noTariff } = CLASSIC_DESK as Record<string, unknown>;
    const byDefault = json(await call('POST', `/merchants/${m}/desks`, noTariff)).result;
    const none = json(await call('POST', `/merchants/${m}/desks`, { ...noTariff, tariffId: null })).result;
    const named = json(await call('POST', `/merchants/${m}/desks`, { ...noTariff, tariffId: other.id })).result;
    expect([byDefault.tariffId, none.tariffId, named.tariffId]).toEqual([standard.id, null, other.id]);
  });
  it('a desk a merchant creates in the cabinet trades on the default tariff', async () => {
    const standard = await tariff({ name: 'Cabinet default', default: true });
    const { b } = await kit.signUp('Selfserve');
    const desk = await kit.createDesk(b);
    expect(json(await call('GET', `/desks/${desk.id}`)).result.tariffId).toBe(standard.id);
  });
});
