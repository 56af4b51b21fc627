/**
 * Reference mock of an external provider speaking the generic connector (operator-api.md,
 * "Provider connector (kind `http`)"). It answers `POST /payments` as told, refuses a request
 * whose signature does not verify with 401, records every request, and can report events back
 * to a gateway, signed the same way.
 *
 * Standalone: npx tsx tools/mock-provider.ts --port 9090 --key prv_key --secret prv_secret
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { systemClock, type Clock } from '../src/clock.js';
import type { Payment } from '../src/providers/sandboxDetails.js';
import {
  newProviderMessageId,
  signProviderRequestHeaders,
  verifySignedHeaders,
  type ProviderEventType,
} from '../src/providers/providerMessages.js';

export type MockMode =
  | { kind: 'issue'; payment?: Partial<Payment> }
  | { kind: 'decline'; reason?: string }
  /** Holds the request open without answering until the mock is closed. */
  | { kind: 'hang' }
  /** Answers `status` (default 500) with `body` verbatim; `headers` e.g. a `Location` for a 3xx. */
  | { kind: 'fail'; status?: number; body?: string; headers?: Record<string, string> }
  | { kind: 'auth-error' };

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lower-cased names, as Node delivers them. */
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The parsed body, or undefined when it was not JSON. */
  body: unknown;
  signatureOk: boolean;
  /** Why the signature check failed, when it did. */
  signatureFailure: string | null;
}

export interface ReportOptions {
  eventId?: string;
  tsSec?: number;
  /** Sends a signature that cannot verify, to exercise the gateway's refusal. */
  badSignature?: boolean;
}

export interface MockProvider {
  /** Base URL to configure as the provider's `baseUrl`, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Every request received, in arrival order (including refused ones). */
  readonly received: ReceivedRequest[];
  /** Sets the standing behaviour for `POST /payments` and drops any queued one-shot modes. */
  behave(mode: MockMode): void;
  /** Adds one-shot modes, consumed one per verified request before the standing behaviour applies. */
  queue(...modes: MockMode[]): void;
  reportEvent(
    gatewayBaseUrl: string,
    providerId: string,
    event: { orderId: string; type: ProviderEventType; payerReference?: string },
    opts?: ReportOptions,
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

/** Matches the connector's own bound; a gateway request is a few hundred bytes. */
const MAX_REQUEST_BYTES = 64 * 1024;

export async function startMockProvider(opts: {
  key: string;
  secret: string;
  port?: number;
  /** Reference time for the skew check and for outgoing timestamps; tests share theirs. */
  clock?: Clock;
  /** Called for every received request (the standalone runner logs with it). */
  onRequest?: (req: ReceivedRequest) => void;
}): Promise<MockProvider> {
  const clock = opts.clock ?? systemClock;
  const received: ReceivedRequest[] = [];
  let standing: MockMode = { kind: 'issue' };
  const pending: MockMode[] = [];

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { status: 'error', reason: 'mock internal error' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://mock').pathname;
    const rawBody = await readBody(req);
    if (rawBody === null) {
      sendJson(res, 413, { status: 'error', reason: 'body too large' });
      return;
    }
    const verdict = verifySignedHeaders({
      headers: req.headers,
      rawBody,
      expectedKey: opts.key,
      secret: opts.secret,
      nowMs: clock.now(),
    });
    const record: ReceivedRequest = {
      method: req.method ?? '',
      path,
      headers: { ...req.headers },
      rawBody,
      body: parseJson(rawBody),
      signatureOk: verdict.ok,
      signatureFailure: verdict.ok ? null : verdict.reason,
    };
    received.push(record);
    opts.onRequest?.(record);

    if (req.method !== 'POST' || path !== '/payments') {
      sendJson(res, 404, { status: 'error', reason: 'not found' });
      return;
    }
    if (!verdict.ok) {
      sendJson(res, 401, { status: 'error', reason: verdict.reason });
      return;
    }
    const mode = pending.shift() ?? standing;
    switch (mode.kind) {
      case 'issue':
        sendJson(res, 200, { status: 'issued', payment: mode.payment ?? defaultPayment(record.body) });
        return;
      case 'decline':
        sendJson(res, 200, { status: 'declined', reason: mode.reason ?? 'no capacity' });
        return;
      case 'hang':
        // Left open on purpose; close() destroys the socket.
        return;
      case 'fail':
        res.writeHead(mode.status ?? 500, { 'Content-Type': 'application/json', ...mode.headers });
        res.end(mode.body ?? '{"status":"error","reason":"mock failure"}');
        return;
      case 'auth-error':
        sendJson(res, 401, { status: 'error', reason: 'mock refuses these credentials' });
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    behave(mode) {
      standing = mode;
      pending.length = 0;
    },
    queue(...modes) {
      pending.push(...modes);
    },
    async reportEvent(gatewayBaseUrl, providerId, event, reportOpts = {}) {
      const rawBody = JSON.stringify({
        orderId: event.orderId,
        type: event.type,
        ...(event.payerReference !== undefined ? { payerReference: event.payerReference } : {}),
      });
      const eventId = reportOpts.eventId ?? newProviderMessageId();
      const tsSec = reportOpts.tsSec ?? Math.floor(clock.now() / 1000);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        ...signProviderRequestHeaders(opts.key, opts.secret, eventId, tsSec, rawBody),
      };
      if (reportOpts.badSignature) {
        // Signed with a different secret: well-formed hex that cannot verify.
        headers['X-Gate-Sign'] = signProviderRequestHeaders(opts.key, `${opts.secret}-wrong`, eventId, tsSec, rawBody)['X-Gate-Sign'];
      }
      const target = `${gatewayBaseUrl.replace(/\/+$/, '')}/providers/v1/${encodeURIComponent(providerId)}/events`;
      const response = await request(target, { method: 'POST', headers, body: rawBody });
      return { status: response.statusCode, body: await response.body.text() };
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hung requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
      });
    },
  };
}

/** Details shaped like the rail asks for (gateway spec, cross-border table), so a default run looks real. */
function defaultPayment(body: unknown): Partial<Payment> {
  const rail = typeof body === 'object' && body !== null ? (body as { rail?: unknown }).rail : undefined;
  switch (rail) {
    case 'Sbp':
    case 'Phone':
      return { phone: '+79001234567', holder: 'IVAN P.', bank: 'Mock Bank' };
    case 'Upi':
      return { upiId: 'mockmerchant@upi', holder: 'MOCK MERCHANT' };
    case 'Account':
      return { account: '110-123-456789', holder: 'KIM MOCK', bank: 'Mock Bank Korea' };
    case 'Iban':
    case 'Havale':
      return { iban: 'TR330006100519786457841326', holder: 'MOCK ALICI', bank: 'Mock Bankasi' };
    case 'WalletCombo':
      return { card: '4400430012345678', phone: '+77001234567', holder: 'MOCK RECIPIENT' };
    case null:
    case undefined:
      return { url: 'https://mock-provider.invalid/pay' };
    default:
      return { card: '2200150012345678', holder: 'IVAN P.', bank: 'Mock Bank' };
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '9090' },
      key: { type: 'string' },
      secret: { type: 'string' },
    },
  });
  if (!values.key || !values.secret) {
    process.stderr.write('usage: npx tsx tools/mock-provider.ts --port 9090 --key <provider key> --secret <provider secret>\n');
    process.exit(2);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer 0-65535, got ${values.port}\n`);
    process.exit(2);
  }
  const mock = await startMockProvider({
    key: values.key,
    secret: values.secret,
    port,
    onRequest: (r) => {
      const verdict = r.signatureOk ? 'signature ok' : `refused: ${r.signatureFailure}`;
      process.stdout.write(`${new Date().toISOString()} ${r.method} ${r.path} ${verdict} ${r.rawBody.toString('utf8')}\n`);
    },
  });
  process.stdout.write(`mock provider listening on ${mock.url} (POST ${mock.url}/payments)\n`);
  const stop = (): void => {
    void mock.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (isMainModule()) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
