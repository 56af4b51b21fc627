import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import Type, { type Static, type TObject, type TOptional, type TProperties, type TSchema, type TUnsafe } from 'typebox';
import { AppError } from '../domain/errors.js';
import { CreateUserBody } from '../schemas/admin.js';
import { schemaErrorFormatter } from '../server/schemaErrors.js';

/**
 * Every form a page posts is declared once, as a TypeBox object schema of its fields, and checked
 * against it before the route reads a field: a field the form does not declare is refused (`400`,
 * a page naming it) and nothing happens; a declared field of the wrong shape is refused with the
 * API's own wording (`minUsd: must be a decimal string …`). Routes read the checked, typed result
 * with `formOf(req, TheForm)`, never a field by name from the raw body.
 *
 * A form arrives as text: every value is a string (or a list of strings for a field a form repeats,
 * such as check boxes), an empty input means "not given", and every field is optional: what a
 * route does without it is the route's rule, as before. Booleans travel as `true` / `false`.
 */

/** The field a form's CSRF token travels in (web spec, "Common rules"). */
export const CSRF_FIELD = '_csrf';

/** A single-valued text field. */
export const text = (o: { minLength?: number; maxLength: number; pattern?: string; 'x-message'?: string }) => Type.Optional(Type.String(o));

/** A field whose values the page itself writes (a select, a radio group, a hidden input). */
export const choice = <const V extends readonly string[]>(values: V) =>
  Type.Optional(Type.Unsafe<V[number]>({ type: 'string', enum: [...values], 'x-message': `must be ${values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`}` }));

/** A file of a multipart form, read into memory by the upload reader (upload.ts). */
export interface UploadedFile {
  /** As the browser gave it; never trusted for the type. */
  fileName: string;
  declaredType: string;
  content: Buffer;
  /** The file was larger than the upload's cap: `content` holds its first bytes only. */
  tooLarge: boolean;
}
export const files = (maxItems: number) =>
  Type.Optional(Type.Array(Type.Unsafe<UploadedFile>({ type: 'object', 'x-message': 'must be a file' }), { maxItems, 'x-message': `at most ${maxItems} file${maxItems === 1 ? '' : 's'}` }));

/** A form of a signed-in or sign-in page: its fields and the CSRF token every such form carries. */
export function sessionForm<P extends TProperties>(fields: P) {
  return Type.Object({ [CSRF_FIELD]: text({ maxLength: 200 }), ...fields } as P & { _csrf: ReturnType<typeof text> }, { additionalProperties: false });
}

/** A form of a page without a session (the payment page, the sandbox bank). */
export function publicForm<P extends TProperties>(fields: P) {
  return Type.Object(fields, { additionalProperties: false });
}

/** What a form field of an API body's property holds: a list for an array, else one string. */
type FormValueOf<T extends TSchema> = Static<T> extends readonly unknown[] ? string[] : string;

/**
 * Form fields declared from an API body's schema, so a shape is written once: the same bounds,
 * patterns and choices, the same wording when a value is refused. A boolean becomes `true` /
 * `false`; a nullable string a string (empty = not given); a list a repeated field.
 */
export function fieldsFrom<P extends TProperties, const K extends keyof P & string>(api: TObject<P>, names: readonly K[]): { [N in K]: TOptional<TUnsafe<FormValueOf<P[N]>>> } {
  const out: Record<string, TSchema> = {};
  for (const name of names) out[name] = Type.Optional(Type.Unsafe(formFieldOf(api.properties[name] as unknown as Record<string, unknown>, name)));
  return out as { [N in K]: TOptional<TUnsafe<FormValueOf<P[N]>>> };
}

function formFieldOf(s: Record<string, unknown>, name: string): Record<string, unknown> {
  const types = ([] as unknown[]).concat(s.type ?? []).filter((t) => t !== 'null');
  if (types.includes('boolean')) return { type: 'string', enum: ['true', 'false'], 'x-message': 'must be true or false' };
  if (types.includes('array')) {
    const items = formFieldOf((s.items ?? { type: 'string' }) as Record<string, unknown>, name);
    return { type: 'array', items, ...(s.maxItems !== undefined ? { maxItems: s.maxItems } : {}) };
  }
  if (types.includes('string')) {
    const out: Record<string, unknown> = { type: 'string' };
    for (const k of ['minLength', 'maxLength', 'pattern', 'allOf', 'x-message']) if (k in s) out[k] = s[k];
    if (Array.isArray(s.enum)) out.enum = s.enum.filter((v) => v !== null);
    return out;
  }
  throw new Error(`form field ${name}: an API property of type ${JSON.stringify(s.type)} has no form shape`);
}

// ---- declaring and checking

export type FormSchema = TObject;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The form the route takes (POST routes of the pages must declare one). */
    form?: FormSchema;
    /** The route answers a declared field's bad value itself (a form shown again with what was typed). */
    formInvalid?: 'route';
  }
}

/** A page POST route's options: its form, checked by the pages' form hook before the handler. */
export function withForm(form: FormSchema, o: { invalid?: 'route'; preHandler?: RouteOptions['preHandler'] } = {}) {
  return { config: { form, ...(o.invalid ? { formInvalid: o.invalid } : {}) }, ...(o.preHandler ? { preHandler: o.preHandler } : {}) };
}

/** A declared field's value the form cannot take, with the API's wording; `field` names it. */
export class FormFieldError extends AppError {
  constructor(readonly field: string, detail: string) {
    super('VALIDATION_ERROR', detail);
  }
}

/** Names of the fields a form has that its schema does not declare (`__proto__` and `constructor` included). */
export function undeclaredFields(schema: FormSchema, form: Record<string, unknown>): string[] {
  const declared = schema.properties as Record<string, unknown>;
  return Object.keys(form).filter((k) => !Object.prototype.hasOwnProperty.call(declared, k));
}

const ajv = new Ajv({ allErrors: false, strict: false, verbose: true, coerceTypes: false, useDefaults: false, removeAdditional: false, keywords: ['x-message', 'x-openapi'] });
const compiled = new WeakMap<FormSchema, ValidateFunction>();
function validatorOf(schema: FormSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/**
 * The form as its schema reads it: a repeated field as a list, empty inputs dropped, a single-valued
 * field given twice left as a list (the schema refuses it). Only declared fields are kept.
 */
function normalised(schema: FormSchema, form: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, s] of Object.entries(schema.properties as Record<string, { type?: unknown }>)) {
    const v = form[name];
    if (v === undefined) continue;
    if (s.type === 'array') {
      const list = (Array.isArray(v) ? v : [v]).filter((x) => x !== '');
      if (list.length > 0) out[name] = list;
    } else if (v !== '') out[name] = v;
  }
  return out;
}

/** Only the values of the declared type, for a route that shows a refused form again. */
function typeSafe(schema: FormSchema, form: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  const fits = (s: { type?: unknown } | undefined, v: unknown) => (s?.type === 'object' ? typeof v === 'object' && v !== null : typeof v === 'string');
  for (const [name, s] of Object.entries(schema.properties as Record<string, { type?: unknown; items?: { type?: unknown } }>)) {
    const v = form[name];
    if (s.type === 'array' && Array.isArray(v)) out[name] = v.filter((x) => fits(s.items, x));
    else if (s.type !== 'array' && fits(s, v)) out[name] = v;
  }
  return out;
}

interface CheckedForm {
  schema: FormSchema;
  value: Record<string, unknown>;
  problem: { field: string; detail: string } | null;
}
const CHECKED = new WeakMap<FastifyRequest, CheckedForm>();

/** The parsed body as a form: fields by name (an empty body reads as no fields). */
export function bodyFields(req: FastifyRequest): Record<string, unknown> {
  const b = req.body as unknown;
  if (b === null || typeof b !== 'object' || Buffer.isBuffer(b) || 'sha256' in b) return {};
  return b as Record<string, unknown>;
}

/**
 * Checks the request's form against its route's schema. Undeclared fields answer the page that
 * names them (`onUndeclared`); a bad value throws `FormFieldError` unless the route shows it itself.
 */
export function checkForm(req: FastifyRequest, reply: FastifyReply, onUndeclared: (req: FastifyRequest, reply: FastifyReply, names: string[]) => unknown): unknown {
  const schema = req.routeOptions.config.form;
  if (!schema) throw new Error(`${req.method} ${req.routeOptions.url}: the route declares no form`);
  const raw = bodyFields(req);
  const unknown = undeclaredFields(schema, raw);
  if (unknown.length > 0) return onUndeclared(req, reply, unknown);
  const value = normalised(schema, raw);
  const validate = validatorOf(schema);
  let problem: CheckedForm['problem'] = null;
  if (!validate(value)) {
    const detail = (schemaErrorFormatter(validate.errors ?? [], 'body') as AppError).detail ?? 'the form is not valid';
    problem = { field: detail.split(/[:[.]/)[0]!, detail };
  }
  CHECKED.set(req, { schema, value: problem ? typeSafe(schema, value) : value, problem });
  if (problem && req.routeOptions.config.formInvalid !== 'route') throw new FormFieldError(problem.field, problem.detail);
  return undefined;
}

function checked(req: FastifyRequest, schema: FormSchema): CheckedForm {
  const c = CHECKED.get(req);
  // A bug, not a visitor's doing: the route reads a form other than the one it declared.
  if (!c || c.schema !== schema) throw new Error(`${req.method} ${req.routeOptions.url}: reads a form it did not declare`);
  return c;
}

/** The route's form, checked against its schema and typed by it. */
export function formOf<S extends FormSchema>(req: FastifyRequest, schema: S): Static<S> {
  return checked(req, schema).value as Static<S>;
}

/**
 * For a route that shows its own form again: the values as typed (bad ones included, each as its
 * schema's type or left out) and the first problem in the API's wording, or null.
 */
export function formWithProblem<S extends FormSchema>(req: FastifyRequest, schema: S): { form: Static<S>; problem: string | null } {
  const c = checked(req, schema);
  return { form: c.value as Static<S>, problem: c.problem?.detail ?? null };
}

// ---- forms both signed-in surfaces share

/** A form of nothing but its CSRF token: a button (sign out, resend, issue a new secret …). */
export const ButtonForm = sessionForm({});

/**
 * The password step of sign-in. The email is not held to the address pattern here: whatever was
 * typed gets the one generic refusal (web spec); the password's bound is the account's own.
 */
export const SignInForm = sessionForm({ email: text({ maxLength: 320 }), ...fieldsFrom(CreateUserBody, ['password']) });

/** The code step of sign-in: the signed challenge of the password step and a TOTP or recovery code. */
export const SignInCodeForm = sessionForm({ challenge: text({ maxLength: 200 }), code: text({ maxLength: 40 }) });

/** "Forgot password?" of either surface (`POST /cabinet/password-reset`, `POST /office/password-reset`): the address to mail a link to. */
export const ForgotPasswordForm = sessionForm(fieldsFrom(CreateUserBody, ['email']));

/**
 * A reset link's form: the new password, and in the back office the two-factor code when the
 * operator has it on. The form also holds the account's email in a hidden `username` input, for
 * password managers; the route does not read it.
 */
export const NewPasswordForm = sessionForm({ username: text({ maxLength: 320 }), ...fieldsFrom(CreateUserBody, ['password']), code: text({ maxLength: 40 }) });
