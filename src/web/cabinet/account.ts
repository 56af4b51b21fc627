import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { changeUserPassword } from '../../services/cabinet.js';
import { listSessions, revokeOwnSession } from '../../services/sessions.js';
import { sendPage } from '../layout.js';
import { seeOther, sendTooManyAttempts } from '../session.js';
import { ButtonForm, formOf, withForm } from '../forms.js';
import { accountPage } from './accountView.js';
import { cab, param, query } from './common.js';
import { PasswordForm } from './forms.js';
import { CABINET } from './session.js';
import { twoFactorCardOf } from './twoFactor.js';

/** The account page: the password and the sessions signed in (two-factor sign-in: twoFactor.ts). */
export function accountRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/account', async (req, reply) => {
    const c = cab(req);
    const done = query(req).done;
    const notice =
      done === 'password' ? 'Password changed. Every other session has been signed out.'
      : done === 'revoked' ? 'That session is signed out.'
      : done === 'two-factor-off' ? 'Two-factor sign-in is off.'
      : null;
    return sendPage(reply, 200, accountPage(c, await listSessions(ctx, c.session), notice, null, await twoFactorCardOf(ctx, c)));
  });

  app.post('/cabinet/account/password', withForm(PasswordForm), async (req, reply) => {
    const c = cab(req);
    const form = formOf(req, PasswordForm);
    const r = await changeUserPassword(ctx, c.session, form.currentPassword ?? '', form.newPassword ?? '');
    if (!r.ok && r.retryAfterMs !== undefined) return sendTooManyAttempts(ctx, CABINET, req, reply, r.retryAfterMs, '/cabinet/account');
    if (!r.ok) return sendPage(reply, 400, accountPage(c, await listSessions(ctx, c.session), null, r.message, await twoFactorCardOf(ctx, c)));
    return seeOther(reply, '/cabinet/account?done=password');
  });

  app.post('/cabinet/account/sessions/:handle/revoke', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    // Another account's session handle matches nothing: the same 404 as an unknown one.
    if (!(await revokeOwnSession(ctx, c.session, param(req, 'handle')))) throw new AppError('NOT_FOUND', 'no such session');
    return seeOther(reply, '/cabinet/account?done=revoked');
  });

}
