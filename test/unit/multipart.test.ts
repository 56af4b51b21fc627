import { describe, expect, it } from 'vitest';
import { receiptTypeOf } from '../../src/domain/receipts.js';
import { boundaryOf, parseMultipart } from '../../src/web/multipart.js';

const B = 'XyZ';
const body = (...lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

describe('boundaryOf', () => {
  it('reads a plain and a quoted boundary, and refuses other types or bad ones', () => {
    expect(boundaryOf('multipart/form-data; boundary=----abc123')).toBe('----abc123');
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(boundaryOf('multipart/mixed; boundary=abc')).toBeNull();
    expect(boundaryOf('multipart/form-data')).toBeNull();
    expect(boundaryOf('multipart/form-data; boundary=')).toBeNull();
    expect(boundaryOf(`multipart/form-data; boundary=${'x'.repeat(71)}`)).toBeNull();
    expect(boundaryOf('multipart/form-data; boundary="unterminated')).toBeNull();
    expect(boundaryOf(undefined)).toBeNull();
  });
});

describe('parseMultipart', () => {
  it('reads fields and a file with quoted names, keeping the file bytes exactly (CRLF inside included)', () => {
    const file = Buffer.from([0x89, 0x50, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);
    const b = Buffer.concat([
      body(`--${B}`, 'Content-Disposition: form-data; name="_csrf"', '', 'tok', `--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'line one\r\nline two', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="a \\"b\\";c.png"', 'Content-Type: image/png', '', ''),
      file,
      body('', `--${B}--`, ''),
    ]);
    const r = parseMultipart(b, B);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.form.fields.get('_csrf')).toBe('tok');
    expect(r.form.fields.get('reason')).toBe('line one\r\nline two');
    expect(r.form.files).toHaveLength(1);
    expect(r.form.files[0]!.fileName).toBe('a "b";c.png');
    expect(r.form.files[0]!.declaredType).toBe('image/png');
    expect(Buffer.compare(r.form.files[0]!.content, file)).toBe(0);
  });

  it('turns back the %22, %0D and %0A a browser writes in a file name, and nothing else', () => {
    const r = parseMultipart(body(`--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="photo %221%22 100%25.png"', '', 'x', `--${B}--`), B);
    expect(r.ok && r.form.files[0]!.fileName).toBe('photo "1" 100%25.png');
  });

  it('ignores a preamble and treats an empty file input as no file', () => {
    const r = parseMultipart(body('preamble', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename=""', 'Content-Type: application/octet-stream', '', '', `--${B}--`), B);
    expect(r.ok && r.form.files).toEqual([]);
  });

  it('refuses a body without the closing boundary, a part without a name, a bare LF and too many parts', () => {
    expect(parseMultipart(body(`--${B}`, 'Content-Disposition: form-data; name="a"', '', 'x'), B).ok).toBe(false);
    expect(parseMultipart(body(`--${B}`, 'Content-Disposition: form-data', '', 'x', `--${B}--`), B).ok).toBe(false);
    expect(parseMultipart(body(`--${B}`, 'Content-Type: text/plain', '', 'x', `--${B}--`), B).ok).toBe(false);
    expect(parseMultipart(Buffer.from(`--${B}\nContent-Disposition: form-data; name="a"\n\nx\n--${B}--\n`), B).ok).toBe(false);
    expect(parseMultipart(Buffer.from('no parts at all'), B).ok).toBe(false);
    const many = body(...Array.from({ length: 21 }, (_, i) => [`--${B}`, `Content-Disposition: form-data; name="f${i}"`, '', 'v']).flat(), `--${B}--`);
    expect(parseMultipart(many, B)).toEqual({ ok: false, problem: 'more than 20 parts' });
  });

  it('refuses an oversized text field', () => {
    const big = body(`--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'x'.repeat(20), `--${B}--`);
    expect(parseMultipart(big, B, { maxParts: 5, maxFieldBytes: 10 }).ok).toBe(false);
  });

  it('reads the complete parts of a body cut at the cap and drops the cut one', () => {
    const cut = body(`--${B}`, 'Content-Disposition: form-data; name="_csrf"', '', 'tok', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="big.pdf"', '', '%PDF-1.7 and more');
    const r = parseMultipart(cut, B, undefined, false);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.form.fields.get('_csrf')).toBe('tok');
    expect(r.form.files).toEqual([]);
  });
});

describe('receiptTypeOf', () => {
  it('knows PDF, PNG and JPEG by their first bytes only', () => {
    expect(receiptTypeOf(Buffer.from('%PDF-1.4\n'))).toBe('application/pdf');
    expect(receiptTypeOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(receiptTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(receiptTypeOf(Buffer.from('just text, named receipt.png'))).toBeNull();
    expect(receiptTypeOf(Buffer.from([0x89, 0x50]))).toBeNull();
    expect(receiptTypeOf(Buffer.alloc(0))).toBeNull();
  });
});
