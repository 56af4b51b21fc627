import fc from 'fast-check';

/**
 * The hostile half of the fuzzer: bodies, content types, path parameters and query strings that a
 * correct client never sends. Each is an arbitrary of a labelled case, so a run is reproducible
 * from its seed and every finding says which case it came from.
 */

export interface BodyCase {
  /** Short name of the mutation, shown in findings. */
  label: string;
  /** Bytes to send; null sends no body at all. */
  body: Buffer | null;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const json = (v: unknown) => text(JSON.stringify(v));

/** `{"k":v,` followed by the rest of `obj`'s JSON: the raw text a JSON library will not produce. */
function prependRaw(obj: Record<string, unknown>, rawMember: string): string {
  const rest = JSON.stringify(obj).slice(1);
  return rest === '}' ? `{${rawMember}}` : `{${rawMember},${rest}`;
}

const asObject = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export const WRONG_TYPED = ['x', '', 1, -1, 0, 1.5, true, false, null, [], {}, [1, 'a'], { a: 1 }, '1500', 'NaN', 'null', 'true'] as const;

/** Raw number texts JSON parsers disagree on, or that overflow, or that are not JSON at all. */
export const ODD_NUMBERS = [
  '1e309', '-1e309', '-0', '0', '0.0', '1e-400', '123456789012345678901234567890', '9007199254740993', '-9007199254740993',
  '0.005', '0.004', '0.0049999999999999999', '1.005', '999999999999999.99', '1000000000000000.01', '-1', '1E2', '1e+2',
  '0x10', 'NaN', 'Infinity', '-Infinity', '01', '.5', '5.', '+1', '1_000',
] as const;

const INVALID_UTF8: readonly number[][] = [
  [0xc3, 0x28],
  [0xff, 0xfe],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
];

/** The groups of body mutations; a fuzz kind draws from one or several of them. */
export type BodyGroup = 'types' | 'keys' | 'shape' | 'huge' | 'nested' | 'numbers' | 'encoding';

/**
 * Bodies derived from a valid-ish sample (`valid`) of the operation's request schema, aimed at the
 * schema's property names (`props`), in named groups.
 */
export function bodyMutations(valid: fc.Arbitrary<unknown>, props: readonly string[]): Record<BodyGroup, fc.Arbitrary<BodyCase>> {
  const names = props.length > 0 ? props : ['value'];
  const prop = fc.constantFrom(...names);
  const base = valid.map(asObject);
  return {
    types: fc.oneof(
      fc.tuple(base, prop, fc.constantFrom(...WRONG_TYPED)).map(([o, p, v]) => ({ label: `wrong type: ${p}=${JSON.stringify(v)}`, body: json({ ...o, [p]: v }) })),
      fc
        .tuple(base, fc.constantFrom('zz_extra', 'id', 'status', 'merchantId', 'deskId', 'secret', 'balance', 'createdAt', '$where', 'x'.repeat(300)), fc.jsonValue({ maxDepth: 2 }))
        .map(([o, k, v]) => ({ label: `extra property ${k.slice(0, 20)}`, body: json({ ...o, [k]: v }) })),
      fc.object({ maxDepth: 3, maxKeys: 6 }).map((o) => ({ label: 'random object', body: json(o) })),
      fc.jsonValue({ maxDepth: 3 }).map((v) => ({ label: 'random JSON', body: json(v) })),
    ),
    keys: fc.oneof(
      fc
        .tuple(
          base,
          fc.constantFrom(
            '"__proto__":{"isAdmin":true,"status":"Completed","sandbox":false}',
            '"constructor":{"prototype":{"polluted":"yes"}}',
            '"__proto__":null',
            '"__proto__":[1,2]',
            '"prototype":{"x":1}',
            '"toString":"x","valueOf":1,"hasOwnProperty":"x"',
          ),
        )
        .map(([o, member]) => ({ label: `prototype keys ${member.slice(0, 24)}`, body: text(prependRaw(o, member)) })),
      fc.tuple(base, prop, fc.constantFrom(...WRONG_TYPED)).map(([o, p, v]) => ({ label: `duplicate key ${p}=${JSON.stringify(v)}`, body: text(prependRaw(o, `${JSON.stringify(p)}:${JSON.stringify(v)}`)) })),
    ),
    shape: fc.oneof(
      fc.constantFrom<BodyCase>(
        { label: 'empty body', body: Buffer.alloc(0) },
        { label: 'no body', body: null },
        { label: 'whitespace body', body: text(' \n\t ') },
        { label: 'JSON array', body: text('[]') },
        { label: 'JSON null', body: text('null') },
        { label: 'JSON string', body: text('"x"') },
        { label: 'JSON number', body: text('1') },
        { label: 'JSON true', body: text('true') },
        { label: 'array of object', body: text('[{}]') },
        { label: 'trailing comma', body: text('{"a":1,}') },
        { label: 'comment', body: text('{/* c */}') },
        { label: 'single quotes', body: text("{'a':1}") },
        { label: 'garbage after JSON', body: text('{} x') },
        { label: 'two JSON documents', body: text('{}{}') },
        { label: 'truncated JSON', body: text('{"a":') },
        { label: 'unterminated string', body: text('{"a":"') },
        { label: 'NUL bytes only', body: Buffer.alloc(16) },
        { label: 'random bytes', body: Buffer.from([0x8b, 0x1f, 0x08, 0x00, 0xff, 0x00, 0x7b, 0x22]) },
      ),
      base.map((o) => ({ label: 'UTF-8 BOM before JSON', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json(o)]) })),
      base.map((o) => ({ label: 'UTF-16LE JSON', body: Buffer.from(JSON.stringify(o), 'utf16le') })),
    ),
    huge: fc.tuple(base, prop, fc.constantFrom(300, 4_096, 60_000, 70_000, 1_100_000), fc.constantFrom('A', 'é', '😀', '\\u0041')).map(([o, p, n, ch]) => {
      const reps = Math.ceil(n / Buffer.byteLength(ch));
      return { label: `long string ${n} B of ${ch} in ${p}`, body: text(prependRaw(o, `${JSON.stringify(p)}:"${ch.repeat(reps)}"`)) };
    }),
    nested: fc.tuple(base, prop, fc.constantFrom(64, 2_000, 20_000), fc.constantFrom('[', '{"a":')).map(([o, p, n, open]) => {
      const close = open === '[' ? ']' : '}';
      return { label: `nesting ${n} deep (${open}) in ${p}`, body: text(prependRaw(o, `${JSON.stringify(p)}:${open.repeat(n)}${open === '[' ? '' : '1'}${close.repeat(n)}`)) };
    }),
    numbers: fc.tuple(base, prop, fc.constantFrom(...ODD_NUMBERS)).map(([o, p, n]) => ({ label: `number ${n} in ${p}`, body: text(prependRaw(o, `${JSON.stringify(p)}:${n}`)) })),
    encoding: fc.oneof(
      fc.tuple(base, prop, fc.constantFrom('escaped', 'raw', 'key')).map(([o, p, how]) => ({
        label: `NUL byte (${how}) in ${p}`,
        body:
          how === 'escaped'
            ? text(prependRaw(o, `${JSON.stringify(p)}:"a\\u0000b"`))
            : how === 'raw'
              ? Buffer.concat([text(`{${JSON.stringify(p)}:"a`), Buffer.from([0]), text('b"}')])
              : text(prependRaw(o, '"a\\u0000b":1')),
      })),
      fc.tuple(prop, fc.integer({ min: 0, max: INVALID_UTF8.length - 1 })).map(([p, i]) => ({
        label: `invalid UTF-8 ${INVALID_UTF8[i]!.map((b) => b.toString(16)).join(' ')} in ${p}`,
        body: Buffer.concat([text(`{${JSON.stringify(p)}:"x`), Buffer.from(INVALID_UTF8[i]!), text('"}')]),
      })),
      fc.tuple(base, prop, fc.constantFrom('\\ud800', '\\udfff\\ud800', '\\u202e', '\\ufeff', '\u202e\u0301', '\\u001f')).map(([o, p, s]) => ({
        label: `odd code point ${s} in ${p}`,
        body: text(prependRaw(o, `${JSON.stringify(p)}:"x${s}y"`)),
      })),
    ),
  };
}

export interface ContentTypeCase {
  label: string;
  /** Content-Type header values to send (none, one, or a duplicate). */
  contentTypes: string[];
  /** Re-encodes the (valid) body for this content type; identity when absent. */
  encode?: (o: Record<string, unknown>) => Buffer;
}

function form(o: Record<string, unknown>): Buffer {
  return text(Object.entries(o).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&'));
}

function multipart(o: Record<string, unknown>): Buffer {
  const parts = Object.entries(o).map(([k, v]) => `--fzb\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${typeof v === 'string' ? v : JSON.stringify(v)}\r\n`);
  return text(parts.join('') + '--fzb--\r\n');
}

export const CONTENT_TYPES: readonly ContentTypeCase[] = [
  { label: 'no content type', contentTypes: [] },
  { label: 'text/plain', contentTypes: ['text/plain'] },
  { label: 'text/plain; charset=utf-8', contentTypes: ['text/plain; charset=utf-8'] },
  { label: 'form', contentTypes: ['application/x-www-form-urlencoded'], encode: form },
  { label: 'form with JSON body', contentTypes: ['application/x-www-form-urlencoded'] },
  { label: 'multipart', contentTypes: ['multipart/form-data; boundary=fzb'], encode: multipart },
  { label: 'multipart without boundary', contentTypes: ['multipart/form-data'] },
  { label: 'octet-stream', contentTypes: ['application/octet-stream'] },
  { label: 'xml', contentTypes: ['application/xml'], encode: () => text('<?xml version="1.0"?><a>1</a>') },
  { label: 'JSON, upper case', contentTypes: ['APPLICATION/JSON'] },
  { label: 'JSON, charset utf-8', contentTypes: ['application/json; charset=utf-8'] },
  { label: 'JSON, charset latin1', contentTypes: ['application/json; charset=latin1'] },
  { label: 'JSON, charset utf-16', contentTypes: ['application/json; charset=utf-16'] },
  { label: 'JSON, odd parameter', contentTypes: ['application/json; foo="bar"; ;'] },
  { label: 'vnd+json', contentTypes: ['application/vnd.api+json'] },
  { label: 'wildcard', contentTypes: ['*/*'] },
  { label: 'malformed type', contentTypes: ['application/'] },
  { label: 'semicolons', contentTypes: [';;;'] },
  { label: 'empty content type', contentTypes: [''] },
  { label: 'duplicate: json then text', contentTypes: ['application/json', 'text/plain'] },
  { label: 'duplicate: text then json', contentTypes: ['text/plain', 'application/json'] },
  { label: 'two types in one', contentTypes: ['application/json, text/plain'] },
];

/** Path parameter values that are odd in form, length or encoding; already as they go on the wire. */
export const ODD_PATH_VALUES: readonly string[] = [
  '%', '%Z', '%ZZ', '%00', 'a%00b', '%C0%AF', '%FF%FE', '%E2%80%AE', '%ED%A0%80', '%2F', '..%2F..%2Fadmin', '%252F', '%u0041',
  '..', '.', '%2e%2e', 'a'.repeat(2048), 'a'.repeat(2049), 'b'.repeat(5000), '%41'.repeat(1000),
  encodeURIComponent("ord_' OR '1'='1"), encodeURIComponent('${7*7}'), encodeURIComponent('<script>x</script>'), encodeURIComponent('ord_😀'),
  '%20', '+', 'null', 'undefined', '__proto__', 'constructor', 'hasOwnProperty', '-1', '0', '1e309', 'NaN', "!$&'()*+,;=:@", 'ord_', 'shp_', 'prv_x',
];

/** Extra odd values derived from a known good id (so they pass prefix checks and reach lookups). */
export function oddVariants(id: string): string[] {
  return [`${id}x`, id.toUpperCase(), `${id}%20`, `%20${id}`, encodeURIComponent(id).replace(/_/g, '%5F'), `${id};x`, `${id}%00`, id.slice(0, -1)];
}

export interface QueryCase {
  label: string;
  query: string;
}

/** Odd query strings; `names` are the documented parameter names, `good` a valid value for each. */
export function oddQuery(names: readonly string[], good: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<QueryCase> {
  const name = fc.constantFrom(...(names.length ? names : ['q']));
  const oddValue = fc.constantFrom(
    '', '%', '%ZZ', '%00', 'a%00b', '%C0%AF', '%FF', 'x'.repeat(5000), '1e309', '-0', '-1', '0', 'NaN', '0x10', '1.5', '99999999999999999999',
    'true', 'null', '[]', '{}', encodeURIComponent("' OR 1=1--"), '%E2%80%AE', '2026-13-45T99:99:99Z',
  );
  const encode = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return fc.oneof(
    fc.tuple(good, name, oddValue).map(([g, n, v]) => ({ label: `${n}=${v.slice(0, 16)}`, query: [...encode(g).filter((p) => !p.startsWith(`${n}=`)), `${n}=${v}`].join('&') })),
    fc.tuple(good, name, fc.tuple(oddValue, oddValue)).map(([g, n, [a, b]]) => ({ label: `${n} twice`, query: [...encode(g), `${n}=${a}`, `${n}=${b}`].join('&') })),
    fc.tuple(good, name).map(([g, n]) => ({ label: `${n} without value`, query: [...encode(g).filter((p) => !p.startsWith(`${n}=`)), n].join('&') })),
    fc.tuple(good, name, fc.constantFrom('[]', '[0]', '[a]', '.x')).map(([g, n, s]) => ({ label: `${n}${s}`, query: [...encode(g), `${n}${s}=1`].join('&') })),
    fc.constantFrom<QueryCase>(
      { label: '__proto__', query: '__proto__=1&__proto__[x]=1' },
      { label: 'constructor.prototype', query: 'constructor[prototype][x]=1&constructor.prototype.x=1' },
      { label: 'unknown parameter', query: 'zz=1' },
      { label: 'empty query', query: '' },
      { label: 'ampersands', query: '&&&=&' },
      { label: 'semicolons', query: 'a=1;b=2' },
      { label: 'many parameters', query: Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&') },
      { label: 'long query', query: `q=${'y'.repeat(6000)}` },
    ),
    good.map((g) => ({ label: 'valid values', query: encode(g).join('&') })),
  );
}
