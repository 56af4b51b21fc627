import { describe, expect, it } from 'vitest';
import {
  checkDestination,
  checkEthereumAddress,
  checkIban,
  checkTronAddress,
  checkWithdrawalAmount,
  eip55,
  withdrawalActionsIn,
  type DestinationInput,
} from '../../src/domain/payouts.js';

/*
 * The rules of withdrawal requests: destinations checked by their checksums (the published test
 * vectors of EIP-55 and real addresses), amounts in USD cents, and which decisions a status allows.
 */

const EMPTY: DestinationInput = { kind: '', label: '', address: '', iban: '', account: '', holder: '', bank: '' };
const refusal = (r: { ok: boolean; refusal?: { detail: string | null } }) => (r.ok ? null : r.refusal!.detail);

describe('USDT addresses', () => {
  it('EIP-55: the specification’s vectors come out in their mixed case, from any case', () => {
    for (const v of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
      expect(eip55(v.slice(2).toLowerCase())).toBe(v);
      expect(eip55(v.slice(2).toUpperCase())).toBe(v);
      expect(checkEthereumAddress(v)).toEqual({ ok: true, value: v });
    }
  });

  it('Ethereum: a flipped case fails the checksum; one case only carries none; an address of digits is its own', () => {
    expect(refusal(checkEthereumAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'))).toContain('fails its EIP-55 checksum');
    expect(refusal(checkEthereumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'))).toContain('carries no checksum');
    expect(refusal(checkEthereumAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'))).toContain('carries no checksum');
    expect(checkEthereumAddress(' 0x1234567890123456789012345678901234567890 ')).toEqual({ ok: true, value: '0x1234567890123456789012345678901234567890' });
    expect(refusal(checkEthereumAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'))).toContain('0x followed by 40');
  });

  it('Tron: base58check of 0x41 and 20 bytes; a changed character, a Bitcoin address or the wrong length is refused', () => {
    expect(checkTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual({ ok: true, value: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    expect(refusal(checkTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T'))).toContain('fails its checksum');
    // A Bitcoin address is base58check too, but neither 'T…' nor 0x41.
    expect(refusal(checkTronAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'))).toContain('34 characters starting with T');
    expect(refusal(checkTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6tt'))).toContain('34 characters starting with T');
    expect(refusal(checkTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60'))).toContain('34 characters starting with T'); // 0 is not base58
  });
});

describe('bank destinations', () => {
  it('IBAN: the electronic form of a valid one; wrong check digits, length or country refused', () => {
    expect(checkIban('de89 3704 0044 0532 0130 00')).toEqual({ ok: true, value: 'DE89370400440532013000' });
    expect(refusal(checkIban('DE88 3704 0044 0532 0130 00'))).toContain('check digits');
    expect(refusal(checkIban('DE89 3704 0044 0532 0130 0'))).toContain('wrong length');
    expect(refusal(checkIban('XX89 3704 0044 0532 0130 00'))).toContain('country code');
  });

  it('a bank takes an IBAN or an account, never both, with holder and bank; USDT takes an address only', () => {
    const bank = { ...EMPTY, kind: 'bank', holder: ' Teapot  GmbH ', bank: 'Commerzbank' };
    expect(checkDestination({ ...bank, iban: 'DE89370400440532013000' })).toEqual({
      ok: true,
      value: { kind: 'bank', label: 'Commerzbank DE8937…3000', address: null, iban: 'DE89370400440532013000', account: null, holder: 'Teapot GmbH', bank: 'Commerzbank' },
    });
    expect(checkDestination({ ...bank, account: '40702-810 9' })).toMatchObject({ ok: true, value: { account: '407028109', iban: null } });
    expect(refusal(checkDestination({ ...bank, iban: 'DE89370400440532013000', account: '407028109' }))).toContain('either an iban or an account');
    expect(refusal(checkDestination({ ...bank }))).toContain('either an iban or an account');
    expect(refusal(checkDestination({ ...bank, account: '407028109', holder: '' }))).toMatch(/^holder:/);
    expect(refusal(checkDestination({ ...bank, account: '407028109', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }))).toMatch(/^address:/);
    expect(refusal(checkDestination({ ...EMPTY, kind: 'usdt-trc20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', holder: 'x' }))).toMatch(/^holder: a USDT destination takes an address only/);
    expect(checkDestination({ ...EMPTY, kind: 'usdt-trc20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).toMatchObject({ ok: true, value: { label: 'USDT TRC-20 TR7NHq…Lj6t' } });
    expect(refusal(checkDestination({ ...EMPTY, kind: 'usdt-trc20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', label: 'x'.repeat(61) }))).toMatch(/^label:/);
    expect(refusal(checkDestination({ ...EMPTY, kind: 'btc', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }))).toMatch(/^kind:/);
  });
});

describe('amounts and decisions', () => {
  it('an amount is positive USD with at most 2 decimals, written with 2', () => {
    expect(checkWithdrawalAmount('250')).toEqual({ ok: true, value: '250.00' });
    expect(checkWithdrawalAmount(' 0.01 ')).toEqual({ ok: true, value: '0.01' });
    expect(checkWithdrawalAmount('9999999999999999.99')).toEqual({ ok: true, value: '9999999999999999.99' });
    for (const [a, says] of [['-1', 'greater than zero'], ['0', 'greater than zero'], ['0.00', 'greater than zero'], ['1.001', 'at most 2 decimal places'], ['1e2', 'such as 250.75'], ['01', 'such as 250.75'], ['10000000000000000', 'such as 250.75'], ['', 'such as 250.75']] as const) {
      expect(refusal(checkWithdrawalAmount(a)), a).toContain(says);
    }
  });

  it('only a requested withdrawal waits for a decision, paying or rejecting', () => {
    expect(withdrawalActionsIn('requested')).toEqual(['pay', 'reject']);
    expect(withdrawalActionsIn('paid')).toEqual([]);
    expect(withdrawalActionsIn('rejected')).toEqual([]);
  });
});
