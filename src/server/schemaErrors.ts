import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { AppError, type ErrorCode } from '../domain/errors.js';

/**
 * Request validation from the route schemas. Bodies are never coerced (D8: a JSON string is not a
 * number), query strings and path parameters are (they only ever arrive as text). The first
 * failure answers (`allErrors: false`), properties being checked in the order the schema lists
 * them, so the order of the checks is written down in the schema itself.
 */
function makeAjv(coerceTypes: boolean): Ajv {
  return new Ajv({
    coerceTypes,
    allErrors: false,
    removeAdditional: false,
    useDefaults: false,
    verbose: true,
    strict: false,
    // Annotations of ours that validation ignores.
    keywords: ['x-message', 'x-code', 'x-code-detail'],
  });
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

/** `/amount`, `/bands/0/fromUsd` → `amount`, `bands[0].fromUsd`. */
function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

const list = (v: unknown) => (Array.isArray(v) ? v.filter((x) => x !== null).join(', ') : String(v));

function describe(e: ErrorObject): string {
  const s = (e.parentSchema ?? {}) as Record<string, unknown>;
  if (typeof s['x-message'] === 'string' && e.keyword !== 'required') return s['x-message'];
  const types = ([] as unknown[]).concat(s.type ?? []).filter((t) => t !== 'null');
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      if (types.includes('boolean')) return 'must be true or false';
      if (types.includes('integer')) return s.minimum !== undefined && s.maximum !== undefined ? `must be an integer from ${s.minimum} to ${s.maximum}` : 'must be an integer';
      if (types.includes('number')) return 'must be a JSON number';
      if (types.includes('array')) return s.items && (s.items as Record<string, unknown>).type === 'string' ? 'must be an array of strings' : 'must be an array';
      if (types.includes('object')) return 'must be an object';
      return 'must be a string';
    case 'minLength':
      return `must be at least ${s.minLength} characters`;
    case 'maxLength':
      return `must be at most ${s.maxLength} characters`;
    case 'minimum':
    case 'maximum':
      return types.includes('integer') ? `must be an integer from ${s.minimum ?? '…'} to ${s.maximum ?? '…'}` : `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${e.keyword === 'minimum' ? s.minimum : s.maximum}`;
    case 'enum':
      return `must be one of ${list(s.enum)}`;
    case 'const':
      return `must be ${String(s.const)}`;
    case 'pattern':
      return 'has the wrong format';
    case 'minItems':
      return s.minItems === 1 ? 'must be a non-empty array' : `must have at least ${s.minItems} items`;
    case 'maxItems':
      return `must have at most ${s.maxItems} items`;
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * The first schema failure as the API's error: `400 VALIDATION_ERROR` with `detail` naming the
 * field (`amount: must be a JSON number`), or a rule's own code where the schema names one
 * (`direction` `Out` is `PAYOUTS_NOT_SUPPORTED`). The body as a whole is named `body`.
 */
export function schemaErrorFormatter(errors: ErrorObject[], dataVar: string): Error {
  const e = errors[0];
  if (!e) return new AppError('VALIDATION_ERROR', 'malformed request');
  const s = (e.parentSchema ?? {}) as Record<string, unknown>;
  if (e.keyword === 'not' && typeof s['x-code'] === 'string') {
    return new AppError(s['x-code'] as ErrorCode, (s['x-code-detail'] as string | undefined) ?? null);
  }
  if (e.keyword === 'additionalProperties') return new AppError('VALIDATION_ERROR', unknownProperties(e));
  const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
  const field = fieldName(e.instancePath, missing);
  if (field === '') return new AppError('VALIDATION_ERROR', dataVar === 'body' ? 'body must be a JSON object' : `${dataVar}: ${describe(e)}`);
  return new AppError('VALIDATION_ERROR', `${field}: ${describe(e)}`);
}

/**
 * Names every property of the refused object that its schema does not know (Ajv stops at the
 * first), e.g. `unknown properties: secretEnc, constructor` or `bands[0]: unknown property: x`.
 */
function unknownProperties(e: ErrorObject): string {
  const s = (e.parentSchema ?? {}) as { properties?: Record<string, unknown> };
  const known = new Set(Object.keys(s.properties ?? {}));
  const data = e.data && typeof e.data === 'object' ? (e.data as Record<string, unknown>) : {};
  const first = (e.params as { additionalProperty: string }).additionalProperty;
  const names = Object.keys(data).filter((k) => !known.has(k));
  const shown = (names.length ? names : [first]).slice(0, 10).map((n) => JSON.stringify(n).slice(1, -1).slice(0, 64));
  const more = names.length > 10 ? `, and ${names.length - 10} more` : '';
  const where = fieldName(e.instancePath);
  return `${where ? `${where}: ` : ''}unknown ${shown.length > 1 ? 'properties' : 'property'}: ${shown.join(', ')}${more}`;
}
