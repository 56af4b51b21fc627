import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A small, strict `multipart/form-data` reader (RFC 7578) for the few forms that upload a file.
 * It works on a body already held in memory (the route caps its size), accepts only what browsers
 * send (CRLF line ends, `Content-Disposition: form-data; name="…"`), and refuses anything else
 * with a reason instead of guessing.
 */

export interface MultipartFile {
  field: string;
  /** As the browser gave it; never trusted for the type. */
  fileName: string | null;
  declaredType: string | null;
  content: Buffer;
}

export interface MultipartForm {
  fields: URLSearchParams;
  files: MultipartFile[];
}

export type MultipartResult = { ok: true; form: MultipartForm } | { ok: false; problem: string };

export interface MultipartLimits {
  /** Parts of any kind; a form has a handful. */
  maxParts: number;
  /** Bytes of one text field. */
  maxFieldBytes: number;
}

export const DEFAULT_LIMITS: MultipartLimits = { maxParts: 20, maxFieldBytes: 16 * 1024 };

/** The boundary of a `multipart/form-data` content type (quoted or not), or null when there is none or it is malformed. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const [type, ...params] = splitParams(contentType);
  if (type!.toLowerCase() !== 'multipart/form-data') return null;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    const v = unquote(p.slice(eq + 1).trim());
    // RFC 2046: 1 to 70 characters from a fixed set, not ending in a space.
    if (v === null || !/^[0-9A-Za-z'()+_,\-./:=? ]{1,70}$/.test(v) || v.endsWith(' ')) return null;
    return v;
  }
  return null;
}

/** Splits `a; b="x;y"; c` on semicolons outside quotes. */
function splitParams(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted && ch === '\\' && i + 1 < s.length) {
      cur += ch + s[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** A token or a quoted string with backslash escapes; null for an unterminated quote. */
function unquote(v: string): string | null {
  if (!v.startsWith('"')) return v;
  if (v.length < 2 || !v.endsWith('"')) return null;
  return v.slice(1, -1).replace(/\\(.)/g, '$1');
}

/**
 * Browsers (the HTML standard's form encoding) write `"`, CR and LF in names and file names as
 * `%22`, `%0D` and `%0A`; those three are turned back. Nothing else is percent-decoded: a `%` is
 * sent as itself.
 */
function htmlEscapesOff(v: string): string {
  return v.replace(/%22|%0D|%0A/gi, (m) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[m.toUpperCase()]!);
}

interface Disposition {
  name: string;
  fileName: string | null;
}

function dispositionOf(value: string): Disposition | null {
  const [kind, ...params] = splitParams(value);
  if (kind!.toLowerCase() !== 'form-data') return null;
  let name: string | null = null;
  let fileName: string | null = null;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    const v = unquote(p.slice(eq + 1).trim());
    if (v === null) return null;
    if (key === 'name') name = htmlEscapesOff(v);
    else if (key === 'filename') fileName = htmlEscapesOff(v);
  }
  return name === null ? null : { name, fileName };
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Reads the parts of `body`. With `complete: false` (a body cut at the route's cap) the parts that
 * ended before the cut are returned and the cut one is dropped, so the CSRF token and the small
 * fields that come before the file can still be read to answer properly.
 */
export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = DEFAULT_LIMITS, complete = true): MultipartResult {
  const dash = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter opens the body, at its very start or after a preamble line.
  let pos: number;
  if (body.subarray(0, dash.length).equals(dash)) pos = dash.length;
  else {
    const at = body.indexOf(delimiter);
    if (at < 0) return complete ? { ok: false, problem: 'the form has no parts' } : { ok: true, form: { fields: new URLSearchParams(), files: [] } };
    pos = at + delimiter.length;
  }
  const fields = new URLSearchParams();
  const files: MultipartFile[] = [];
  let parts = 0;
  for (;;) {
    // After a delimiter: "--" closes the body; otherwise optional whitespace then CRLF opens a part.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return { ok: true, form: { fields, files } };
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (!body.subarray(pos, pos + 2).equals(CRLF)) {
      if (!complete && pos + 2 > body.length) return { ok: true, form: { fields, files } };
      return { ok: false, problem: 'a part boundary is not followed by a line break' };
    }
    pos += 2;
    const headerEnd = body.indexOf(HEADER_END, pos);
    const end = body.indexOf(delimiter, headerEnd < 0 ? pos : headerEnd);
    if (headerEnd < 0 || end < 0) {
      if (!complete) return { ok: true, form: { fields, files } };
      return { ok: false, problem: headerEnd < 0 ? 'a part has no blank line after its headers' : 'the form is not closed by its final boundary' };
    }
    if (++parts > limits.maxParts) return { ok: false, problem: `more than ${limits.maxParts} parts` };
    const headers = parseHeaders(body.subarray(pos, headerEnd).toString('latin1'));
    if (!headers) return { ok: false, problem: 'a part has a malformed header' };
    const disposition = headers.get('content-disposition');
    const d = disposition ? dispositionOf(disposition) : null;
    if (!d) return { ok: false, problem: 'a part has no form-data name' };
    const content = body.subarray(headerEnd + HEADER_END.length, end);
    if (d.fileName !== null) {
      // An empty file input still sends a part, with an empty name and no bytes: no file chosen.
      if (d.fileName !== '' || content.length > 0) {
        files.push({ field: d.name, fileName: Buffer.from(d.fileName, 'latin1').toString('utf8'), declaredType: headers.get('content-type') ?? null, content });
      }
    } else {
      if (content.length > limits.maxFieldBytes) return { ok: false, problem: `field ${d.name} is longer than ${limits.maxFieldBytes} bytes` };
      fields.append(Buffer.from(d.name, 'latin1').toString('utf8'), content.toString('utf8'));
    }
    pos = end + delimiter.length;
  }
}

/** Header lines of one part, names lower-cased; null when a line is not `Name: value`. */
function parseHeaders(block: string): Map<string, string> | null {
  const out = new Map<string, string>();
  if (block === '') return out;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0 || !/^[A-Za-z0-9-]+$/.test(line.slice(0, colon))) return null;
    out.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return out;
}

/** A multipart body as the upload routes receive it: the bytes up to the cap, and whether more was sent. */
export interface UploadBody {
  readonly upload: true;
  bytes: Buffer;
  tooLarge: boolean;
}

export function isUploadBody(v: unknown): v is UploadBody {
  return typeof v === 'object' && v !== null && (v as { upload?: unknown }).upload === true;
}

/**
 * Reads `multipart/form-data` bodies of the routes registered in `app` (an encapsulated plugin, so
 * every other route keeps the app's 1 MiB raw-body parser) into memory, up to `capBytes`. A larger
 * body is cut at the cap and marked `tooLarge` rather than failed, so the route can still check the
 * CSRF token that comes first and answer with a page; the rest is read and discarded.
 */
export function registerUploadBody(app: FastifyInstance, capBytes: number): void {
  // Past this we stop reading at all (the 413 error envelope, as for any other route): a mistaken
  // upload of a few MiB too many gets its page, a flood of bytes does not keep us reading.
  const abandonBytes = capBytes * 4;
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    let tooLarge = false;
    let finished = false;
    const tooMuch = () => Object.assign(new Error('body too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > abandonBytes) {
      done(tooMuch(), undefined);
      return;
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > abandonBytes) {
        payload.removeListener('data', onData);
        finished = true;
        done(tooMuch(), undefined);
        return;
      }
      if (kept >= capBytes) {
        tooLarge = true;
        return;
      }
      const room = capBytes - kept;
      if (chunk.length > room) tooLarge = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
    };
    payload.on('data', onData);
    payload.on('end', () => {
      if (!finished) done(null, { upload: true, bytes: Buffer.concat(chunks), tooLarge } satisfies UploadBody);
    });
    payload.on('error', (err) => {
      if (!finished) done(err, undefined);
    });
  });
}

const PARSED = new WeakMap<object, MultipartResult>();

/** The parsed form of an upload request (parsed once, cached); not a multipart upload reads as a problem. */
export function uploadOf(req: FastifyRequest): { body: UploadBody | null; result: MultipartResult } {
  const body = isUploadBody(req.body) ? req.body : null;
  if (!body) return { body: null, result: { ok: false, problem: 'the form must be sent as multipart/form-data' } };
  let result = PARSED.get(body);
  if (!result) {
    const boundary = boundaryOf(req.headers['content-type']);
    result = boundary ? parseMultipart(body.bytes, boundary, DEFAULT_LIMITS, !body.tooLarge) : { ok: false, problem: 'the form has no multipart boundary' };
    PARSED.set(body, result);
  }
  return { body, result };
}

/** The text fields of a multipart upload, for the CSRF check of the session hook; null when the request is not one. */
export function uploadFields(req: FastifyRequest): URLSearchParams | null {
  if (!isUploadBody(req.body)) return null;
  const { result } = uploadOf(req);
  return result.ok ? result.form.fields : new URLSearchParams();
}
