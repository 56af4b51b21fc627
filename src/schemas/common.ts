import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';

/**
 * Building blocks of the route schemas. Every schema here is plain JSON Schema: Fastify validates
 * requests with it, serialises responses with it (exactly these fields, in this order) and the
 * OpenAPI document is generated from it.
 *
 * Two annotations only the document reads (src/http/openapiComponents.ts):
 * - `title` names a schema: the document keeps one copy in `components.schemas` under that name and
 *   refers to it with `$ref` wherever it occurs. Validation and serialisation ignore titles.
 * - `x-openapi` holds keywords the document shows and neither Ajv nor the serialiser sees: `format`
 *   (an annotation in JSON Schema 2020-12; the validator has no format vocabulary loaded and the
 *   services check these values with their own codes) and the payment object's `anyOf`.
 */

/** A scalar that may also be null, as `type: [t, 'null']` (one schema, fast to serialise). */
export function Nullable<T extends TSchema>(t: T): TUnsafe<Static<T> | null> {
  // The nullable variant is another schema: it does not take the original's name.
  const { title: _title, ...s } = t as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.enum)) out.enum = [...s.enum, null];
  return Type.Unsafe<Static<T> | null>(out);
}

/** Keywords shown in the OpenAPI document only (see above). */
export const docOnly = (keywords: Record<string, unknown>) => ({ 'x-openapi': keywords });

/** An absolute URL (`format: uri` in the document); the service applies its own URL rules and codes. */
export const UrlString = (options: { maxLength?: number; description?: string } = {}) => Type.String({ ...options, ...docOnly({ format: 'uri' }) });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, seconds precision: `YYYY-MM-DDTHH:MM:SSZ`', examples: ['2026-01-15T12:00:00Z'] });
export const Amount2 = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', description: 'decimal string, 2 places', examples: ['1500.50'] });
export const Usd8 = Type.String({ pattern: '^-?\\d+\\.\\d{8}$', description: 'decimal string, 8 places', examples: ['16.34531590'] });
export const Percent4 = Type.String({ pattern: '^\\d+\\.\\d{4}$', description: 'percent, decimal string, 4 places', examples: ['2.5000'] });
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code', examples: ['RUB'] });

/** A decimal string in a request (USD amounts, percentages): never a JSON number. */
export const DecimalInput = (places = 8, description = 'decimal string') =>
  Type.String({ pattern: `^\\d{1,16}(\\.\\d{1,${places}})?$`, description, 'x-message': `must be a decimal string with at most ${places} places, e.g. "10.5"` });

/**
 * A decimal string with a bound the service enforces too, in the schema so clients see it: the
 * same `400 VALIDATION_ERROR` with the same detail as the service's own check. The patterns are
 * in `allOf`, in order, because Ajv runs `allOf` before a sibling `pattern`: the format first
 * (`must be a decimal string …`), then the bound. Given the format, a nonzero digit means
 * "greater than zero", and at most two integer digits (leading zeros aside), or 100 with a zero
 * fraction, means "at most 100".
 */
export function BoundedDecimalInput(places: number, description: string, bound: 'positive' | 'percent') {
  const format = `must be a decimal string with at most ${places} places, e.g. "10.5"`;
  const rule =
    bound === 'positive'
      ? { pattern: '[1-9]', 'x-message': 'must be greater than zero' }
      : { pattern: '^0*(\\d{1,2}(\\.\\d+)?|100(\\.0+)?)$', 'x-message': 'must be at most 100' };
  return Type.Unsafe<string>({
    type: 'string',
    description: `${description}; ${bound === 'positive' ? 'greater than zero' : 'at most 100'}`,
    'x-message': format,
    allOf: [{ pattern: `^\\d{1,16}(\\.\\d{1,${places}})?$`, 'x-message': format }, rule],
  });
}

export const TraceId = Type.String({ title: 'TraceId', description: 'identifier of the request in the logs, also in the `X-Trace-Id` header; quote it to support', examples: ['6f1c0e2a9b7d4c3e8a5b1f20'] });

export function Ok<T extends TSchema>(result: T) {
  return Type.Object({ status: Type.Literal('ok'), result, traceId: TraceId });
}

/** Every code the service answers, from the one code table (src/domain/errors.ts). */
export const ErrorCodeSchema = Type.Unsafe<ErrorCode>({
  type: 'string',
  enum: Object.keys(ERROR_STATUS),
  title: 'ErrorCode',
  description: 'the error code; the closed list of the service (`/gw/v1` only adds codes, D24); each response names the codes it can carry',
});

export const Fault = Type.Object(
  { code: ErrorCodeSchema, detail: Nullable(Type.String({ description: 'human-readable detail' })) },
  { title: 'Fault', description: 'what went wrong: branch on `code`, show or log `detail`' },
);

export const ErrorEnvelope = Type.Object(
  { status: Type.Literal('error'), fault: Fault, traceId: TraceId },
  { title: 'ErrorEnvelope', description: 'the answer of every refusal and failure (D1); the trace id is also in the `X-Trace-Id` header' },
);

/** Answered by every operation: an unexpected failure, and an outage (database or Redis down, shutting down). */
export const ALWAYS: readonly ErrorCode[] = ['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'];
/** Answered by every operation that takes a body: over 64 KiB, or not `application/json`. */
export const WITH_BODY: readonly ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/**
 * A request body schema with every object in it closed: a property the schema does not name is
 * refused (`400 VALIDATION_ERROR` naming it) before any code reads the body, so no key a client
 * invents can reach a statement or an object spread. An object that says otherwise
 * (`additionalProperties` given) keeps its own rule.
 */
export function closedBody<T extends TSchema>(schema: T): T {
  return close(schema) as T;
}

function close(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(close);
  if (node === null || typeof node !== 'object') return node;
  const src = node as Record<string | symbol, unknown>;
  const out: Record<string | symbol, unknown> = { ...src };
  for (const key of ['items', 'not', 'anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    if (key in src) out[key] = close(src[key]);
  }
  const isObject = src.type === 'object' || (Array.isArray(src.type) && src.type.includes('object'));
  if (src.properties && typeof src.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(src.properties as Record<string, unknown>).map(([k, v]) => [k, close(v)]));
  }
  if (isObject && !('additionalProperties' in src) && !('patternProperties' in src)) out.additionalProperties = false;
  return out;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  operationId: string;
  security?: Record<string, string[]>[];
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
  /** The success status and its result schema; `null` result means the route answers no JSON body of its own. */
  ok: { status: number; result: TSchema; description: string };
  /**
   * The error codes particular to the operation. `SERVICE_UNAVAILABLE` and `INTERNAL_ERROR` are
   * added to every operation, `PAYLOAD_TOO_LARGE` and `UNSUPPORTED_MEDIA_TYPE` to every one with
   * a body.
   */
  errors: readonly ErrorCode[];
  /** Extra documented answers, e.g. the empty 429. */
  extra?: Record<string, { description: string; headers?: Record<string, unknown> }>;
  hide?: boolean;
}

/**
 * A Fastify route schema from a route's documentation: request schemas, the success envelope, and
 * one error envelope per HTTP status the codes map to. The codes are also listed as
 * `x-error-codes`, from which the document names each status's codes (openapiComponents.ts).
 */
export function routeSchema<D extends RouteDoc>(doc: D): RouteSchemaOf<D> {
  const response: Record<string, unknown> = {
    [doc.ok.status]: { ...Ok(doc.ok.result), description: doc.ok.description },
  };
  const codes = [...new Set<ErrorCode>([...doc.errors, ...(doc.body ? WITH_BODY : []), ...ALWAYS])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    response[status] = { ...ErrorEnvelope, description: `error envelope; \`fault.code\` is one of: ${codes.map((c) => `\`${c}\``).join(', ')}` };
  }
  for (const [status, extra] of Object.entries(doc.extra ?? {})) {
    response[status] = { type: 'null', description: extra.description, ...(extra.headers ? { headers: extra.headers } : {}) };
  }
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    operationId: doc.operationId,
    ...(doc.security ? { security: doc.security } : {}),
    ...(doc.body ? { body: closedBody(doc.body) } : {}),
    ...(doc.querystring ? { querystring: doc.querystring } : {}),
    ...(doc.params ? { params: doc.params } : {}),
    response,
    'x-error-codes': codes,
    ...(doc.hide ? { hide: true } : {}),
  } as unknown as RouteSchemaOf<D>;
}

/** The schema keeps the request schemas' static types, so handlers are typed from them. */
export type RouteSchemaOf<D extends RouteDoc> = {
  body: D['body'] extends TSchema ? D['body'] : undefined;
  querystring: D['querystring'] extends TSchema ? D['querystring'] : undefined;
  params: D['params'] extends TSchema ? D['params'] : undefined;
  response: Record<string, unknown>;
  summary: string;
  tags: string[];
};

export const IdParam = (description: string) => Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048, description }) });

export const ADMIN_SECURITY = [{ AdminToken: [] }];
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['ADMIN_AUTH_FAILED', 'PAYLOAD_TOO_LARGE'];

/** An operator API route, as its file describes it: what the schema, the document and the error codes follow from. */
export interface AdminRouteDoc {
  id: string;
  summary: string;
  ok: TSchema;
  status?: number;
  errors?: ErrorCode[];
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
  description?: string;
  /** Extra documented answers, e.g. the empty 429. */
  extra?: RouteDoc['extra'];
}

/**
 * The route schema of an operator API route (`/admin/v1`): bearer-token security, the `operators`
 * tag, the token's refusals, `VALIDATION_ERROR` when anything is read from the request, and the
 * route's own codes.
 */
export function adminRouteSchema<O extends AdminRouteDoc>(o: O) {
  return routeSchema({
    security: ADMIN_SECURITY,
    tags: ['operators'],
    operationId: o.id,
    summary: o.summary,
    description: o.description,
    body: o.body,
    querystring: o.querystring,
    params: o.params,
    ok: { status: o.status ?? 200, result: o.ok, description: o.summary },
    errors: [...ADMIN_AUTH_ERRORS, ...(o.body || o.querystring || o.params ? (['VALIDATION_ERROR'] as ErrorCode[]) : []), ...(o.errors ?? [])],
    extra: o.extra,
  } as { security: typeof ADMIN_SECURITY; tags: string[]; operationId: string; summary: string; ok: { status: number; result: TSchema; description: string }; errors: ErrorCode[]; body: O['body']; querystring: O['querystring']; params: O['params'] });
}
