import { describe, expect, it } from 'vitest';
import { signCallback, signRequest, sha256Hex, verifyCallback } from '@paygate/sdk';

// The published test vectors of the signing scheme, computed independently of the project.
describe('SDK signing reproduces the published test vectors', () => {
  it('V1: POST /gw/v1/orders', () => {
    const body = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}';
    expect(signRequest('sk_test_9f8e7d6c5b4a', '1763700000', 'n0nce-0001', 'POST', '/gw/v1/orders', body)).toBe(
      '80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda',
    );
  });

  it('V2: GET with a query string signs the bare path and the hash of empty input', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const expected = '1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3';
    expect(signRequest('sk_test_9f8e7d6c5b4a', '1763700000', 'n0nce-0002', 'GET', '/gw/v1/rates', '')).toBe(expected);
    expect(signRequest('sk_test_9f8e7d6c5b4a', '1763700000', 'n0nce-0002', 'get', '/gw/v1/rates?currency=RUB', new Uint8Array())).toBe(expected);
  });

  it('V3: non-ASCII secret and body are UTF-8', () => {
    const body = '{"reason":"клиент ушёл"}';
    const expected = '6f79f9b2b9cbe142e0ecddb13d0ba7be4dde331345626e2c7da42ab3fde4dbda';
    expect(signRequest('секрет-ключ', '1763700000', 'n0nce-0003', 'POST', '/gw/v1/orders/ord_abc/cancel', body)).toBe(expected);
    expect(signRequest('секрет-ключ', '1763700000', 'n0nce-0003', 'POST', '/gw/v1/orders/ord_abc/cancel', Buffer.from(body, 'utf8'))).toBe(expected);
  });

  it('C1: callback signature, and verifyCallback accepts it at its own time', () => {
    const body =
      '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed","amount":{"value":"1500.50","currency":"RUB"},"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}';
    const sign = 'd8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b';
    expect(signCallback('sk_test_9f8e7d6c5b4a', '1763700000', 'evt_01', body)).toBe(sign);
    const headers = { 'X-Gate-Ts': '1763700000', 'X-Gate-Event-Id': 'evt_01', 'X-Gate-Sign': sign.toUpperCase() };
    const event = verifyCallback(body, headers, 'sk_test_9f8e7d6c5b4a', { now: () => 1763700000_000 + 299_000 });
    expect(event).toMatchObject({ event: 'order.completed', id: 'ord_abc', orderRef: 'inv-1001', settled: { value: '16.34531590' } });
  });
});
