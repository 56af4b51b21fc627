import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BODY_BYTES, rawBodyOf } from '../server/rawBody.js';
import { html } from './html.js';
import { chooseLang, type Lang } from './i18n/index.js';
import { FORM_PROBLEM_TEXT, type FormProblem } from './i18n/formProblems.js';
import { document, sendPage } from './layout.js';
import { uploadOf, isUploadBody } from './multipart.js';

/** More fields than any of our forms has (the largest has about 20): a flood, not a person. */
export const MAX_FORM_FIELDS = 200;

const STATUS: Record<FormProblem, number> = { tooLarge: 413, tooManyFields: 400, nul: 400, malformed: 400, notAForm: 415 };

const URLENCODED = 'application/x-www-form-urlencoded';

function mediaType(req: FastifyRequest): string | null {
  const h = req.headers['content-type'];
  return h === undefined ? null : h.split(';')[0]!.trim().toLowerCase();
}

/**
 * What is wrong with a page's POST body as a whole, or null when every page may read it: a body
 * over the limit, more fields than any form has, a NUL byte (text columns cannot hold it), a
 * multipart body that is not a well-formed form, or a body of any other type. An empty body with
 * no type passes (buttons posting only their CSRF header).
 */
export function formProblemOf(req: FastifyRequest): FormProblem | null {
  if (isUploadBody(req.body)) {
    const { body, result } = uploadOf(req);
    // An upload over its own cap is for its page to explain beside the file field.
    if (body?.tooLarge) return null;
    if (!result.ok) return /too many parts/.test(result.problem) ? 'tooManyFields' : 'malformed';
    for (const [, v] of result.form.fields) if (v.includes('\0')) return 'nul';
    return null;
  }
  const raw = rawBodyOf(req.body);
  if (raw.tooLarge) return 'tooLarge';
  const type = mediaType(req);
  if (type === null) return raw.bytes.length === 0 ? null : 'notAForm';
  if (type !== URLENCODED) return 'notAForm';
  if (raw.bytes.includes(0)) return 'nul';
  const text = raw.bytes.toString('latin1');
  if (/%00/.test(text)) return 'nul';
  let fields = text.length === 0 ? 0 : 1;
  for (let i = text.indexOf('&'); i >= 0 && fields <= MAX_FORM_FIELDS; i = text.indexOf('&', i + 1)) fields++;
  return fields > MAX_FORM_FIELDS ? 'tooManyFields' : null;
}

function langOf(req: FastifyRequest): Lang {
  return chooseLang((req.query as { lang?: unknown } | undefined)?.lang, req.headers['accept-language']);
}

/** The page that says why a form was refused, in the customer's or user's language, with the way back. */
export function sendFormProblem(req: FastifyRequest, reply: FastifyReply, problem: FormProblem): FastifyReply {
  const lang = langOf(req);
  const t = FORM_PROBLEM_TEXT[lang];
  const back = req.url.split('?')[0]!;
  const reason = t.reasons[problem].replace('{limit}', `${MAX_BODY_BYTES / 1024} KiB`);
  return sendPage(
    reply,
    STATUS[problem],
    document({
      lang,
      title: t.title,
      styles: ['pay.css'],
      body: html`<main class="pay"><section class="state state-cancelled"><h1>${t.title}</h1><p>${reason}</p><p><a href="${back}">${t.back}</a></p></section></main>`,
    }),
  );
}

/**
 * Every page's POST is checked as a whole before any route reads a field or checks its CSRF token,
 * so a form that cannot be read answers its own page (413, 400 or 415) instead of "this form has
 * expired" or an error in JSON. Registered in the pages' scope only.
 */
export function registerFormGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (req, reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    const problem = formProblemOf(req);
    if (problem === null) return done();
    sendFormProblem(req, reply, problem);
  });
}
