import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schema subset an OpenAPI 3.1 document uses (`$ref`, `type`
 * including type lists, `enum`, `const`, `properties`/`required`, `additionalProperties`, `items`,
 * `minItems`/`maxItems`, `minLength`/`maxLength`, `pattern`, `format`, `minimum`/`maximum`,
 * `anyOf`/`oneOf`/`allOf`). The values are "valid-ish": they follow the schema where that is cheap,
 * and hints (known ids, currencies, rails) are mixed in by property name so that requests reach
 * the code behind the schema checks. The one maintained npm package for this
 * (`json-schema-fast-check`) is a 0.0.x release; this file is small enough to own.
 */

export type JsonSchema = Record<string, any>;

export interface ArbitraryOptions {
  /** The document `$ref`s point into (`#/components/schemas/…`). */
  root: unknown;
  /** Values to prefer for a property of this name (three times in four). */
  hints?: Record<string, readonly unknown[]>;
  /** Objects and arrays below this depth get no optional members. */
  maxDepth?: number;
  /** Longest generated string where the schema allows longer. */
  maxStringLength?: number;
}

/** Follows a local JSON pointer (`#/a/b`) in `root`. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: any = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(part in node)) throw new Error(`$ref ${ref} does not resolve`);
    node = node[part];
  }
  return node;
}

/** The schema with its `$ref` chain followed; sibling keywords of a `$ref` are kept (3.1 allows them). */
export function deref(root: unknown, schema: unknown, seen = new Set<string>()): JsonSchema {
  let s = schema as JsonSchema;
  while (s && typeof s === 'object' && typeof s.$ref === 'string') {
    if (seen.has(s.$ref)) throw new Error(`circular $ref ${s.$ref}`);
    seen.add(s.$ref);
    const { $ref, ...rest } = s;
    s = { ...(resolvePointer(root, $ref) as JsonSchema), ...rest };
  }
  return s ?? {};
}

function typesOf(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.additionalProperties || s.required) return ['object'];
  if (s.items) return ['array'];
  return [];
}

// Loopback only: a URL the server may call back must never lead off this machine.
const URLS = ['http://127.0.0.1:9/cb', 'https://127.0.0.1/return', 'http://[::1]:9/x'];

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function stringArbitrary(s: JsonSchema, o: ArbitraryOptions): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.max(min, Math.min(s.maxLength ?? o.maxStringLength ?? 24, o.maxStringLength ?? 24));
  const fit = (a: fc.Arbitrary<string>) => a.map((v) => (v.length > (s.maxLength ?? Infinity) ? v.slice(0, s.maxLength) : v));
  switch (s.format) {
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true }).map(isoSeconds);
    case 'date':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.constantFrom(...URLS);
    case 'email':
      return fc.tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom('example.com', 'shop.example')).map(([a, b]) => `${a}@${b}`);
  }
  // Patterns from `allOf` members (a format and then a bound) come as a list: the first is
  // generated, the others filter, most of the time (one value in eight is left unfiltered).
  const patterns: string[] = Array.isArray(s['x-patterns']) ? s['x-patterns'] : typeof s.pattern === 'string' ? [s.pattern] : [];
  if (patterns.length > 0) {
    try {
      const [first, ...rest] = patterns.map((p) => new RegExp(p, 'u'));
      const generated = fit(fc.stringMatching(first!));
      if (rest.length === 0) return generated;
      return fc.oneof({ weight: 7, arbitrary: generated.filter((v) => rest.every((r) => r.test(v))) }, { weight: 1, arbitrary: generated });
    } catch {
      // A pattern fast-check cannot invert: plain strings, refused by the server now and then.
    }
  }
  return fc.string({ minLength: min, maxLength: max });
}

function numberArbitrary(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : (s.minimum ?? -1_000_000);
  const hi = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : (s.maximum ?? 1_000_000);
  const min = Math.max(lo, -Number.MAX_SAFE_INTEGER);
  const max = Math.min(hi, Number.MAX_SAFE_INTEGER);
  if (integer) {
    const a = Math.ceil(min);
    const b = Math.floor(max);
    return a <= b ? fc.integer({ min: a, max: b }) : fc.constant(a);
  }
  // Amounts are most interesting near their bounds and with 0–3 decimals.
  const smallMax = Math.min(max, 100_000);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.ceil(Math.max(min, 1)), max: Math.max(Math.ceil(Math.max(min, 1)), Math.floor(smallMax)) }) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 0, max: Math.max(0, Math.floor(smallMax)) }), fc.integer({ min: 0, max: 999 })).map(([i, f]) => Math.min(max, Math.max(min, i + f / 1000))) },
    { weight: 1, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
  );
}

/** An arbitrary of values for `schema`; `name` is the property it is for (for hints). */
export function arbitraryFor(schema: unknown, o: ArbitraryOptions, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const own = ownArbitrary(schema, o, depth);
  const hint = name !== undefined ? o.hints?.[name] : undefined;
  if (hint && hint.length > 0) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hint) }, { weight: 1, arbitrary: own });
  return own;
}

function ownArbitrary(schema: unknown, o: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(null);
  const s = deref(o.root, schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    // `not` next to an enum (`direction` refuses `Out`) leaves the allowed values more likely.
    const refused = Array.isArray(s.not?.enum) ? new Set(s.not.enum) : new Set();
    const allowed = s.enum.filter((v: unknown) => !refused.has(v));
    return allowed.length && refused.size
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...allowed) }, { weight: 1, arbitrary: fc.constantFrom(...s.enum) })
      : fc.constantFrom(...s.enum);
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const parts = [{ ...s, allOf: undefined }, ...s.allOf.map((x: unknown) => deref(o.root, x))];
    const merged = parts.reduce((a: JsonSchema, b: JsonSchema) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties }, required: [...(a.required ?? []), ...(b.required ?? [])] }), {});
    delete merged.allOf;
    const patterns = parts.map((p: JsonSchema) => p.pattern).filter((p: unknown) => typeof p === 'string');
    if (patterns.length > 1) merged['x-patterns'] = patterns;
    return ownArbitrary(merged, o, depth);
  }
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((x: unknown) => ownArbitrary(x, o, depth)));
  }
  const types = typesOf(s);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  if (types.length > 1) {
    // `null` of a nullable field: one time in five.
    return fc.oneof(...types.map((t) => ({ weight: t === 'null' ? 1 : 4, arbitrary: ownArbitrary({ ...s, type: t }, o, depth) })));
  }
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'string':
      return stringArbitrary(s, o);
    case 'array': {
      const min = s.minItems ?? 0;
      const max = Math.max(min, Math.min(s.maxItems ?? 4, depth >= (o.maxDepth ?? 4) ? min : 4));
      return fc.array(arbitraryFor(s.items ?? true, o, depth + 1), { minLength: min, maxLength: max });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set<string>(s.required ?? []);
      const deep = depth >= (o.maxDepth ?? 4);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) if (!deep || required.has(k)) model[k] = arbitraryFor(v, o, depth + 1, k);
      const record = fc.record(model, { requiredKeys: Object.keys(model).filter((k) => required.has(k)) });
      const extra = s.additionalProperties;
      if (extra && typeof extra === 'object' && !deep) {
        return fc
          .tuple(record, fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), arbitraryFor(extra, o, depth + 1), { maxKeys: 3 }))
          .map(([r, d]) => ({ ...d, ...(r as object) }));
      }
      return record;
    }
  }
  return fc.jsonValue({ maxDepth: 2 });
}
