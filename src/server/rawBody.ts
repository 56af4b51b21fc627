import { createHash } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { parseStrictJson } from '../json.js';
import type { FastifyInstance } from 'fastify';

export const MAX_BODY_BYTES = 64 * 1024;
// Past this we stop reading at all: an oversized body is still hashed up to here so that the
// signature can be checked before the 413 (D3), but nobody can make us read megabytes.
export const HARD_CAP_BYTES = 1024 * 1024;

/** The request body as sent: the exact bytes (up to 64 KiB) and the SHA-256 of everything received. */
export interface RawBody {
  bytes: Buffer;
  sha256: string;
  tooLarge: boolean;
}

export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** Every content type is read as raw bytes; JSON is parsed by the route after authentication. */
export function registerRawBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    let finished = false;
    const finish = (err: Error | null, body?: RawBody) => {
      if (finished) return;
      finished = true;
      done(err, body);
    };
    const tooLarge = () => Object.assign(new Error('body too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    // A declared length over the cap is refused before reading anything.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > HARD_CAP_BYTES) {
      finish(tooLarge());
      return;
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > HARD_CAP_BYTES) {
        // Not destroyed: the client gets its 413 envelope instead of a reset connection, and Node
        // discards what is still coming without keeping it.
        payload.removeListener('data', onData);
        finish(tooLarge());
        return;
      }
      hash.update(chunk);
      if (kept < MAX_BODY_BYTES) {
        chunks.push(chunk);
        kept += chunk.length;
      }
    };
    payload.on('data', onData);
    payload.on('end', () => {
      finish(null, { bytes: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES), sha256: hash.digest('hex'), tooLarge: total > MAX_BODY_BYTES });
    });
    payload.on('error', (err) => finish(err));
  });
}

export function rawBodyOf(body: unknown): RawBody {
  if (body && typeof body === 'object' && 'sha256' in body) return body as RawBody;
  return { bytes: Buffer.alloc(0), sha256: EMPTY_SHA256, tooLarge: false };
}

/**
 * A JSON endpoint takes `application/json` (any `charset` parameter) and nothing else. A request
 * without a body passes whatever its type; a body without a type, or of another type, is refused.
 */
export function isJsonRequest(contentType: string | undefined, raw: RawBody): boolean {
  // An empty body carries nothing to misread, whatever type a client library labels it with.
  if (raw.bytes.length === 0) return true;
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export type JsonBody = { ok: true; value: Record<string, unknown> } | { ok: false; detail: string };

/** D3: the body must be a JSON object; an empty body reads as an empty object. */
export function parseJsonObject(raw: RawBody): JsonBody {
  if (raw.bytes.length === 0) return { ok: true, value: {} };
  let text: string;
  try {
    text = UTF8.decode(raw.bytes);
  } catch {
    return { ok: false, detail: 'body is not valid UTF-8' };
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, detail: 'body must be a JSON object' };
  // PostgreSQL text cannot hold NUL; refuse it here with a clear message rather than deep in a statement.
  if (raw.bytes.includes(0) || /\\u0000/i.test(raw.bytes.toString('utf8'))) return { ok: false, detail: 'strings must not contain NUL (\\u0000)' };
  return { ok: true, value: v as Record<string, unknown> };
}

/**
 * Turns the raw body into the parsed JSON object the route schema validates, once the surface's
 * own checks (signature, token, rate limit) have run over the raw bytes. The raw body stays on the
 * request for anything that still needs the exact bytes.
 */
export function parseJsonBodyHook() {
  // Callback-style: it runs on every request and waits for nothing.
  return function parseJsonBody(req: import('fastify').FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
    const raw = rawBodyOf(req.body);
    if (raw.tooLarge) return done(new AppError('PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB'));
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    if (!isJsonRequest(req.headers['content-type'], raw)) {
      return done(new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'));
    }
    const parsed = parseJsonObject(raw);
    if (!parsed.ok) return done(new AppError('VALIDATION_ERROR', parsed.detail));
    req.rawBody = raw;
    req.body = parsed.value;
    done();
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: RawBody | null;
  }
}
