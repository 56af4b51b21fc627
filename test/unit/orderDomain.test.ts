import { describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.js';
import { checkCurrency, checkDeskLimits, parseCreateOrder, resolveRail, DEFAULT_LIFETIME_MINUTES } from '../../src/domain/orders.js';

/*
 * The pure order rules: the create body's shape (D3, D8, D10), rail resolution (step 6, D11, D16),
 * currency checks (step 7, D9, D15) and desk limits (step 9), each returning a refusal with its code
 * instead of throwing, and in the order the spec gives.
 */

const refusal = (r: { ok: boolean; refusal?: { code: string; detail: string | null } }) => (r.ok ? null : r.refusal!);

describe('parseCreateOrder', () => {
  it('fills the defaults: RUB, 15 minutes, every optional field null', () => {
    const r = parseCreateOrder({ amount: 10 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ currency: 'RUB', rail: undefined, orderRef: null, notifyUrl: null, successUrl: null, failUrl: null, backUrl: null, operator: null, lifetimeMinutes: DEFAULT_LIFETIME_MINUTES });
    expect(r.value.amount.toFixed(2)).toBe('10.00');
  });

  it('keeps the amount as an exact decimal rounded half-up (D8)', () => {
    const r = parseCreateOrder({ amount: 1.005 });
    expect(r.ok && r.value.amount.toFixed(2)).toBe('1.01');
  });

  it.each([
    [{}, 'amount'],
    [{ amount: '10' }, 'amount'],
    [{ amount: 0.004 }, 'amount'],
    [{ amount: 1e16 }, 'amount'],
    [{ amount: 10, currency: ['RUB'] }, 'currency'],
    [{ amount: 10, rail: {} }, 'rail'],
    [{ amount: 10, orderRef: '' }, 'orderRef'],
    [{ amount: 10, notifyUrl: 'x'.repeat(2049) }, 'notifyUrl'],
    [{ amount: 10, backUrl: 'javascript:alert(1)' }, 'backUrl'],
    [{ amount: 10, failUrl: '/relative' }, 'failUrl'],
    [{ amount: 10, operator: 'operatora' }, 'operator'],
    [{ amount: 10, targetBank: 7 }, 'targetBank'],
    [{ amount: 10, lifetimeMinutes: null, direction: 'in' }, 'direction'],
  ])('%j is VALIDATION_ERROR naming %s', (body, fieldName) => {
    const r = refusal(parseCreateOrder(body as Record<string, unknown>));
    expect(r?.code).toBe('VALIDATION_ERROR');
    expect(r?.detail).toMatch(new RegExp(`^${fieldName}\\b`));
  });

  it('direction Out is PAYOUTS_NOT_SUPPORTED; the first problem in the body answers', () => {
    expect(refusal(parseCreateOrder({ amount: 10, direction: 'Out' }))?.code).toBe('PAYOUTS_NOT_SUPPORTED');
    expect(refusal(parseCreateOrder({ amount: 'x', direction: 'Out' }))?.detail).toMatch(/^amount\b/);
    expect(refusal(parseCreateOrder({ amount: 10, direction: 'Out', lifetimeMinutes: 0 }))?.code).toBe('PAYOUTS_NOT_SUPPORTED');
  });
});

describe('resolveRail (step 6)', () => {
  it('a single allowed rail may be omitted; several need one named', () => {
    expect(resolveRail('Classic', ['C2c'], undefined, null)).toEqual({ ok: true, value: 'C2c' });
    expect(refusal(resolveRail('Classic', ['Sbp', 'C2c'], undefined, null))?.code).toBe('RAIL_REQUIRED');
    expect(refusal(resolveRail('Classic', ['Sbp', 'C2c'], null, null))?.code).toBe('RAIL_REQUIRED');
    expect(resolveRail('Classic', ['Sbp', 'C2c'], 'Sbp', null)).toEqual({ ok: true, value: 'Sbp' });
  });

  it('INVALID_RAIL for names outside the method (case matters), RAIL_NOT_ENABLED for rails of the method the desk does not allow', () => {
    expect(refusal(resolveRail('Classic', ['Sbp'], 'Upi', null))?.code).toBe('INVALID_RAIL');
    expect(refusal(resolveRail('Classic', ['Sbp'], 'SBP', null))?.code).toBe('INVALID_RAIL');
    expect(refusal(resolveRail('Classic', ['Sbp'], 'C2c', null))?.code).toBe('RAIL_NOT_ENABLED');
    expect(refusal(resolveRail('CrossBorder', ['Upi'], 'Iban', null))?.code).toBe('RAIL_NOT_ENABLED');
  });

  it('rail-less methods resolve to null and refuse any rail (D11)', () => {
    for (const m of ['BankApp', 'Counterparty', 'NationalQr']) {
      expect(resolveRail(m, [], undefined, null)).toEqual({ ok: true, value: null });
      expect(resolveRail(m, [], null, null)).toEqual({ ok: true, value: null });
      expect(refusal(resolveRail(m, [], 'Sbp', null))?.code).toBe('INVALID_RAIL');
    }
  });

  it('MobileCommerce Phone needs an operator (D16); CrossBorder Phone does not', () => {
    const r = refusal(resolveRail('MobileCommerce', ['Phone'], undefined, null));
    expect(r?.code).toBe('VALIDATION_ERROR');
    expect(r?.detail).toMatch(/^operator\b/);
    expect(resolveRail('MobileCommerce', ['Phone'], 'Phone', 'OperatorE')).toEqual({ ok: true, value: 'Phone' });
    expect(resolveRail('CrossBorder', ['Phone'], 'Phone', null)).toEqual({ ok: true, value: 'Phone' });
  });

  it('rail checks come before the operator check', () => {
    expect(refusal(resolveRail('MobileCommerce', ['Phone'], 'Sbp', null))?.code).toBe('INVALID_RAIL');
  });
});

describe('checkCurrency (step 7)', () => {
  const payable = { known: true, enabled: true, hasRateSource: true };
  const classic = { method: 'Classic', currencies: ['RUB'] };

  it('INVALID_CURRENCY for anything but three upper-case letters of a real ISO code (D9)', () => {
    for (const code of ['rub', 'Rub', 'RU', 'RUBB', '643', 'R1B', 'XYZ', '']) {
      expect(refusal(checkCurrency(code, payable, classic, 'Sbp'))?.code).toBe('INVALID_CURRENCY');
    }
  });

  it('CURRENCY_NOT_PAYABLE when unknown to the platform, disabled or without a rate source (D15)', () => {
    expect(refusal(checkCurrency('RUB', { known: false, enabled: false, hasRateSource: false }, classic, 'Sbp'))?.code).toBe('CURRENCY_NOT_PAYABLE');
    expect(refusal(checkCurrency('RUB', { known: true, enabled: false, hasRateSource: true }, classic, 'Sbp'))?.code).toBe('CURRENCY_NOT_PAYABLE');
    expect(refusal(checkCurrency('RUB', { known: true, enabled: true, hasRateSource: false }, classic, 'Sbp'))?.code).toBe('CURRENCY_NOT_PAYABLE');
  });

  it('CURRENCY_NOT_ENABLED when the desk does not allow it or the rail does not serve it', () => {
    expect(refusal(checkCurrency('EUR', payable, classic, 'Sbp'))?.code).toBe('CURRENCY_NOT_ENABLED');
    const kz = { method: 'CrossBorder', currencies: ['KZT', 'INR', 'AZN'] };
    expect(refusal(checkCurrency('KZT', payable, kz, 'Upi'))?.code).toBe('CURRENCY_NOT_ENABLED');
    expect(refusal(checkCurrency('AZN', payable, kz, 'Phone'))?.code).toBe('CURRENCY_NOT_ENABLED');
    expect(checkCurrency('KZT', payable, kz, 'WalletCombo')).toEqual({ ok: true, value: 'KZT' });
    expect(checkCurrency('AZN', payable, kz, 'C2c')).toEqual({ ok: true, value: 'AZN' });
    expect(checkCurrency('INR', payable, kz, 'Upi')).toEqual({ ok: true, value: 'INR' });
  });

  it('the platform checks come before the desk checks', () => {
    expect(refusal(checkCurrency('EUR', { known: true, enabled: false, hasRateSource: true }, classic, 'Sbp'))?.code).toBe('CURRENCY_NOT_PAYABLE');
  });
});

describe('checkDeskLimits (step 9)', () => {
  it('inclusive bounds in USD, 0 meaning unbounded, the bound named in the detail', () => {
    expect(checkDeskLimits(dec('10'), '10', '100')).toEqual({ ok: true, value: true });
    expect(checkDeskLimits(dec('100'), '10', '100')).toEqual({ ok: true, value: true });
    const below = refusal(checkDeskLimits(dec('9.99999999'), '10', '100'));
    expect(below?.code).toBe('AMOUNT_BELOW_MIN');
    expect(below?.detail).toContain('10.00000000');
    const above = refusal(checkDeskLimits(dec('100.00000001'), '10', '100'));
    expect(above?.code).toBe('AMOUNT_ABOVE_MAX');
    expect(above?.detail).toContain('100.00000000');
    expect(checkDeskLimits(dec('0.00000001'), '0', '0')).toEqual({ ok: true, value: true });
    expect(checkDeskLimits(dec('1e12'), '0', '0')).toEqual({ ok: true, value: true });
    expect(checkDeskLimits(dec('1e12'), '5', '0')).toEqual({ ok: true, value: true });
  });
});
