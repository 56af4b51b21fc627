import type { FastifyInstance } from 'fastify';
import { listMailLines, mailDetail } from '../../../services/mail.js';
import { sendPage } from '../../layout.js';
import { messagePage } from '../ui.js';
import { param, query, str, type Kit } from '../kit.js';
import { mailListPage, mailPage } from '../views/mail.js';

/**
 * A kept mail's HTML as its own document: our styles inline (as mail clients need them), no script,
 * no request anywhere, never framed, and in a sandbox of its own origin.
 */
const MAIL_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'; sandbox";

/** Mail, for admins only: every mail newest first, and a kept mail's text and HTML (web spec, "Email"). */
export function mailRoutes(app: FastifyInstance, { ctx, page, shell, adminOnly }: Kit): void {
  const server = () => (ctx.config.smtp ? `${ctx.config.smtp.host}:${ctx.config.smtp.port}` : null);

  app.get('/office/mail', { preHandler: adminOnly }, async (req, reply) => {
    const list = await listMailLines(ctx, { before: str(query(req).before, 40) || undefined, limit: 50 });
    return page(req, reply, (s) => mailListPage(s, list, server()));
  });

  app.get('/office/mail/:id', { preHandler: adminOnly }, async (req, reply) => {
    const m = await mailDetail(ctx, param(req, 'id'));
    if (!m) return sendPage(reply, 404, messagePage(await shell(req), 'Not found', 'There is no such mail.'));
    return page(req, reply, (s) => mailPage(s, m.line, m.content));
  });

  app.get('/office/mail/:id/html', { preHandler: adminOnly }, async (req, reply) => {
    const m = await mailDetail(ctx, param(req, 'id'));
    if (!m?.content) return sendPage(reply, 404, messagePage(await shell(req), 'Not found', 'Only a kept mail is shown in full.'));
    return reply
      .code(200)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', MAIL_HTML_CSP)
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .send(m.content.html);
  });
}
