import { AppError } from '../domain/errors.js';
import { isDecimalString } from '../domain/money.js';
import { parseJsonObject, rawBodyOf } from './rawBody.js';

/** The parsed JSON object body of a request, or VALIDATION_ERROR (D3); read only after authentication. */
export function jsonBody(body: unknown): Record<string, unknown> {
  const parsed = parseJsonObject(rawBodyOf(body));
  if (!parsed.ok) throw new AppError('VALIDATION_ERROR', parsed.detail);
  return parsed.value;
}

const invalid = (field: string, what: string) => new AppError('VALIDATION_ERROR', `${field}: ${what}`);

/** Field readers: each returns undefined when the field is absent and throws VALIDATION_ERROR naming it when malformed. */
export const field = {
  string(o: Record<string, unknown>, name: string, opts: { max?: number; min?: number; nullable?: boolean } = {}): string | null | undefined {
    const v = o[name];
    if (v === undefined) return undefined;
    if (v === null && opts.nullable) return null;
    if (typeof v !== 'string') throw invalid(name, 'must be a string');
    if (opts.min !== undefined && v.length < opts.min) throw invalid(name, `must be at least ${opts.min} characters`);
    if (opts.max !== undefined && v.length > opts.max) throw invalid(name, `must be at most ${opts.max} characters`);
    return v;
  },
  requiredString(o: Record<string, unknown>, name: string, opts: { max?: number; min?: number } = {}): string {
    const v = field.string(o, name, { ...opts, min: opts.min ?? 1 });
    if (v === undefined || v === null) throw invalid(name, 'is required');
    return v;
  },
  boolean(o: Record<string, unknown>, name: string): boolean | undefined {
    const v = o[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') throw invalid(name, 'must be true or false');
    return v;
  },
  integer(o: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
    const v = o[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalid(name, `must be an integer from ${min} to ${max}`);
    return v;
  },
  /** USD amounts and percentages from operators: decimal strings, never JSON numbers. */
  decimal(o: Record<string, unknown>, name: string, opts: { places?: number; nullable?: boolean } = {}): string | null | undefined {
    const v = o[name];
    if (v === undefined) return undefined;
    if (v === null && opts.nullable) return null;
    if (!isDecimalString(v, opts.places ?? 8)) throw invalid(name, `must be a decimal string with at most ${opts.places ?? 8} places, e.g. "10.5"`);
    return v;
  },
  stringArray(o: Record<string, unknown>, name: string): string[] | undefined {
    const v = o[name];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalid(name, 'must be an array of strings');
    return [...new Set(v as string[])];
  },
};

export { invalid as validationError };
