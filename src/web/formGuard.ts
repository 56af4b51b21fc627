import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { MAX_BODY_BYTES, rawBodyOf } from '../server/rawBody.js';
import { handleError } from '../server/errors.js';
import { bodyFields, checkForm, FormFieldError } from './forms.js';
import { html } from './html.js';
import { chooseLang, type Lang } from './i18n/index.js';
import { FORM_PROBLEM_TEXT, type FormProblem } from './i18n/formProblems.js';
import { document, sendPage } from './layout.js';

/** More fields than any of our forms has (the largest has about 20): a flood, not a person. */
export const MAX_FORM_FIELDS = 200;

const STATUS: Record<FormProblem, number> = { tooLarge: 413, tooManyFields: 400, nul: 400, malformed: 400, notAForm: 415, undeclared: 400, badValue: 400 };

/** What a refused form's page names: the size we accept, or the fields at fault. */
export interface FormProblemDetail {
  limit?: string;
  fields?: string[];
}

function isMultipart(req: FastifyRequest): boolean {
  return typeof req.isMultipart === 'function' && req.isMultipart();
}

/**
 * What is wrong with a page's POST body as a whole, or null when every page may read it: a body
 * over the limit, more fields than any form has, a NUL byte (text columns cannot hold it), or a body
 * of another type than a form. An empty body with no type passes (buttons posting only their CSRF
 * header). Multipart bodies are the upload reader's to check (upload.ts), as they are read.
 */
export function formProblemOf(req: FastifyRequest): FormProblem | null {
  if (isMultipart(req)) return null;
  const body = req.body as unknown;
  if (body === undefined || body === null) return null;
  if (typeof body === 'object' && 'sha256' in body) {
    // Not a form: the app's raw reader took it (no type, or a type no page reads).
    const raw = rawBodyOf(body);
    if (raw.tooLarge) return 'tooLarge';
    return raw.bytes.length === 0 && req.headers['content-type'] === undefined ? null : 'notAForm';
  }
  return fieldsProblem(bodyFields(req));
}

/** A parsed form's fields as a whole: too many of them, or a NUL byte in a name or a value. */
export function fieldsProblem(fields: Record<string, unknown>): FormProblem | null {
  let count = 0;
  for (const [name, v] of Object.entries(fields)) {
    const values = Array.isArray(v) ? v : [v];
    count += values.length;
    if (count > MAX_FORM_FIELDS) return 'tooManyFields';
    if (name.includes('\0') || values.some((x) => typeof x === 'string' && x.includes('\0'))) return 'nul';
  }
  return null;
}

function langOf(req: FastifyRequest): Lang {
  return chooseLang((req.query as { lang?: unknown } | undefined)?.lang, req.headers['accept-language']);
}

/** A visitor's field name as the page shows it: printable, at most 64 characters, at most 10 names. */
function shownNames(names: string[]): string {
  const shown = names.slice(0, 10).map((n) => JSON.stringify(n).slice(1, -1).slice(0, 64));
  return shown.join(', ') + (names.length > 10 ? ` (+${names.length - 10})` : '');
}

/** The page that says why a form was refused, in the customer's or user's language, with the way back. */
export function sendFormProblem(req: FastifyRequest, reply: FastifyReply, problem: FormProblem, detail: FormProblemDetail = {}): FastifyReply {
  const lang = langOf(req);
  const t = FORM_PROBLEM_TEXT[lang];
  const back = req.url.split('?')[0]!;
  const names = detail.fields ?? [];
  const template = problem === 'undeclared' && names.length > 1 ? t.undeclaredMany : t.reasons[problem];
  const reason = template.replace('{limit}', detail.limit ?? `${MAX_BODY_BYTES / 1024} KiB`).replace('{fields}', shownNames(names));
  return sendPage(
    reply,
    STATUS[problem],
    document({
      lang,
      title: t.title,
      styles: ['pay.css'],
      body: html`<main class="pay"><section class="state state-cancelled"><h1>${t.title}</h1><p id="form-problem">${reason}</p><p><a href="${back}">${t.back}</a></p></section></main>`,
    }),
  );
}

/**
 * The pages' answer to an error no route handled: a body refused while it was being read (too
 * large even to read, malformed) and a form field's bad value answer a page; anything else the
 * app's error envelope. Scopes with their own error handler fall back to this one.
 */
export function handlePageError(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof FormFieldError) return sendFormProblem(req, reply, 'badValue', { fields: [err.field] });
  const e = err as Partial<FastifyError>;
  if (e.statusCode === 413) return sendFormProblem(req, reply, 'tooLarge');
  if (typeof e.code === 'string' && e.code.startsWith('FST_ERR_CTP_')) return sendFormProblem(req, reply, 'malformed');
  return handleError(err as Error, req, reply);
}

/**
 * The pages' form hook, added after a route's own preHandlers (the session, the role): an
 * undeclared field answers its page here; a bad value throws for the scope's error handler.
 */
async function formHook(req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const refused = checkForm(req, reply, (r, rep, names) => sendFormProblem(r, rep, 'undeclared', { fields: names }));
  if (refused) return reply;
  return undefined;
}

/**
 * The pages' forms. `application/x-www-form-urlencoded` is parsed by `@fastify/formbody` (64 KiB,
 * the same limit as every other body; the API keeps the app's raw reader, which its signatures
 * need), every POST is checked as a whole before any route reads a field or checks its CSRF token,
 * so a form that cannot be read answers its own page (413, 400 or 415) instead of "this form has
 * expired" or an error in JSON. Every POST route must declare its form (`withForm`); the form is
 * checked against it once the session, the CSRF token and the role have been checked, and before
 * the handler. Registered in the pages' scope only.
 */
export async function registerForms(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: MAX_BODY_BYTES });
  app.addHook('preValidation', (req, reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    const problem = formProblemOf(req);
    if (problem === null) return done();
    sendFormProblem(req, reply, problem);
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = ([] as string[]).concat(route.method);
    if (!methods.includes('POST')) return;
    if (!route.config?.form) throw new Error(`POST ${route.url}: a page's POST route declares its form (withForm)`);
    route.preHandler = [...([] as NonNullable<RouteOptions['preHandler']>[]).concat(route.preHandler ?? []).flat(), formHook] as RouteOptions['preHandler'];
  });
}
