/**
 * The reconciliation pages' file forms (the statement upload, a CSV profile with its sample), in
 * scopes of their own that read multipart bodies up to the statement's cap. Before a byte of a
 * file is read, the sender must be a signed-in administrator: a stranger or a support operator
 * cannot make the server take in 50 MiB. (The full checks, CSRF included, run again once the form
 * is read, as on every page POST.)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { officeOperator } from '../../services/office.js';
import { resumeSession } from '../../services/sessions.js';
import { OFFICE } from '../../web/office/session.js';
import { readCookie } from '../../web/session.js';
import { registerUploads } from '../../web/upload.js';
import { STATEMENT_MAX_BYTES } from '../statements/index.js';

function administratorsOnly(ctx: Ctx, refusal: string) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const session = await resumeSession(ctx, 'office', readCookie(req, OFFICE.session));
    const operator = session ? await officeOperator(ctx, session.accountId) : null;
    if (!operator) return reply.code(403).type('text/plain; charset=utf-8').send('Sign in again: your session has ended.');
    if (operator.role !== 'admin') return reply.code(403).type('text/plain; charset=utf-8').send(refusal);
  };
}

/**
 * Registers `routes` in a scope that reads multipart forms with files of up to 50 MiB, for
 * administrators only (`refusal` is what anyone else is answered, before the body is read).
 * `parts`: the fields and files a form of the scope may have, when more than the uploads' usual.
 */
export async function adminUploads(
  app: FastifyInstance,
  ctx: Ctx,
  refusal: string,
  routes: (upload: FastifyInstance) => void | Promise<void>,
  o: { parts?: number } = {},
): Promise<void> {
  await app.register(async (upload) => {
    upload.addHook('onRequest', administratorsOnly(ctx, refusal));
    await registerUploads(upload, { fileBytes: STATEMENT_MAX_BYTES, fileLabel: '50 MiB', parts: o.parts });
    await routes(upload);
  });
}
