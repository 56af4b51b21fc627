import { describe, expect, it } from 'vitest';
import { sha256Hex, signMessage, signRequest, signatureMatches } from '../../src/signing.js';

// The published test vectors of the signing scheme, computed independently of this code.
describe('request signing vectors', () => {
  it('SHA-256 of empty input', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
  it('V1: POST with a JSON body', () => {
    const body = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}';
    expect(signRequest('sk_test_9f8e7d6c5b4a', '1763700000', 'n0nce-0001', 'POST', '/gw/v1/orders', body)).toBe(
      '80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda',
    );
  });
  it('V2: GET signs the bare path, not the query', () => {
    expect(signRequest('sk_test_9f8e7d6c5b4a', '1763700000', 'n0nce-0002', 'GET', '/gw/v1/rates', '')).toBe(
      '1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3',
    );
  });
  it('V3: UTF-8 secret and body', () => {
    expect(signRequest('секрет-ключ', '1763700000', 'n0nce-0003', 'POST', '/gw/v1/orders/ord_abc/cancel', '{"reason":"клиент ушёл"}')).toBe(
      '6f79f9b2b9cbe142e0ecddb13d0ba7be4dde331345626e2c7da42ab3fde4dbda',
    );
  });
  it('a lower-case method signs the same as upper case, as the spec asks for METHOD upper case', () => {
    expect(signRequest('s', '1', 'nonce123', 'post', '/p', '')).toBe(signRequest('s', '1', 'nonce123', 'POST', '/p', ''));
  });
});

describe('callback signing vector', () => {
  it('C1', () => {
    const body =
      '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed","amount":{"value":"1500.50","currency":"RUB"},"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}';
    expect(signMessage('sk_test_9f8e7d6c5b4a', '1763700000', 'evt_01', Buffer.from(body))).toBe(
      'd8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b',
    );
  });
});

describe('signatureMatches', () => {
  const good = '80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda';
  it('accepts either hex case', () => {
    expect(signatureMatches(good, good)).toBe(true);
    expect(signatureMatches(good.toUpperCase(), good)).toBe(true);
  });
  it('refuses anything but exactly 64 hex characters (D20)', () => {
    expect(signatureMatches(good.slice(0, 63), good)).toBe(false);
    expect(signatureMatches(good + '0', good)).toBe(false);
    expect(signatureMatches(good.slice(0, 63) + 'g', good)).toBe(false);
    expect(signatureMatches(good.replace(/^./, 'f'), good)).toBe(false);
  });
});
