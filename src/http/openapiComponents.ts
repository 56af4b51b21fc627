import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';
import { ALWAYS, closedBody, ErrorEnvelope, WITH_BODY } from '../schemas/common.js';

/**
 * Turns the document @fastify/swagger generates from the route schemas (every schema inline) into
 * one typed clients can use: named schemas in `components.schemas`, shared responses and headers,
 * every status an operation can answer. It only reads and writes the document: the route schemas
 * Fastify validates and serialises with are never touched (the document is a deep copy).
 *
 * - `x-openapi` (schemas/common.ts `docOnly`): its keywords join the schema they sit on.
 * - `title`: a schema with a title is kept once, under that name, in `components.schemas`, and
 *   every occurrence becomes a `$ref` (with its own `description` beside it when that differs).
 *   Two different schemas with one title are a mistake in the route schemas, refused here.
 * - Error responses are rebuilt from `x-error-codes` and the code table: per status, the
 *   `ErrorEnvelope` narrowed to that status's codes, or a shared response of
 *   `components.responses` where one fits (a single code, the signature checks, the `429`).
 * - Every operation answers `503 SERVICE_UNAVAILABLE` and `500 INTERNAL_ERROR`, every one with a
 *   body, and every one but GET and HEAD (a body sent where none is taken is still read),
 *   `413 PAYLOAD_TOO_LARGE` and `415 UNSUPPORTED_MEDIA_TYPE`; every response carries
 *   `X-Trace-Id`.
 */

type Json = Record<string, any>;

const SCHEMAS = '#/components/schemas/';
const RESPONSES = '#/components/responses/';
const HEADERS = '#/components/headers/';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Keywords whose values are data, never schemas: nothing in them is named or merged. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'x-error-codes']);

export const DOC_ONLY_KEYWORD = 'x-openapi';
/** The route schema key of a body the route documents but does not let Fastify validate. */
export const DOCUMENTED_BODY_KEYWORD = 'x-request-body';

const TRACE_ID_HEADER = { 'X-Trace-Id': { $ref: `${HEADERS}TraceId` } };

const HEADER_COMPONENTS: Json = {
  TraceId: {
    description: 'the request\'s trace id, the same as `traceId` in the envelope: quote it to support',
    required: true,
    schema: { type: 'string', examples: ['6f1c0e2a9b7d4c3e8a5b1f20'] },
  },
  RetryAfter: {
    description: 'whole seconds to wait before trying again (D6)',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

const GATEWAY_AUTH: readonly ErrorCode[] = ['AUTH_HEADERS_MISSING', 'AUTH_TIMESTAMP_INVALID', 'AUTH_TIMESTAMP_SKEW', 'AUTH_NONCE_INVALID', 'AUTH_FAILED'];

/** What a shared error response says, where more can be said than its code. */
const DESCRIBED: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'the request is malformed: `fault.detail` names the field (D3)',
  ADMIN_AUTH_FAILED: 'the bearer token is missing or wrong',
  AUTH_FAILED: 'the message is not authenticated: a signing header missing, a stale timestamp, an unknown key or a wrong signature',
  REPLAY_DETECTED: 'the nonce was already used for this cash desk within 360 s',
  PAYLOAD_TOO_LARGE: 'the body is over 64 KiB (D3)',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent as `application/json` (a `charset` parameter is fine)',
  SERVICE_UNAVAILABLE: 'a store the service needs (the database, Redis) cannot be reached right now, or the instance is shutting down: retry with back-off',
  INTERNAL_ERROR: 'an unexpected failure, logged with the trace id: quote it to support',
};

const pascal = (code: string) => code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
const codeList = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The name of a shared response for these codes, or null where the operation's own set is shown inline. */
function sharedResponseName(codes: readonly ErrorCode[]): string | null {
  if (codes.length === 1) return pascal(codes[0]);
  if (codes.length === GATEWAY_AUTH.length && GATEWAY_AUTH.every((c) => codes.includes(c))) return 'GatewayAuthFailed';
  return null;
}

function errorResponse(codes: readonly ErrorCode[], description: string): Json {
  return {
    description,
    headers: { ...TRACE_ID_HEADER },
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: `${SCHEMAS}ErrorEnvelope` },
            { type: 'object', required: ['fault'], properties: { fault: { type: 'object', required: ['code'], properties: { code: { enum: [...codes] } } } } },
          ],
        },
      },
    },
  };
}

function describeCodes(codes: readonly ErrorCode[]): string {
  if (codes.length === 1) return DESCRIBED[codes[0]] ? `\`${codes[0]}\`: ${DESCRIBED[codes[0]]}` : `error envelope; \`fault.code\` is \`${codes[0]}\``;
  return `error envelope; \`fault.code\` is one of: ${codeList(codes)}`;
}

const TOO_MANY_REQUESTS: Json = {
  description: 'rate limited: empty body; come back after `Retry-After` seconds (D6)',
  headers: { 'Retry-After': { $ref: `${HEADERS}RetryAfter` }, ...TRACE_ID_HEADER },
};

function finishOperation(op: Json, responses: Json, method: string): void {
  const body = op.requestBody as Json | undefined;
  const bodySchema = body?.content?.['application/json']?.schema as Json | undefined;
  // An empty body reads as `{}` (rawBody.ts), so a body without required fields may be left out.
  if (body && bodySchema && !(Array.isArray(bodySchema.required) && bodySchema.required.length > 0)) body.required = false;

  // The server reads a body sent with any method but GET and HEAD, also where the operation takes
  // none (an empty one passes, anything else must be JSON within the limit), so those answer 413 and 415 too.
  const readsBody = body !== undefined || (method !== 'get' && method !== 'head');
  const codes = [...new Set<ErrorCode>([...((op['x-error-codes'] ?? []) as ErrorCode[]), ...(readsBody ? WITH_BODY : []), ...ALWAYS])];
  op['x-error-codes'] = codes;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);

  const out: Json = {};
  for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
    if (status === '429') {
      responses.TooManyRequests ??= TOO_MANY_REQUESTS;
      out[status] = { $ref: `${RESPONSES}TooManyRequests` };
    } else if (!byStatus.has(Number(status))) {
      const { description, headers, ...rest } = r;
      // routeSchema puts the response's description on its schema too, for @fastify/swagger to find.
      for (const media of Object.values<Json>(rest.content ?? {})) if (media.schema?.description === description) delete media.schema.description;
      out[status] = { description, headers: { ...TRACE_ID_HEADER, ...headers }, ...rest };
    }
  }
  // An operation whose body is no JSON document says in its own words what its 413 and 415 mean.
  const own = (op['x-error-descriptions'] ?? {}) as Partial<Record<ErrorCode, string>>;
  delete op['x-error-descriptions'];
  for (const [status, statusCodes] of byStatus) {
    const name = sharedResponseName(statusCodes);
    if (statusCodes.length === 1 && own[statusCodes[0]!]) {
      out[status] = errorResponse(statusCodes, `\`${statusCodes[0]}\`: ${own[statusCodes[0]!]}`);
      continue;
    }
    if (name === null) {
      out[status] = errorResponse(statusCodes, describeCodes(statusCodes));
      continue;
    }
    responses[name] ??= errorResponse(statusCodes, name === 'GatewayAuthFailed' ? `the signature checks failed (see the security schemes); \`fault.code\` is one of: ${codeList(statusCodes)}` : describeCodes(statusCodes));
    out[status] = { $ref: `${RESPONSES}${name}` };
  }
  op.responses = Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

/** `x-openapi` keywords join the schema they sit on, in its place. */
function applyDocOnly(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(applyDocOnly);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === DOC_ONLY_KEYWORD && isObject(v)) Object.assign(out, applyDocOnly(v));
    else out[k] = DATA_KEYWORDS.has(k) ? v : applyDocOnly(v);
  }
  return out;
}

/** JSON with object keys sorted: two schemas are the same schema when these are equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (!isObject(v)) return JSON.stringify(v);
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
    .join(',')}}`;
}

/** Names every titled schema: the first occurrence goes to `components.schemas`, each one becomes a `$ref`. */
class SchemaNames {
  readonly schemas = new Map<string, { schema: Json; key: string }>();

  hoist(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n));
    if (!isObject(node)) return node;
    const out: Json = {};
    // Inner schemas first, so an outer schema is compared with its inner ones already named.
    for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYWORDS.has(k) ? v : k === 'properties' && isObject(v) ? this.hoistEach(v) : this.hoist(v);
    if (typeof out.title !== 'string' || out.$ref !== undefined) return out;
    const { title: name, ...schema } = out;
    const { description, ...shape } = schema;
    const key = canonical(shape);
    const known = this.schemas.get(name);
    if (!known) this.schemas.set(name, { schema, key });
    else if (known.key !== key) throw new Error(`OpenAPI: two different schemas are titled ${name}; give one of them another title`);
    const kept = (known ?? this.schemas.get(name)!).schema.description;
    return description !== undefined && description !== kept ? { $ref: `${SCHEMAS}${name}`, description } : { $ref: `${SCHEMAS}${name}` };
  }

  /** A `properties` map: its keys are field names (a field may be called `title`), its values schemas. */
  private hoistEach(props: Json): Json {
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.hoist(v)]));
  }
}

export function finishDocument(generated: Json): Json {
  const doc = applyDocOnly(JSON.parse(JSON.stringify(generated))) as Json;
  const responses: Json = {};
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) if (isObject(item[method])) finishOperation(item[method], responses, method);
  }

  const names = new SchemaNames();
  // The envelope every error response refers to, named (with Fault and ErrorCode) from its title.
  names.hoist(JSON.parse(JSON.stringify(ErrorEnvelope)));
  doc.paths = names.hoist(doc.paths);
  if (doc.webhooks) doc.webhooks = names.hoist(doc.webhooks);
  const sharedResponses = names.hoist(responses) as Json;

  const components = (doc.components ?? {}) as Json;
  const schemas = { ...(components.schemas ?? {}) } as Json;
  for (const [name, { schema }] of names.schemas) schemas[name] = schema;
  const sorted = (o: Json) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  doc.components = { ...components, schemas: sorted(schemas), responses: sorted(sharedResponses), headers: HEADER_COMPONENTS };
  return doc;
}

/**
 * A route schema as the document shows it: a body the route keeps under `x-request-body` (checked
 * by the service after the signature, so Fastify must not validate it) becomes the documented
 * request body, closed like every request body and named after the operation unless it has a
 * title. Used as @fastify/swagger's `transform`; the route's own schema object is not changed.
 */
export function documentedRouteSchema(schema: Json | undefined): Json | undefined {
  if (!schema || !(DOCUMENTED_BODY_KEYWORD in schema)) return schema;
  const { [DOCUMENTED_BODY_KEYWORD]: documented, ...rest } = schema;
  const body = closedBody(JSON.parse(JSON.stringify(documented))) as Json;
  if (typeof body.title !== 'string' && typeof rest.operationId === 'string') body.title = `${rest.operationId[0].toUpperCase()}${rest.operationId.slice(1)}Request`;
  return { ...rest, body };
}

/** The document with every local `$ref` replaced by what it points at (siblings such as `description` kept): for the renderers. */
export function dereference(doc: Json): Json {
  const at = (ref: string): unknown => ref.slice(2).split('/').reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  const resolve = (node: unknown, seen: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => resolve(n, seen));
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/') && !seen.has(node.$ref)) {
      const { $ref, ...siblings } = node;
      return { ...(resolve(at($ref), new Set([...seen, $ref])) as Json), ...(resolve(siblings, seen) as Json) };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v, seen)]));
  };
  return resolve(doc, new Set()) as Json;
}
