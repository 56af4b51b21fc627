import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { RawResponse } from './http.js';
import { deref, type JsonSchema } from './schemaArbitrary.js';

/**
 * What every answer must satisfy, judged against the OpenAPI document alone. Each rule is a named
 * check that a run can switch off (a rule another change is about to satisfy), never a loosened one.
 */
export const CHECKS = [
  /** No 5xx, except a 503 the operation documents. */
  'server-error',
  /** The status is listed for the operation (`default` does not count: it documents nothing). */
  'undocumented-status',
  /** The body matches the documented schema of that status (and is empty where none is documented). */
  'schema',
  /** An error envelope's `fault.code` is one the operation lists, under the status it was answered with. */
  'error-code',
  /** Response headers the status documents are present and match their schema (`Retry-After` of a 429). */
  'documented-headers',
  /** `X-Trace-Id` on every answer, equal to the body's `traceId` when there is one. */
  'trace-id',
  /** `X-Content-Type-Options: nosniff` on every answer. */
  'nosniff',
  /** The server answered at all: no reset, no timeout, no half answer. */
  'no-answer',
  /** Requests HTTP/1.1 itself forbids (no Host, Content-Length with chunked, a 17 KiB header) get a 4xx from the parser. */
  'protocol',
] as const;

export type CheckName = (typeof CHECKS)[number];

export interface Violation {
  check: CheckName;
  reason: string;
}

export interface OperationResponses {
  responses: Record<string, any>;
  /** `x-error-codes`: every code the operation may answer, when the document lists them. */
  errorCodes?: string[];
}

/** Media type of a Content-Type value, lower case, without parameters. */
export const mediaType = (v: string | undefined) => (v ?? '').split(';')[0]!.trim().toLowerCase();

/** The codes a response description names (`error envelope; \`fault.code\` is one of: \`A\`, \`B\``). */
export function codesInDescription(description: unknown): string[] | null {
  if (typeof description !== 'string') return null;
  const at = description.indexOf('one of:');
  if (at < 0) return null;
  return [...description.slice(at).matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
}

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly document: Record<string, any>,
    private readonly enabled: ReadonlySet<CheckName>,
  ) {
    // Plain JSON Schema 2020-12 (what OpenAPI 3.1 uses); annotations and `x-` keywords are ignored.
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    this.ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
    this.ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
    this.ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S*$/i);
    this.ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  }

  /**
   * A validator for a schema of the document: the document's `components` go along with it, so
   * `#/components/schemas/…` resolves inside the compiled schema exactly as it does in the document.
   */
  private validator(key: string, schema: JsonSchema): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile({ ...schema, ...(this.document.components ? { components: this.document.components } : {}) });
      this.compiled.set(key, v);
    }
    return v;
  }

  check(opKey: string, op: OperationResponses, res: RawResponse): Violation[] {
    const out: Violation[] = [];
    const on = (c: CheckName) => this.enabled.has(c);
    const status = String(res.status);
    const documented = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses[`${status[0]}xx`];
    const response = documented ? deref(this.document, documented) : undefined;
    const bodyText = res.body.toString('utf8');
    const contentType = res.headers['content-type']?.[0];

    if (on('server-error') && res.status >= 500 && !(res.status === 503 && response)) {
      out.push({ check: 'server-error', reason: `${res.status}: ${bodyText.slice(0, 200)}` });
    }
    if (on('undocumented-status') && !response) {
      out.push({ check: 'undocumented-status', reason: `${res.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})` });
    }

    let parsed: unknown;
    let isJson = false;
    if (res.body.length > 0 && /json/.test(mediaType(contentType))) {
      try {
        parsed = JSON.parse(bodyText);
        isJson = true;
      } catch {
        /* judged below */
      }
    }

    if (response && on('schema')) {
      const content = response.content as Record<string, { schema?: JsonSchema }> | undefined;
      if (!content || Object.keys(content).length === 0) {
        if (res.body.length > 0) out.push({ check: 'schema', reason: `no body is documented for ${status}, got ${res.body.length} bytes: ${bodyText.slice(0, 120)}` });
      } else if (res.body.length === 0) {
        out.push({ check: 'schema', reason: `empty body; documented: ${Object.keys(content).join(', ')}` });
      } else {
        const media = Object.entries(content).find(([m]) => m.split(';')[0]!.trim().toLowerCase() === mediaType(contentType));
        if (!media) {
          out.push({ check: 'schema', reason: `Content-Type ${contentType ?? '(none)'} is not documented (${Object.keys(content).join(', ')})` });
        } else if (/json/.test(media[0])) {
          if (!isJson) out.push({ check: 'schema', reason: `body is not JSON: ${bodyText.slice(0, 120)}` });
          else if (media[1].schema) {
            const validate = this.validator(`${opKey} ${status} ${media[0]}`, media[1].schema);
            if (!validate(parsed)) {
              const e = validate.errors?.[0];
              out.push({ check: 'schema', reason: `body does not match: ${e?.instancePath || '/'} ${e?.message ?? ''} ${e?.params ? JSON.stringify(e.params) : ''}; body ${bodyText.slice(0, 160)}` });
            }
          }
        }
      }
    }

    const fault = isJson ? (parsed as { status?: unknown; fault?: { code?: unknown } })?.fault : undefined;
    if (on('error-code') && fault && typeof fault.code === 'string' && (parsed as { status?: unknown }).status === 'error') {
      if (op.errorCodes && !op.errorCodes.includes(fault.code)) {
        out.push({ check: 'error-code', reason: `fault.code ${fault.code} is not among the operation's x-error-codes` });
      } else {
        const named = codesInDescription(response?.description);
        if (named && !named.includes(fault.code)) out.push({ check: 'error-code', reason: `fault.code ${fault.code} is not documented for ${status} (${named.join(', ')})` });
      }
    }

    if (on('documented-headers') && response?.headers) {
      for (const [name, h] of Object.entries<any>(response.headers)) {
        const values = res.headers[name.toLowerCase()];
        if (!values) {
          out.push({ check: 'documented-headers', reason: `documented header ${name} missing on ${status}` });
          continue;
        }
        const schema = deref(this.document, h).schema as JsonSchema | undefined;
        if (schema) {
          const raw = values[0]!;
          const typed = schema.type === 'integer' || schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw) : raw;
          const validate = this.validator(`header ${opKey} ${status} ${name}`, schema);
          if (!validate(typed)) out.push({ check: 'documented-headers', reason: `header ${name}: ${raw} does not match ${JSON.stringify(schema)}` });
        }
      }
    }

    if (on('trace-id')) {
      const header = res.headers['x-trace-id']?.[0];
      const bodyTrace = isJson ? (parsed as { traceId?: unknown })?.traceId : undefined;
      if (!header) out.push({ check: 'trace-id', reason: `no X-Trace-Id header on ${status}` });
      else if (typeof bodyTrace === 'string' && bodyTrace !== header) out.push({ check: 'trace-id', reason: `X-Trace-Id ${header} differs from traceId ${bodyTrace}` });
    }

    if (on('nosniff')) {
      const v = res.headers['x-content-type-options'];
      if (!v || v.length !== 1 || v[0]!.toLowerCase() !== 'nosniff') out.push({ check: 'nosniff', reason: `X-Content-Type-Options is ${v ? JSON.stringify(v) : 'missing'} on ${status}` });
    }
    return out;
  }
}
