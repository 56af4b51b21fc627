import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldsProblem, sendFormProblem } from './formGuard.js';
import type { UploadedFile } from './forms.js';
import type { FormProblem } from './i18n/formProblems.js';

/**
 * `multipart/form-data` for the few forms that upload a file, read by `@fastify/multipart`
 * (busboy) in the scope of those routes only: elsewhere a multipart body is not a form the page
 * takes (415). The whole form is read before the session hook, so its CSRF token is checked like
 * any other form's; text fields become the form's fields and files `UploadedFile`s under their
 * field's name, in memory (a receipt is 5 MiB at most).
 */

export interface UploadLimits {
  /** Bytes of one file: a larger one is cut here and marked `tooLarge` for its page to explain beside the file field. */
  fileBytes: number;
  /** How the page names that cap (`5 MiB`). */
  fileLabel: string;
  /** Parts (text fields and files) a form of the scope may have: `MAX_PARTS` unless its forms have more. */
  parts?: number;
}

/** Parts of any kind; a form has a handful. */
export const MAX_PARTS = 20;
/** Bytes of one text field. */
export const MAX_FIELD_BYTES = 16 * 1024;

/**
 * Registers the reader in `app` (an encapsulated scope holding the upload routes). A body past four
 * times the file cap (declared, or as it arrives) is not read any further: 413, the form page.
 */
export async function registerUploads(app: FastifyInstance, limits: UploadLimits): Promise<void> {
  const abandonBytes = limits.fileBytes * 4;
  const parts = limits.parts ?? MAX_PARTS;
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { parts, fields: parts, files: parts, fieldSize: MAX_FIELD_BYTES, fileSize: limits.fileBytes, headerPairs: 20 },
  });
  app.addHook('preValidation', async (req, reply) => {
    if (req.method === 'GET' || req.method === 'HEAD') return;
    if (!req.isMultipart()) return sendFormProblem(req, reply, 'notAForm');
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > abandonBytes) return sendFormProblem(req, reply, 'tooLarge', { limit: limits.fileLabel });
    const read = await readUpload(req, abandonBytes);
    if (!read.ok) {
      // Whatever is still coming is left to Node, which discards it once the answer is sent.
      req.raw.unpipe();
      return sendFormProblem(req, reply, read.problem, read.problem === 'tooLarge' ? { limit: read.limit ?? limits.fileLabel } : { fields: read.fields });
    }
    req.body = read.form;
  });
}

/**
 * Browsers (the HTML standard's form encoding) write `"`, CR and LF in file names as `%22`, `%0D`
 * and `%0A`, which busboy leaves as they are; those three are turned back. Nothing else is
 * percent-decoded: a `%` is sent as itself.
 */
function htmlEscapesOff(v: string): string {
  return v.replace(/%22|%0D|%0A/gi, (m) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[m.toUpperCase()]!);
}

type UploadRead = { ok: true; form: Record<string, unknown> } | { ok: false; problem: FormProblem; fields?: string[]; limit?: string };

/** Multipart limits the reader hits, as the form pages name them. */
const LIMIT_CODES = new Set(['FST_PARTS_LIMIT', 'FST_FIELDS_LIMIT', 'FST_FILES_LIMIT']);

async function readUpload(req: FastifyRequest, abandonBytes: number): Promise<UploadRead> {
  const form: Record<string, unknown> = Object.create(null);
  const add = (name: string, value: unknown) => {
    const had = form[name];
    form[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  };
  // Every part's name, as busboy meets it: the library drops a part named like a built-in
  // property (`constructor`, `__proto__`) with a generic error, and the page names it.
  const names: string[] = [];
  const isPartAFile = (name: string | undefined, type: string, fileName: string | undefined) => {
    names.push(name ?? '');
    return type === 'application/octet-stream' || fileName !== undefined;
  };
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
  };
  req.raw.on('data', count);
  try {
    for await (const part of req.parts({ isPartAFile } as Parameters<FastifyRequest['parts']>[0])) {
      if (part.type === 'field') {
        if (part.fieldnameTruncated) return { ok: false, problem: 'malformed' };
        if (part.valueTruncated) return { ok: false, problem: 'tooLarge', limit: `${MAX_FIELD_BYTES / 1024} KiB` };
        if (typeof part.value !== 'string') return { ok: false, problem: 'malformed' };
        add(part.fieldname, part.value);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) {
        chunks.push(chunk as Buffer);
        if (received > abandonBytes) return { ok: false, problem: 'tooLarge' };
      }
      const content = Buffer.concat(chunks);
      // An empty file input still sends a part, with an empty name and no bytes: no file chosen.
      if (part.filename === '' && content.length === 0) continue;
      add(part.fieldname, { fileName: htmlEscapesOff(part.filename), declaredType: part.mimetype, content, tooLarge: part.file.truncated } satisfies UploadedFile);
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (LIMIT_CODES.has(code)) return { ok: false, problem: 'tooManyFields' };
    if (code === 'FST_PROTO_VIOLATION') return { ok: false, problem: 'undeclared', fields: names.filter((n) => n in Object.prototype) };
    return { ok: false, problem: 'malformed' };
  } finally {
    req.raw.removeListener('data', count);
  }
  if (received > abandonBytes) return { ok: false, problem: 'tooLarge' };
  const whole = fieldsProblem(form);
  return whole ? { ok: false, problem: whole } : { ok: true, form };
}
