import { connect } from 'node:net';

/**
 * A deliberately small HTTP/1.1 client over a raw socket. The fuzzer needs requests that ordinary
 * clients refuse to send (duplicate or missing headers, bytes that are not UTF-8, percent-encoding
 * that does not decode, a body with no Content-Type), so it writes the request line, headers and
 * body itself. One request per connection (`Connection: close`): the answer ends when the server
 * closes, which also keeps one bad request from affecting the next.
 *
 * It only ever connects to 127.0.0.1: a fuzzer pointed elsewhere by mistake must fail, not send.
 */

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line (already encoded, or deliberately not). */
  target: string;
  /** In order; a name may repeat. `Host`, `Connection` and `Content-Length` are added unless `omit` names them. */
  headers: [string, string][];
  body: Buffer | null;
  /** Sends the body with `Transfer-Encoding: chunked` (in two chunks) instead of a `Content-Length`. */
  chunked?: boolean;
  /** Lower-case names of the automatic headers to leave out (`host`, `content-length`). */
  omit?: string[];
  /** The exact bytes to send instead of the above (requests the HTTP parser must refuse). */
  raw?: Buffer;
}

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers keep every value. */
  headers: Record<string, string[]>;
  body: Buffer;
  ms: number;
}

export type RawOutcome = { ok: true; response: RawResponse } | { ok: false; error: string; ms: number };

export const LOOPBACK = '127.0.0.1';

/** The port of a base URL that points at 127.0.0.1 over plain HTTP; anything else is refused. */
export function loopbackPort(baseUrl: string): number {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:') throw new Error(`the fuzzer only speaks plain HTTP, got ${u.protocol}`);
  if (u.hostname !== LOOPBACK) throw new Error(`the fuzzer only targets ${LOOPBACK}, not ${u.hostname}`);
  if (u.pathname !== '/' && u.pathname !== '') throw new Error('the base URL must have no path');
  return Number(u.port || 80);
}

export function encodeRequest(req: RawRequest, port: number): Buffer {
  if (req.raw) return req.raw;
  const omit = new Set(req.omit ?? []);
  const lines = [`${req.method} ${req.target} HTTP/1.1`];
  if (!omit.has('host')) lines.push(`Host: ${LOOPBACK}:${port}`);
  for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
  lines.push('Connection: close');
  const body = req.body ?? Buffer.alloc(0);
  let payload: Buffer = body;
  if (req.chunked) {
    lines.push('Transfer-Encoding: chunked');
    const half = Math.floor(body.length / 2);
    const parts = [body.subarray(0, half), body.subarray(half)].filter((p) => p.length > 0);
    payload = Buffer.concat([...parts.flatMap((p) => [Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]), Buffer.from('0\r\n\r\n')]);
  } else if (!omit.has('content-length') && (req.body !== null || !['GET', 'HEAD', 'DELETE'].includes(req.method))) {
    lines.push(`Content-Length: ${body.length}`);
  }
  // Latin-1 keeps every byte of the head as given (a test may put raw bytes in a header or the path).
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), payload]);
}

/** Parses one complete HTTP/1.1 response (the connection was closed after it). */
export function parseResponse(raw: Buffer): Omit<RawResponse, 'ms'> | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (!m) return null;
  const headers: Record<string, string[]> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(i + 1).trim());
  }
  let body = raw.subarray(headEnd + 4);
  if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) {
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = body.indexOf('\r\n', at);
      if (eol < 0) return null;
      const size = parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
      if (!Number.isFinite(size)) return null;
      if (size === 0) break;
      out.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(out);
  } else if (headers['content-length']) {
    const len = Number(headers['content-length'][0]);
    if (Number.isFinite(len)) {
      if (body.length < len) return null;
      body = body.subarray(0, len);
    }
  }
  return { status: Number(m[1]), headers, body: Buffer.from(body) };
}

/** Sends one request to 127.0.0.1:port and reads the answer until the server closes. */
export function sendRaw(port: number, req: RawRequest, timeoutMs: number): Promise<RawOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: LOOPBACK, port });
    const done = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const ms = performance.now() - started;
      const parsed = parseResponse(Buffer.concat(chunks));
      // A server may answer early and reset the connection while the body is still being written;
      // a complete answer counts whatever happened to the socket afterwards.
      if (parsed) resolve({ ok: true, response: { ...parsed, ms } });
      else resolve({ ok: false, error: error ?? (chunks.length ? 'incomplete response' : 'connection closed without a response'), ms });
    };
    const timer = setTimeout(() => done(`no complete response within ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => done(null));
    socket.on('close', () => done(null));
    socket.on('error', (err: NodeJS.ErrnoException) => done(`socket error ${err.code ?? err.message}`));
    socket.on('connect', () => {
      socket.write(encodeRequest(req, port), () => {
        /* written; the answer arrives on 'data' */
      });
    });
  });
}
