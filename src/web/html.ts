/**
 * A tagged-template HTML builder. Every interpolated value is escaped unless it is already `Html`
 * (the result of another `html` template or of `raw()`), so forgetting to escape is impossible
 * and trusting a fragment is a visible, greppable choice.
 */

const HTML = Symbol('html');

export interface Html {
  readonly [HTML]: true;
  readonly value: string;
}

/** Fragments we produced ourselves (templates, SVG from the QR encoder); never user data. */
export function raw(value: string): Html {
  return { [HTML]: true, value };
}

export function isHtml(v: unknown): v is Html {
  return typeof v === 'object' && v !== null && (v as { [HTML]?: unknown })[HTML] === true;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for both element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A value that may appear in a template: null, undefined and false render as nothing; arrays are joined. */
export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(v: Interpolation): string {
  if (v === null || v === undefined || v === false || v === true) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  if (isHtml(v)) return v.value;
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return raw(out);
}

/** The final document text. */
export function toString(h: Html): string {
  return h.value;
}
