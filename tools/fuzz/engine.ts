import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { signMessage, signRequest } from '../../src/signing.js';
import { CHECKS, ResponseChecker, type CheckName } from './check.js';
import { loopbackPort, sendRaw, type RawOutcome, type RawRequest } from './http.js';
import { bodyMutations, CONTENT_TYPES, oddQuery, oddVariants, ODD_PATH_VALUES, type BodyCase, type BodyGroup } from './mutations.js';
import { arbitraryFor, deref, type JsonSchema } from './schemaArbitrary.js';

/**
 * A fuzzer driven by an OpenAPI 3.1 document. For every operation it sends, over real sockets to
 * 127.0.0.1, requests of several kinds (valid-ish, hostile bodies, wrong content types, odd path
 * parameters and query strings, broken or missing authentication, odd headers), signs them the
 * way the operation's security scheme says (desk HMAC, bearer token, provider HMAC), and judges
 * every answer against the document alone (`check.ts`). A run is reproducible from its seed
 * (with `concurrency` 1) and bounded in requests and time.
 */

export type AuthKind = 'gateway' | 'admin' | 'provider' | 'none';

export interface Operation {
  /** `POST /gw/v1/orders` */
  key: string;
  method: string;
  path: string;
  operationId?: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; schema: JsonSchema; required: boolean }[];
  /** The request body schema (`requestBody`, or the `x-request-body` extension of a body the route reads raw). */
  body?: JsonSchema;
  auth: AuthKind;
  responses: Record<string, any>;
  errorCodes?: string[];
}

export interface Credentials {
  /** A cash desk: `/gw/v1` requests are signed with it. */
  desk?: { key: string; secret: string };
  /** `Authorization: Bearer` of the operator API. */
  adminToken?: string;
  /** An `http` provider: its events are signed with it. */
  provider?: { key: string; secret: string };
}

export interface FuzzOptions {
  document: Record<string, any>;
  /** `http://127.0.0.1:PORT`; any other host is refused. */
  baseUrl: string;
  seed: number;
  /** Requests per operation; or give `requests` (spread over the operations). */
  perOperation?: number;
  requests?: number;
  /** The run stops starting requests after this long. */
  timeBudgetMs?: number;
  requestTimeoutMs?: number;
  /** Requests in flight at once; only 1 is reproducible request for request. */
  concurrency?: number;
  /** The server's clock in ms (signatures carry its time). */
  now?: () => number;
  credentials: Credentials;
  /**
   * Known ids for path parameters and id-like body fields, by the path segment before the
   * parameter (`orders`, `merchants`), by `segment/{name}`, or by parameter or property name.
   */
  ids?: Record<string, string[]>;
  /** Values to prefer for body properties and query parameters of that name. */
  hints?: Record<string, readonly unknown[]>;
  /** Checks left out of this run (a rule another change is about to satisfy). */
  skipChecks?: CheckName[];
  /** Which operations to fuzz (all in the document by default). */
  filter?: (op: Operation) => boolean;
  /** Ids in `result.id` of 2xx answers to a POST on a collection are added to that collection's ids. */
  harvestIds?: boolean;
  /** Part of every nonce and event id, so runs against one long-lived server never replay each other. */
  salt?: string;
  onRequest?: (e: { op: Operation; kind: string; summary: string; status: number | null; answer: string; violations: number }) => void;
}

export interface Finding {
  operation: string;
  check: CheckName;
  status: number | null;
  reason: string;
  /** The first request that showed it. */
  request: string;
  kind: string;
  /** How many requests showed the same (operation, check, status, reason). */
  count: number;
}

export interface FuzzReport {
  seed: number;
  operations: number;
  requests: number;
  elapsedMs: number;
  stoppedByTime: boolean;
  findings: Finding[];
  /** Answers per status, over the whole run. */
  statuses: Record<string, number>;
  /** Requests per kind. */
  kinds: Record<string, number>;
  /** Requests of the protocol phase (not counted in `requests`). */
  protocolRequests: number;
  checks: CheckName[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The operations of a document, with their security resolved to the three schemes Paygate signs with. */
export function operationsOf(doc: Record<string, any>): Operation[] {
  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, any>;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    const shared = (item.parameters ?? []) as any[];
    for (const m of METHODS) {
      const op = item[m];
      if (!op || typeof op !== 'object') continue;
      const params = [...shared, ...(op.parameters ?? [])].map((p) => deref(doc, p));
      const security = (op.security ?? doc.security ?? []) as Record<string, string[]>[];
      const used = security.flatMap((req) => Object.keys(req).map((n) => deref(doc, schemes[n] ?? {})));
      const headerNames = new Set(used.filter((s) => s.type === 'apiKey' && s.in === 'header').map((s) => String(s.name).toLowerCase()));
      const auth: AuthKind = used.some((s) => s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer')
        ? 'admin'
        : headerNames.has('x-gate-event-id')
          ? 'provider'
          : headerNames.has('x-gate-nonce')
            ? 'gateway'
            : 'none';
      const rb = op.requestBody ? deref(doc, op.requestBody) : undefined;
      const media = rb?.content ? Object.entries<any>(rb.content).find(([k]) => /json/.test(k)) : undefined;
      out.push({
        key: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        path,
        operationId: op.operationId,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
        body: media?.[1]?.schema ?? op['x-request-body'],
        auth,
        responses: op.responses ?? {},
        errorCodes: Array.isArray(op['x-error-codes']) ? op['x-error-codes'] : undefined,
      });
    }
  }
  return out;
}

type Kind =
  | 'valid'
  | 'body-types'
  | 'body-keys'
  | 'body-shape'
  | 'huge'
  | 'nested'
  | 'numbers'
  | 'encoding'
  | 'content-type'
  | 'path'
  | 'query'
  | 'auth'
  | 'headers';

/** One request of each kind per cycle; `valid` twice, since it is what reaches the deepest code. */
export const KINDS: readonly Kind[] = ['valid', 'body-types', 'content-type', 'path', 'auth', 'body-keys', 'query', 'valid', 'huge', 'body-shape', 'numbers', 'headers', 'encoding', 'nested'];

const BODY_GROUP: Partial<Record<Kind, BodyGroup[]>> = {
  'body-types': ['types'],
  'body-keys': ['keys'],
  'body-shape': ['shape'],
  huge: ['huge'],
  nested: ['nested'],
  numbers: ['numbers'],
  encoding: ['encoding'],
};

/** How the credentials are (mis)used on one request. */
type AuthCase =
  | { t: 'valid' }
  | { t: 'none' }
  | { t: 'missing'; header: string }
  | { t: 'duplicate'; header: string; how: 'same' | 'different' | 'other-case' }
  | { t: 'wrong-secret' }
  | { t: 'ts'; value: string }
  | { t: 'ts-offset'; seconds: number }
  | { t: 'nonce'; value: string }
  | { t: 'event-id'; value: string }
  | { t: 'sign'; how: 'upper' | 'short' | 'long' | 'non-hex' | 'empty' }
  | { t: 'key'; value: string }
  | { t: 'replay' }
  | { t: 'signed-with-query' }
  | { t: 'authorization'; values: readonly string[] }
  | { t: 'stray'; headers: [string, string][] };

interface Plan {
  kind: Kind;
  label: string;
  params: Record<string, string>;
  query: string;
  body: Buffer | null;
  contentTypes: string[];
  auth: AuthCase;
  headers: [string, string][];
  omit?: string[];
  chunked?: boolean;
}

const GATE_HEADERS = ['X-Gate-Key', 'X-Gate-Ts', 'X-Gate-Nonce', 'X-Gate-Sign'];
const PROVIDER_HEADERS = ['X-Gate-Key', 'X-Gate-Ts', 'X-Gate-Event-Id', 'X-Gate-Sign'];

function authCases(auth: AuthKind, hasQuery: boolean): fc.Arbitrary<AuthCase> {
  const dup = (names: string[]) =>
    fc.tuple(fc.constantFrom(...names), fc.constantFrom('same' as const, 'different' as const, 'other-case' as const)).map(([header, how]) => ({ t: 'duplicate' as const, header, how }));
  const sign = fc.constantFrom('upper' as const, 'short' as const, 'long' as const, 'non-hex' as const, 'empty' as const).map((how) => ({ t: 'sign' as const, how }));
  const ts = fc.oneof(
    fc.constantFrom('abc', '', ' 1', '1e9', '-1', '99999999999999999999', '0x10', '1.5', '0').map((value) => ({ t: 'ts' as const, value })),
    fc.constantFrom(-301, -3600, 301, 86_400 * 365, 0).map((seconds) => ({ t: 'ts-offset' as const, seconds })),
  );
  const key = fc.constantFrom('shp_00000000000000000000000000', '', 'k'.repeat(5000), 'shp_\u00e9', 'prv_unknown').map((value) => ({ t: 'key' as const, value }));
  switch (auth) {
    case 'gateway':
      return fc.oneof(
        fc.constantFrom<AuthCase>({ t: 'none' }, { t: 'wrong-secret' }, { t: 'replay' }, ...(hasQuery ? [{ t: 'signed-with-query' } as AuthCase] : [])),
        fc.constantFrom(...GATE_HEADERS).map((header) => ({ t: 'missing' as const, header })),
        dup(GATE_HEADERS),
        ts,
        fc.constantFrom('abc', '', 'n'.repeat(129), 'n'.repeat(10_000), 'nonce\u00e9\u00e9\u00e9\u00e9', 'nonce with spaces', '%00%00%00%00%00').map((value) => ({ t: 'nonce' as const, value })),
        sign,
        key,
      );
    case 'provider':
      return fc.oneof(
        fc.constantFrom<AuthCase>({ t: 'none' }, { t: 'wrong-secret' }, { t: 'replay' }),
        fc.constantFrom(...PROVIDER_HEADERS).map((header) => ({ t: 'missing' as const, header })),
        dup(PROVIDER_HEADERS),
        ts,
        fc.constantFrom('a.b', '', 'e'.repeat(129), 'evt id', 'evt\u00e9', '../x').map((value) => ({ t: 'event-id' as const, value })),
        sign,
        key,
      );
    case 'admin':
      return fc.oneof(
        fc.constantFrom<AuthCase>({ t: 'none' }),
        fc
          .constantFrom<readonly string[]>(
            ['Bearer wrong-token'],
            ['Bearer'],
            ['Bearer '],
            ['Basic YWRtaW46YWRtaW4='],
            ['Token x'],
            [`Bearer ${'t'.repeat(8000)}`],
            ['Bearer t\u00e9'],
            ['@VALID@ '],
            ['bearer @TOKEN@'],
            ['BEARER @TOKEN@'],
            ['Bearer  @TOKEN@'],
            ['@VALID@', 'Bearer wrong-token'],
            ['Bearer wrong-token', '@VALID@'],
            ['@VALID@', '@VALID@'],
          )
          .map((values) => ({ t: 'authorization' as const, values })),
      );
    case 'none':
      return fc
        .constantFrom<[string, string][]>(
          [['Authorization', 'Bearer x']],
          [['X-Gate-Key', 'shp_00000000000000000000000000'], ['X-Gate-Sign', 'zz']],
          [['Cookie', 'pg_session=x; pg_office=y']],
          [['X-Forwarded-For', '127.0.0.1, 1.2.3.4, garbage']],
          [['X-Forwarded-For', 'x'.repeat(4000)]],
        )
        .map((headers) => ({ t: 'stray' as const, headers }));
  }
}

interface HeaderCase {
  label: string;
  headers: [string, string][];
  omit?: string[];
  chunked?: boolean;
}

const HEADER_CASES: readonly HeaderCase[] = [
  { label: 'chunked body', headers: [], chunked: true },
  { label: 'two Host headers', headers: [['Host', 'evil.example']] },
  { label: 'Accept: text/html', headers: [['Accept', 'text/html']] },
  { label: 'Accept: application/xml only', headers: [['Accept', 'application/xml']] },
  { label: 'Accept-Encoding: gzip, br', headers: [['Accept-Encoding', 'gzip, br']] },
  { label: 'Content-Encoding: gzip on plain bytes', headers: [['Content-Encoding', 'gzip']] },
  { label: 'X-Forwarded-For garbage', headers: [['X-Forwarded-For', 'not-an-ip, ::ffff:999.1.1.1']] },
  { label: 'X-Forwarded-Proto garbage', headers: [['X-Forwarded-Proto', 'gopher']] },
  { label: 'long custom header', headers: [['X-Fuzz', 'v'.repeat(8000)]] },
  { label: 'latin-1 header value', headers: [['X-Fuzz', '\u00e9\u00ff']] },
  { label: '90 extra headers', headers: Array.from({ length: 90 }, (_, i): [string, string] => [`X-Fuzz-${i}`, String(i)]) },
  { label: 'X-Trace-Id from the client', headers: [['X-Trace-Id', 'client-chosen']] },
  { label: 'Range', headers: [['Range', 'bytes=0-1']] },
];

/**
 * Requests that break HTTP/1.1 itself. Node's parser refuses them before any route is chosen, so
 * they belong to no operation of the document: what is required is a 4xx (the statuses RFC 9112
 * and Node give) and a closed connection, never a 5xx, a hang or an answer as if the request were
 * fine. `head` is the request line and headers of a valid request to build on.
 */
const PROTOCOL_CASES: readonly { label: string; expect: number[]; bytes: (head: { line: string; headers: string[]; host: string }) => string }[] = [
  { label: 'no Host header', expect: [400], bytes: (h) => `${h.line}\r\n${h.headers.join('\r\n')}\r\nConnection: close\r\n\r\n` },
  {
    label: 'Content-Length and Transfer-Encoding: chunked',
    expect: [400],
    bytes: (h) => `${h.line.replace(/^GET/, 'POST')}\r\nHost: ${h.host}\r\n${h.headers.join('\r\n')}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
  },
  {
    label: 'two different Content-Length headers',
    expect: [400],
    bytes: (h) => `${h.line.replace(/^GET/, 'POST')}\r\nHost: ${h.host}\r\n${h.headers.join('\r\n')}\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`,
  },
  { label: 'header block over 16 KiB', expect: [431], bytes: (h) => `${h.line}\r\nHost: ${h.host}\r\nX-Fuzz: ${'v'.repeat(17_000)}\r\nConnection: close\r\n\r\n` },
  { label: 'request target over 16 KiB', expect: [414, 431], bytes: (h) => `${h.line.replace(' HTTP/1.1', `?q=${'q'.repeat(17_000)} HTTP/1.1`)}\r\nHost: ${h.host}\r\nConnection: close\r\n\r\n` },
  { label: 'space inside the request target', expect: [400], bytes: (h) => `${h.line.replace(' HTTP/1.1', '?a=b c HTTP/1.1')}\r\nHost: ${h.host}\r\nConnection: close\r\n\r\n` },
  { label: 'invalid method token', expect: [400], bytes: (h) => `${h.line.replace(/^GET/, 'G@T')}\r\nHost: ${h.host}\r\nConnection: close\r\n\r\n` },
  { label: 'obsolete header line folding', expect: [400], bytes: (h) => `${h.line}\r\nHost: ${h.host}\r\nX-Fuzz: a\r\n b\r\nConnection: close\r\n\r\n` },
  { label: 'header name with a space', expect: [400], bytes: (h) => `${h.line}\r\nHost: ${h.host}\r\nX Fuzz: a\r\nConnection: close\r\n\r\n` },
  { label: 'NUL in a header value', expect: [400], bytes: (h) => `${h.line}\r\nHost: ${h.host}\r\nX-Fuzz: a\u0000b\r\nConnection: close\r\n\r\n` },
  {
    label: 'invalid chunk size',
    expect: [400],
    bytes: (h) => `${h.line.replace(/^GET/, 'POST')}\r\nHost: ${h.host}\r\n${h.headers.join('\r\n')}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
  },
  { label: 'unknown HTTP version', expect: [400, 505], bytes: (h) => `${h.line.replace('HTTP/1.1', 'HTTP/9.9')}\r\nHost: ${h.host}\r\nConnection: close\r\n\r\n` },
];

/** A 32-bit seed per (run seed, operation, request) so that each request is drawn on its own. */
function subSeed(seed: number, op: string, i: number): number {
  return createHash('sha256').update(`${seed}|${op}|${i}`).digest().readInt32LE(0);
}

function draw<T>(arb: fc.Arbitrary<T>, seed: number): T {
  return fc.sample(arb, { seed, numRuns: 1 })[0]!;
}

/** The collection a path parameter names: the segment before it (`/admin/v1/orders/{id}` → `orders`). */
function segmentBefore(path: string, name: string): string {
  const parts = path.split('/');
  const i = parts.indexOf(`{${name}}`);
  return i > 0 ? parts[i - 1]! : '';
}

const preview = (b: Buffer | null) => {
  if (b === null) return 'no body';
  const s = b.subarray(0, 90).toString('utf8').replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `${b.length} B ${s}${b.length > 90 ? '…' : ''}`;
};

function describeAuth(a: AuthCase): string {
  switch (a.t) {
    case 'valid':
      return 'signed';
    case 'missing':
      return `no ${a.header}`;
    case 'duplicate':
      return `${a.header} twice (${a.how})`;
    case 'ts':
      return `X-Gate-Ts ${JSON.stringify(a.value)}`;
    case 'ts-offset':
      return `X-Gate-Ts ${a.seconds >= 0 ? '+' : ''}${a.seconds} s`;
    case 'nonce':
      return `X-Gate-Nonce ${JSON.stringify(a.value.slice(0, 20))}${a.value.length > 20 ? `… (${a.value.length})` : ''}`;
    case 'event-id':
      return `X-Gate-Event-Id ${JSON.stringify(a.value.slice(0, 20))}`;
    case 'sign':
      return `X-Gate-Sign ${a.how}`;
    case 'key':
      return `X-Gate-Key ${JSON.stringify(a.value.slice(0, 34))}`;
    case 'authorization':
      return `Authorization ${a.values.map((v) => JSON.stringify(v.replace(/@VALID@|@TOKEN@/g, '<token>').slice(0, 30))).join(' + ')}`;
    case 'stray':
      return `stray ${a.headers.map(([k]) => k).join(', ')}`;
    default:
      return a.t;
  }
}

/** Reasons with ids, numbers and trace ids folded, so the same fault shows once with a count. */
function foldReason(reason: string): string {
  return reason
    .replace(/"traceId":"[^"]*"/g, '"traceId":…')
    .replace(/\b(ord|dsk|mer|prv|apl|trf|lim|evt|msg|usr|wdr|shp)_[A-Za-z0-9]+/g, '$1_…')
    .replace(/body [\s\S]*$/, 'body …')
    .replace(/\d+/g, 'N');
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const port = loopbackPort(opts.baseUrl);
  const doc = opts.document;
  const skip = new Set(opts.skipChecks ?? []);
  const checks = CHECKS.filter((c) => !skip.has(c));
  const checker = new ResponseChecker(doc, new Set(checks));
  const ops = operationsOf(doc).filter((o) => opts.filter?.(o) ?? true);
  const perOp = Math.max(1, opts.perOperation ?? Math.ceil((opts.requests ?? ops.length * KINDS.length) / Math.max(1, ops.length)));
  const now = opts.now ?? Date.now;
  const deadline = performance.now() + (opts.timeBudgetMs ?? 60_000);
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const salt = opts.salt ?? Date.now().toString(36);
  const ids = new Map<string, string[]>(Object.entries(opts.ids ?? {}).map(([k, v]) => [k, [...v]]));
  const hints = opts.hints ?? {};
  const findings = new Map<string, Finding>();
  const statuses: Record<string, number> = {};
  const kinds: Record<string, number> = {};
  let counter = 0;
  let lastNonce: string | null = null;
  let lastEvent: { id: string; ts: string; body: Buffer } | null = null;
  let requests = 0;
  let stoppedByTime = false;

  const idsFor = (path: string, name: string): string[] => {
    const seg = segmentBefore(path, name);
    return ids.get(`${seg}/{${name}}`) ?? ids.get(seg) ?? ids.get(name) ?? [];
  };
  const bodyHints = (): Record<string, readonly unknown[]> => {
    const out: Record<string, readonly unknown[]> = { ...hints };
    for (const [k, v] of ids) if (!k.includes('/') && v.length && !out[k]) out[k] = v;
    return out;
  };

  function arbs(op: Operation) {
    const root = doc;
    const h = bodyHints();
    const validBody: fc.Arbitrary<unknown> = op.body ? arbitraryFor(op.body, { root, hints: h, maxDepth: 3 }) : fc.constant({});
    const props = op.body ? Object.keys(deref(root, op.body).properties ?? {}) : [];
    const pathParam = (name: string, schema: JsonSchema): fc.Arbitrary<string> => {
      const known = idsFor(op.path, name);
      const fromSchema = arbitraryFor(schema, { root, maxStringLength: 40 }).map((v) => encodeURIComponent(String(v)));
      return known.length ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...known.map(encodeURIComponent)) }, { weight: 1, arbitrary: fromSchema }) : fromSchema;
    };
    const validParams = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathParam(p.name, p.schema)]))) as fc.Arbitrary<Record<string, string>>;
    const queryModel = Object.fromEntries(
      op.queryParams.map((q) => {
        const known = hints[q.name] ?? idsFor(op.path, q.name);
        const own = arbitraryFor(q.schema, { root, maxStringLength: 40 }).map(String);
        return [q.name, known.length ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known.map(String)) }, { weight: 1, arbitrary: own }) : own];
      }),
    );
    const validQuery = fc.record(queryModel, { requiredKeys: op.queryParams.filter((q) => q.required).map((q) => q.name) }) as fc.Arbitrary<Record<string, string>>;
    return { validBody, props, validParams, validQuery };
  }

  function planFor(op: Operation, kind: Kind, seed: number): Plan {
    const a = arbs(op);
    const encodeQuery = (q: Record<string, string>) => Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    // An operation without a request body gets none (a POST still says `Content-Length: 0`).
    const validBody = (): Buffer | null => (op.body ? Buffer.from(JSON.stringify(draw(a.validBody, seed))) : null);
    const plan: Plan = {
      kind,
      label: 'valid',
      params: draw(a.validParams, seed),
      query: encodeQuery(draw(a.validQuery, seed ^ 0x5bd1e995)),
      body: validBody(),
      contentTypes: [],
      auth: { t: 'valid' },
      headers: [],
    };
    const group = BODY_GROUP[kind];
    if (group) {
      const m = bodyMutations(a.validBody, a.props);
      const c: BodyCase = draw(fc.oneof(...group.map((g) => m[g])), seed);
      plan.body = c.body;
      plan.label = c.label;
      if (kind === 'huge') {
        // Long path parameters and queries are huge values too.
        const pick = draw(fc.integer({ min: 0, max: 3 }), seed ^ 0x1234);
        const name = op.pathParams[0]?.name;
        if (pick === 1 && name) {
          plan.params[name] = 'p'.repeat(draw(fc.constantFrom(2048, 2049, 10_000), seed));
          plan.label = `path parameter ${name} of ${plan.params[name]!.length} characters`;
          plan.body = validBody();
        } else if (pick === 2) {
          plan.query = `${plan.query ? `${plan.query}&` : ''}${op.queryParams[0]?.name ?? 'q'}=${'q'.repeat(draw(fc.constantFrom(2_000, 7_000), seed))}`;
          plan.label = `query value of ${plan.query.length} characters`;
          plan.body = validBody();
        }
      }
    } else if (kind === 'content-type') {
      const c = draw(fc.constantFrom(...CONTENT_TYPES), seed);
      const o = (op.body ? draw(a.validBody, seed) : {}) as Record<string, unknown>;
      plan.body = c.encode ? c.encode(o && typeof o === 'object' ? o : {}) : Buffer.from(JSON.stringify(o));
      plan.contentTypes = c.contentTypes;
      plan.label = `content type: ${c.label}`;
    } else if (kind === 'path') {
      const name = op.pathParams.length ? draw(fc.constantFrom(...op.pathParams.map((p) => p.name)), seed) : null;
      if (name) {
        const known = idsFor(op.path, name);
        const values = [...ODD_PATH_VALUES, ...known.slice(0, 3).flatMap(oddVariants)];
        plan.params[name] = draw(fc.constantFrom(...values), seed ^ 0x9e3779b9);
        plan.label = `path ${name}=${plan.params[name]!.slice(0, 40)}${plan.params[name]!.length > 40 ? `… (${plan.params[name]!.length})` : ''}`;
      } else {
        // No parameter: a trailing slash or a doubled slash is the nearest thing.
        plan.label = 'path without parameters, valid request';
      }
    } else if (kind === 'query') {
      const c = draw(
        oddQuery(
          op.queryParams.map((q) => q.name),
          a.validQuery,
        ),
        seed,
      );
      plan.query = c.query;
      plan.label = `query ${c.label}`;
    } else if (kind === 'auth') {
      plan.auth = draw(authCases(op.auth, plan.query !== ''), seed);
      plan.label = `auth: ${describeAuth(plan.auth)}`;
    } else if (kind === 'headers') {
      const c = draw(fc.constantFrom(...HEADER_CASES), seed);
      plan.headers = [...c.headers];
      plan.omit = c.omit;
      plan.chunked = c.chunked;
      if (plan.body === null && c.chunked) plan.body = Buffer.from('{}');
      plan.label = `headers: ${c.label}`;
    }
    if (plan.body !== null && plan.body.length > 0 && kind !== 'content-type') plan.contentTypes = ['application/json'];
    return plan;
  }

  /** The request as it goes on the wire, signed as the plan says. */
  function build(op: Operation, plan: Plan): RawRequest {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, n: string) => plan.params[n] ?? '');
    const target = plan.query ? `${path}?${plan.query}` : path;
    const body = plan.body;
    const bytes = body ?? Buffer.alloc(0);
    const headers: [string, string][] = plan.contentTypes.map((c) => ['Content-Type', c]);
    const a = plan.auth;
    const tsNow = Math.floor(now() / 1000);
    const ts = a.t === 'ts' ? a.value : String(tsNow + (a.t === 'ts-offset' ? a.seconds : 0));
    const id = `fz${salt}x${opts.seed}x${++counter}`;
    let auth: [string, string][] = [];
    if (op.auth === 'gateway' && opts.credentials.desk) {
      const desk = opts.credentials.desk;
      const nonce = a.t === 'nonce' ? a.value : a.t === 'replay' && lastNonce ? lastNonce : `n${id}`;
      const secret = a.t === 'wrong-secret' ? `${desk.secret}x` : desk.secret;
      let sign = signRequest(secret, ts, nonce, op.method, a.t === 'signed-with-query' ? target : path, bytes);
      if (a.t === 'valid' && !plan.omit && !plan.chunked) lastNonce = nonce;
      if (a.t === 'sign') sign = { upper: sign.toUpperCase(), short: sign.slice(0, 63), long: `${sign}0`, 'non-hex': `${sign.slice(0, 63)}g`, empty: '' }[a.how];
      auth = [
        ['X-Gate-Key', a.t === 'key' ? a.value : desk.key],
        ['X-Gate-Ts', ts],
        ['X-Gate-Nonce', nonce],
        ['X-Gate-Sign', sign],
      ];
    } else if (op.auth === 'provider' && opts.credentials.provider) {
      const p = opts.credentials.provider;
      let eventId = a.t === 'event-id' ? a.value : `e${id}`;
      let signedTs = ts;
      let signedBody = bytes;
      if (a.t === 'replay' && lastEvent) ({ id: eventId, ts: signedTs, body: signedBody } = lastEvent);
      let sign = signMessage(a.t === 'wrong-secret' ? `${p.secret}x` : p.secret, signedTs, eventId, signedBody);
      if (a.t === 'valid') lastEvent = { id: eventId, ts: signedTs, body: Buffer.from(bytes) };
      if (a.t === 'sign') sign = { upper: sign.toUpperCase(), short: sign.slice(0, 63), long: `${sign}0`, 'non-hex': `${sign.slice(0, 63)}g`, empty: '' }[a.how];
      auth = [
        ['X-Gate-Key', a.t === 'key' ? a.value : p.key],
        ['X-Gate-Ts', signedTs],
        ['X-Gate-Event-Id', eventId],
        ['X-Gate-Sign', sign],
      ];
      if (a.t === 'replay' && lastEvent) plan.body = lastEvent.body;
    } else if (op.auth === 'admin' && opts.credentials.adminToken) {
      const token = opts.credentials.adminToken;
      const values = a.t === 'authorization' ? a.values : [`Bearer ${token}`];
      auth = values.map((v) => ['Authorization', v.replace('@VALID@', `Bearer ${token}`).replace('@TOKEN@', token)]);
    }
    if (a.t === 'none') auth = [];
    if (a.t === 'missing') auth = auth.filter(([k]) => k !== a.header);
    if (a.t === 'duplicate') {
      const i = auth.findIndex(([k]) => k === a.header);
      if (i >= 0) {
        const [k, v] = auth[i]!;
        auth.splice(i + 1, 0, a.how === 'same' ? [k, v] : a.how === 'other-case' ? [k.toLowerCase(), v] : [k, `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`]);
      }
    }
    if (a.t === 'stray') auth = [...a.headers];
    return { method: op.method, target, headers: [...headers, ...auth, ...plan.headers], body: plan.body, chunked: plan.chunked, omit: plan.omit };
  }

  function summary(req: RawRequest, plan: Plan): string {
    const target = req.target.length > 160 ? `${req.target.slice(0, 160)}… (${req.target.length})` : req.target;
    const ct = plan.contentTypes.length ? plan.contentTypes.map((c) => JSON.stringify(c)).join('+') : 'no content type';
    return `${req.method} ${target} [${plan.kind}: ${plan.label}; ${describeAuth(plan.auth)}; ${ct}] body: ${preview(req.body)}`;
  }

  function record(op: Operation, plan: Plan, req: RawRequest, outcome: RawOutcome): number {
    const violations = outcome.ok
      ? checker.check(op.key, op, outcome.response)
      : checks.includes('no-answer')
        ? [{ check: 'no-answer' as const, reason: outcome.error }]
        : [];
    const status = outcome.ok ? outcome.response.status : null;
    statuses[status ?? 'none'] = (statuses[status ?? 'none'] ?? 0) + 1;
    for (const v of violations) {
      const key = `${op.key}|${v.check}|${status}|${foldReason(v.reason)}`;
      const f = findings.get(key);
      if (f) f.count++;
      else findings.set(key, { operation: op.key, check: v.check, status, reason: v.reason, request: summary(req, plan), kind: plan.kind, count: 1 });
    }
    return violations.length;
  }

  function harvest(op: Operation, outcome: RawOutcome): void {
    if (!opts.harvestIds || !outcome.ok || op.method !== 'POST' || outcome.response.status >= 300) return;
    const last = op.path.split('/').pop()!;
    if (last.startsWith('{')) return;
    try {
      const id = JSON.parse(outcome.response.body.toString('utf8'))?.result?.id;
      if (typeof id !== 'string') return;
      const list = ids.get(last) ?? [];
      if (!list.includes(id)) list.push(id);
      // The given ids stay first; the newest harvested ones are kept.
      if (list.length > 24) list.splice((opts.ids?.[last]?.length ?? 0), 1);
      ids.set(last, list);
    } catch {
      /* not JSON: nothing to keep */
    }
  }

  const started = performance.now();
  const jobs: { op: Operation; i: number }[] = [];
  for (let i = 0; i < perOp; i++) for (const op of ops) jobs.push({ op, i });
  let next = 0;
  const worker = async () => {
    for (;;) {
      if (next >= jobs.length) return;
      if (performance.now() > deadline) {
        stoppedByTime = true;
        return;
      }
      const { op, i } = jobs[next++]!;
      const kind = KINDS[(i + ops.indexOf(op)) % KINDS.length]!;
      const plan = planFor(op, kind, subSeed(opts.seed, op.key, i));
      const req = build(op, plan);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      const outcome = await sendRaw(port, req, timeoutMs);
      requests++;
      const n = record(op, plan, req, outcome);
      harvest(op, outcome);
      opts.onRequest?.({ op, kind, summary: summary(req, plan), status: outcome.ok ? outcome.response.status : null, answer: outcome.ok ? outcome.response.body.toString('utf8').slice(0, 300) : outcome.error, violations: n });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, worker));

  // The protocol phase: on the first operation that reads without parameters, as its own client would send it.
  let protocolRequests = 0;
  const reader = ops.find((o) => o.method === 'GET' && o.pathParams.length === 0 && o.queryParams.every((q) => !q.required));
  if (reader && checks.includes('protocol') && performance.now() <= deadline) {
    const signedHeaders = build(reader, { ...planFor(reader, 'valid', opts.seed), query: '', body: null, contentTypes: [] }).headers.map(([k, v]) => `${k}: ${v}`);
    for (const c of PROTOCOL_CASES) {
      const bytes = Buffer.from(c.bytes({ line: `GET ${reader.path} HTTP/1.1`, headers: signedHeaders, host: `127.0.0.1:${port}` }), 'latin1');
      const outcome = await sendRaw(port, { method: 'GET', target: reader.path, headers: [], body: null, raw: bytes }, timeoutMs);
      protocolRequests++;
      const status = outcome.ok ? outcome.response.status : null;
      statuses[status ?? 'none'] = (statuses[status ?? 'none'] ?? 0) + 1;
      if (status === null || !c.expect.includes(status)) {
        const reason = status === null ? (outcome as { error: string }).error : `expected ${c.expect.join(' or ')}, got ${status}: ${outcome.ok ? outcome.response.body.toString('utf8').slice(0, 160) : ''}`;
        findings.set(`protocol|${c.label}`, { operation: `${reader.key} (protocol)`, check: 'protocol', status, reason, request: `${c.label}: ${preview(bytes)}`, kind: 'protocol', count: 1 });
      }
    }
  }

  return {
    protocolRequests,
    seed: opts.seed,
    operations: ops.length,
    requests,
    elapsedMs: Math.round(performance.now() - started),
    stoppedByTime,
    findings: [...findings.values()],
    statuses,
    kinds,
    checks,
  };
}

/** Findings as text, one block per finding, grouped by check. */
export function formatFindings(findings: readonly Finding[]): string {
  const order = new Map(CHECKS.map((c, i) => [c, i]));
  return [...findings]
    .sort((a, b) => order.get(a.check)! - order.get(b.check)! || a.operation.localeCompare(b.operation))
    .map((f) => `[${f.check}] ${f.operation} → ${f.status ?? 'no answer'} (${f.count}×)\n  reason:  ${f.reason}\n  request: ${f.request}`)
    .join('\n');
}
