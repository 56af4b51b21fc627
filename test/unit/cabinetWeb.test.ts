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
