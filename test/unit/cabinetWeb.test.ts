import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signRequest } from '../../src/signing.js';
import { csvCell, ordersCsv, ORDER_CSV_COLUMNS } from '../../src/web/cabinet/csv.js';
import { signedCurl } from '../../src/web/cabinet/homeView.js';

describe('cabinet CSV cells', () => {
  it('quotes commas, quotes and line breaks as RFC 4180 says', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(null)).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
  });

  it('makes every formula start inert with a leading apostrophe', () => {
    for (const start of ['=', '+', '-', '@', '\t']) expect(csvCell(`${start}1`)).toBe(`'${start}1`);
    expect(csvCell('\r1')).toBe(`"'\r1"`);
    expect(csvCell('=A1,B1')).toBe(`"'=A1,B1"`);
    expect(csvCell('1-2')).toBe('1-2');
  });

  it('writes the header row in the spec order, lines ending in CRLF', () => {
    expect(ordersCsv([])).toBe(`${ORDER_CSV_COLUMNS.join(',')}\r\n`);
  });
});

describe('the signed curl of the cabinet', () => {
  it('computes the same signature as the gateway in a POSIX shell with openssl', () => {
    const script = signedCurl('http://127.0.0.1:8080', 'shp_key', 's3cret-value')
      .replace(/^TS=\$\(date \+%s\); NONCE=\$\(openssl rand -hex 16\);/m, "TS=1700000000; NONCE=abc123;")
      .replace(/^curl .*$/m, 'printf "%s" "$SIGN"');
    const got = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
    expect(got).toBe(signRequest('s3cret-value', '1700000000', 'abc123', 'GET', '/gw/v1/methods', ''));
  });
});

describe('money on the cabinet’s pages', () => {
  it('groups digits and shows the currency’s own decimals, rounding half away from zero from the exact string', async () => {
    const { formatMoney, money } = await import('../../src/web/cabinet/layout.js');
    expect(formatMoney('16.33986928', 'USD')).toBe('16.34');
    expect(formatMoney('1234567.125', 'USD')).toBe('1,234,567.13');
    expect(formatMoney('-1.25000000', 'USD')).toBe('-1.25');
    expect(formatMoney('99999999999999.995', 'USD')).toBe('100,000,000,000,000.00');
    expect(formatMoney('65000', 'KRW')).toBe('65,000');
    expect(formatMoney('1500.5', 'RUB')).toBe('1,500.50');
    // the exact string stays a hover or a click away
    expect(money('16.33986928', 'USD').value).toBe('<span class="money" title="Exact: 16.33986928 USD" data-exact="16.33986928 USD">16.34 USD</span>');
  });
});

describe('what a cabinet role may post', () => {
  it('lets everyone look after their own sign-in, developers work but not the team, viewers nothing else', async () => {
    const { areaOf } = await import('../../src/web/cabinet/roles.js');
    const { roleMay } = await import('../../src/services/team.js');
    for (const own of ['/cabinet/sign-out', '/cabinet/account/password', '/cabinet/account/two-factor', '/cabinet/account/two-factor/confirm', '/cabinet/account/two-factor/disable', '/cabinet/account/sessions/:handle/revoke']) {
      expect(areaOf(own), own).toBe('self');
    }
    for (const team of ['/cabinet/team', '/cabinet/team/:userId/role', '/cabinet/team/:userId/remove']) expect(areaOf(team), team).toBe('team');
    for (const work of ['/cabinet/desks', '/cabinet/links', '/cabinet/links/:linkId/enabled', '/cabinet/appeals', '/cabinet/callbacks/redeliver', '/cabinet/teams', '/cabinet/account/passwords']) {
      expect(areaOf(work), work).toBe('work');
    }
    expect([roleMay('owner', 'team'), roleMay('owner', 'work')]).toEqual([true, true]);
    expect([roleMay('developer', 'team'), roleMay('developer', 'work')]).toEqual([false, true]);
    expect([roleMay('viewer', 'team'), roleMay('viewer', 'work')]).toEqual([false, false]);
  });
});
