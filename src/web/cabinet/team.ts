import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { acceptInvitation, changeMemberRole, inviteMember, openInvitation, removeMember, teamOf } from '../../services/team.js';
import { sendPage } from '../layout.js';
import { enterSession, preSessionCsrfValid, preSessionToken, requestLang, seeOther, sendTooManyAttempts } from '../session.js';
import { ButtonForm, formOf, formWithProblem, withForm } from '../forms.js';
import { cab, param, query, sentence, str } from './common.js';
import { AcceptInvitationForm, InviteForm, RoleForm } from './forms.js';
import { messagePage } from './layout.js';
import { CABINET } from './session.js';
import { EMPTY_INVITE_FORM, invitationPage, teamPage, type InviteFormValues } from './teamView.js';

/** The team page and an owner's actions on it: invite, change a role, remove a member. */
export function teamRoutes(app: FastifyInstance, ctx: Ctx): void {
  const page = async (req: FastifyRequest, reply: FastifyReply, status: number, extra: Partial<Parameters<typeof teamPage>[1]> = {}) => {
    const c = cab(req);
    const team = await teamOf(ctx, c.merchant.id);
    return sendPage(reply, status, teamPage(c, { ...team, form: EMPTY_INVITE_FORM, error: null, notice: null, invited: null, mailing: ctx.config.smtp !== null, ...extra }));
  };

  app.get('/cabinet/team', async (req, reply) => {
    const done = query(req).done;
    const notice =
      done === 'role' ? { kind: 'ok' as const, text: 'Role changed: it applies from their next click.' }
      : done === 'removed' ? { kind: 'ok' as const, text: 'Removed: their sessions ended at once.' }
      : null;
    return page(req, reply, 200, { notice });
  });

  app.post('/cabinet/team', withForm(InviteForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, InviteForm);
    const values: InviteFormValues = { email: str(form.email, 320), role: str(form.role, 20) || EMPTY_INVITE_FORM.role };
    try {
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      // The invitee has no language yet: the mail is in the inviting browser's.
      const inv = await inviteMember(ctx, c.user, { ...values, lang: requestLang(req) });
      const url = `${ctx.config.publicBaseUrl.replace(/\/$/, '')}${inv.path}`;
      return page(req, reply, 201, { invited: { url, email: inv.email, role: inv.role, expiresAt: inv.expiresAt } });
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'VALIDATION_ERROR' && err.code !== 'EMAIL_TAKEN')) throw err;
      const text = err.code === 'EMAIL_TAKEN' ? 'This email already has a Paygate account. Each person signs in to one merchant.' : sentence(err.detail);
      return page(req, reply, err.code === 'EMAIL_TAKEN' ? 409 : 400, { form: values, error: text });
    }
  });

  app.post('/cabinet/team/:userId/role', withForm(RoleForm), async (req, reply) => {
    const c = cab(req);
    const r = await changeMemberRole(ctx, c.user, param(req, 'userId'), str(formOf(req, RoleForm).role, 20));
    if (!r.ok) return page(req, reply, 409, { notice: { kind: 'bad', text: r.message } });
    return seeOther(reply, '/cabinet/team?done=role');
  });

  app.post('/cabinet/team/:userId/remove', withForm(ButtonForm), async (req, reply) => {
    const c = cab(req);
    const r = await removeMember(ctx, c.user, param(req, 'userId'));
    if (!r.ok) return page(req, reply, 409, { notice: { kind: 'bad', text: r.message } });
    return seeOther(reply, '/cabinet/team?done=removed');
  });
}

const GONE = ['This invitation is no longer valid', 'It was used already or is older than 7 days. Ask the person who invited you for a new one.'] as const;

/** `/cabinet/invite/{token}`, in front of the session: the invitee sets a password and is signed in. */
export function invitationRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/cabinet/invite/:token', async (req, reply) => {
    const token = param(req, 'token');
    const inv = await openInvitation(ctx, token);
    if (!inv) return sendPage(reply, 410, messagePage(null, ...GONE));
    return sendPage(reply, 200, invitationPage({ csrf: preSessionToken(ctx, CABINET, req, reply), token, ...inv, error: null }));
  });

  app.post('/cabinet/invite/:token', withForm(AcceptInvitationForm, { invalid: 'route' }), async (req, reply) => {
    // Each try costs a password hash: under the sign-in limit, with a key of its own.
    const admission = await ctx.limits.signIn.take(`invite:${req.ip}`);
    if (!admission.ok) return sendTooManyAttempts(ctx, CABINET, req, reply, admission.retryAfterMs);
    if (!preSessionCsrfValid(ctx, CABINET, req)) return sendPage(reply, 403, messagePage(null, 'Form expired', 'Reload the invitation page and try again.'));
    const token = param(req, 'token');
    const inv = await openInvitation(ctx, token);
    if (!inv) return sendPage(reply, 410, messagePage(null, ...GONE));
    const { form, problem } = formWithProblem(req, AcceptInvitationForm);
    const again = (status: number, error: string) => sendPage(reply, status, invitationPage({ csrf: preSessionToken(ctx, CABINET, req, reply), token, ...inv, error }));
    if (problem) return again(400, sentence(problem));
    const r = await acceptInvitation(ctx, token, form.password ?? '', requestLang(req));
    if (r.ok) return enterSession(ctx, CABINET, req, reply, r.userId);
    if (r.reason === 'gone') return sendPage(reply, 410, messagePage(null, ...GONE));
    return again(r.reason === 'taken' ? 409 : 400, r.message);
  });
}
