import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { randomHex } from '../ids.js';
import { AppError, ERROR_STATUS, type ErrorCode, type Refusal } from '../domain/errors.js';

/** D1: `{"status":"error","fault":{"code","detail"},"traceId"}`. */
export function errorEnvelope(req: FastifyRequest, code: ErrorCode, detail: string | null) {
  return { status: 'error', fault: { code, detail }, traceId: req.id };
}

/** The error envelope, with its status from the one code table. */
export function sendError(req: FastifyRequest, reply: FastifyReply, code: ErrorCode, detail: string | null = null): FastifyReply {
  // Also set here: errors raised by the router never pass the onRequest hook that sets it.
  return reply.code(ERROR_STATUS[code]).header('X-Trace-Id', req.id).header('X-Content-Type-Options', 'nosniff').send(errorEnvelope(req, code, detail));
}

export function sendRefusal(req: FastifyRequest, reply: FastifyReply, r: Refusal): FastifyReply {
  return sendError(req, reply, r.code, r.detail);
}

export function sendOk(req: FastifyRequest, reply: FastifyReply, result: unknown, status = 200): FastifyReply {
  return reply.code(status).send({ status: 'ok', result, traceId: req.id });
}

/** D6: a 429 has an empty body and says when to come back, in whole seconds. */
export function sendTooMany(reply: FastifyReply, retryAfterMs: number): FastifyReply {
  return reply.code(429).header('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000)))).send('');
}

/** Maps anything thrown in a route to an envelope: known codes as they are, the rest as a generic 500. */
export function handleError(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof AppError) return sendError(req, reply, err.code, err.detail);
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) {
    return sendError(req, reply, 'PAYLOAD_TOO_LARGE', 'body is larger than 64 KiB');
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendError(req, reply, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported content type');
  if (e.code === 'FST_ERR_MAX_PARAM_LENGTH' || e.statusCode === 414) return sendError(req, reply, 'VALIDATION_ERROR', 'path parameter too long');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return sendError(req, reply, 'VALIDATION_ERROR', 'malformed request');
  }
  // PostgreSQL data exceptions (class 22: NUL bytes in text, values out of range) are bad input
  // that slipped past a check; the caller gets a 400, and the log keeps the details.
  if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code)) {
    req.log.warn({ err }, 'input refused by the database');
    return sendError(req, reply, 'VALIDATION_ERROR', 'a value is out of range or contains characters that cannot be stored');
  }
  if (databaseUnreachable(e)) {
    req.log.error({ err }, 'database unreachable');
    return sendError(req, reply, 'SERVICE_UNAVAILABLE', 'the database cannot be reached right now; retry with back-off');
  }
  req.log.error({ err }, 'unhandled error');
  return sendError(req, reply, 'INTERNAL_ERROR', 'internal error; quote the traceId to support');
}

/**
 * The database is down or going away, as opposed to a bug: a refused or dropped connection, or
 * PostgreSQL's connection-exception (08), operator-intervention (57P01–57P03) and
 * insufficient-resources (53) classes. The caller may retry elsewhere or later: 503.
 */
function databaseUnreachable(e: { code?: string; message?: string }): boolean {
  const code = typeof e.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || /^53[0-9A-Z]{3}$/.test(code)) return true;
  return /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/.test(e.message ?? '');
}

/**
 * A request Node's HTTP parser refused before any route could see it: malformed request line or
 * headers (400), headers over the size limit (431), a request that did not arrive whole in time
 * (408). It gets the envelope with a trace id like every other answer, and the connection closes
 * (the parser cannot find where the next request would start).
 */
export function answerClientError(ctx: Ctx, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const traceId = randomHex(12);
  const [code, detail]: [ErrorCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? ['REQUEST_TIMEOUT', 'the request did not arrive whole in time']
    : err.code === 'HPE_HEADER_OVERFLOW' ? ['HEADERS_TOO_LARGE', 'the request headers are larger than the server takes']
    : ['VALIDATION_ERROR', 'the request is not well-formed HTTP'];
  const status = ERROR_STATUS[code];
  ctx.log.info({ traceId, status, reason: err.code ?? err.message }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ status: 'error', fault: { code, detail }, traceId });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Trace-Id: ${traceId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
