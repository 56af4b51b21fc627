import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptTypeOf } from '../../src/domain/receipts.js';
import { registerRawBodyParser } from '../../src/server/rawBody.js';
import { handlePageError, registerForms } from '../../src/web/formGuard.js';
import { files, formOf, publicForm, text, withForm } from '../../src/web/forms.js';
import { MAX_FIELD_BYTES, MAX_PARTS, registerUploads } from '../../src/web/upload.js';

/*
 * The upload reader (@fastify/multipart under the pages' form rules), driven through a small app
 * with one upload route: what it reads, and what it refuses with which page.
 */

const B = 'XyZ';
const body = (...lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');
const FILE_CAP = 32 * 1024;

// Declares many fields, so that the parts limit is what refuses the form that has too many.
const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, text({ maxLength: 10 })]));
const Form = publicForm({ _csrf: text({ maxLength: 200 }), reason: text({ maxLength: MAX_FIELD_BYTES }), receipt: files(2), ...many });

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  registerRawBodyParser(app);
  await app.register(async (web) => {
    await registerForms(web);
    web.setErrorHandler((err, req, reply) => handlePageError(err, req, reply));
    await web.register(async (up) => {
      await registerUploads(up, { fileBytes: FILE_CAP, fileLabel: '32 KiB' });
      up.post('/up', withForm(Form), async (req) => {
        const f = formOf(req, Form);
        return {
          csrf: f._csrf ?? null,
          reason: f.reason ?? null,
          files: (f.receipt ?? []).map((x) => ({ name: x.fileName, type: x.declaredType, hex: x.content.toString('hex'), tooLarge: x.tooLarge })),
        };
      });
    });
  });
  await app.ready();
});
afterAll(() => app.close());

const post = (payload: Buffer, type = `multipart/form-data; boundary=${B}`) =>
  app.inject({ method: 'POST', url: '/up', headers: { 'content-type': type, 'accept-language': 'en' }, payload });

describe('reading a multipart form', () => {
  it('reads fields and a file with quoted names, keeping the file bytes exactly (CRLF inside included)', async () => {
    const file = Buffer.from([0x89, 0x50, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);
    const res = await post(
      Buffer.concat([
        body(`--${B}`, 'Content-Disposition: form-data; name="_csrf"', '', 'tok', `--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'line one\r\nline two', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="a \\"b\\";c.png"', 'Content-Type: image/png', '', ''),
        file,
        body('', `--${B}--`, ''),
      ]),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ csrf: 'tok', reason: 'line one\r\nline two', files: [{ name: 'a "b";c.png', type: 'image/png', hex: file.toString('hex'), tooLarge: false }] });
  });

  it('takes a quoted boundary with other parameters, in any letter case', async () => {
    const res = await post(body(`--a b:c`, 'Content-Disposition: form-data; name="reason"', '', 'x', `--a b:c--`), 'Multipart/Form-Data; charset=utf-8; boundary="a b:c"');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reason).toBe('x');
  });

  it('turns back the %22, %0D and %0A a browser writes in a file name, and nothing else', async () => {
    const res = await post(body(`--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="photo %221%22 100%25.png"', '', 'x', `--${B}--`));
    expect(res.json().files[0].name).toBe('photo "1" 100%25.png');
  });

  it('ignores a preamble and treats an empty file input as no file', async () => {
    const res = await post(body('preamble', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename=""', 'Content-Type: application/octet-stream', '', '', `--${B}--`));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().files).toEqual([]);
  });

  it('marks a file over the cap instead of failing, so its page can say so beside the field', async () => {
    const res = await post(body(`--${B}`, 'Content-Disposition: form-data; name="_csrf"', '', 'tok', `--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="big.pdf"', '', 'x'.repeat(FILE_CAP + 1), `--${B}--`));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ csrf: 'tok', files: [{ name: 'big.pdf', tooLarge: true }] });
    const exact = await post(body(`--${B}`, 'Content-Disposition: form-data; name="receipt"; filename="max.pdf"', '', 'x'.repeat(FILE_CAP), `--${B}--`));
    expect(exact.json().files[0].tooLarge).toBe(false);
  });
});

describe('refusing a multipart form, with a page', () => {
  const refused = async (payload: Buffer, status: number, text: RegExp, type?: string) => {
    const res = await post(payload, type);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toMatch(text);
  };

  it('a body without its closing boundary, without a boundary at all, or that is not multipart', async () => {
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'x'), 400, /arrived damaged/);
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'x', `--${B}--`), 400, /arrived damaged/, 'multipart/form-data');
    await refused(Buffer.from('reason=x'), 415, /takes a form sent from its page/, 'text/plain');
    await refused(Buffer.from(`--${B}\nContent-Disposition: form-data; name="reason"\n\nx\n--${B}--\n`), 400, /arrived damaged/);
    await refused(Buffer.from('no parts at all'), 400, /arrived damaged/);
  });

  it('a part without a name is no field of the form', async () => {
    await refused(body(`--${B}`, 'Content-Disposition: form-data', '', 'x', `--${B}--`), 400, /does not expect/);
  });

  it(`more than ${MAX_PARTS} parts`, async () => {
    const many = body(...Array.from({ length: MAX_PARTS + 1 }, (_, i) => [`--${B}`, `Content-Disposition: form-data; name="f${i}"`, '', 'v']).flat(), `--${B}--`);
    await refused(many, 400, /more fields than any of our forms/);
  });

  it('a text field over its size, and a NUL byte in a field', async () => {
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'x'.repeat(MAX_FIELD_BYTES + 1), `--${B}--`), 413, /larger than we accept \(16 KiB\)/);
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="reason"', '', 'a\0b', `--${B}--`), 400, /NUL/);
  });

  it('a field or a file the form does not declare, named, built-in property names included', async () => {
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="secretEnc"', '', 'x', `--${B}--`), 400, /does not expect: secretEnc/);
    await refused(body(`--${B}`, 'Content-Disposition: form-data; name="photo"; filename="a.png"', '', 'x', `--${B}--`), 400, /does not expect: photo/);
    for (const name of ['constructor', '__proto__']) {
      await refused(body(`--${B}`, `Content-Disposition: form-data; name="${name}"`, '', 'x', `--${B}--`), 400, new RegExp(`does not expect: ${name}`));
    }
  });

  it('a body declared far past the cap, before reading it', async () => {
    const res = await app.inject({ method: 'POST', url: '/up', headers: { 'content-type': `multipart/form-data; boundary=${B}`, 'content-length': String(FILE_CAP * 4 + 1) }, payload: Buffer.alloc(FILE_CAP * 4 + 1, 0x20) });
    expect(res.statusCode).toBe(413);
    expect(res.body).toContain('larger than we accept (32 KiB)');
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
