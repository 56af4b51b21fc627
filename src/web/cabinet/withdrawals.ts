import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { addDestination, dropDestination, merchantDestinations } from '../../services/payoutDestinations.js';
import { twoFactorStatus } from '../../services/twoFactor.js';
import { merchantFundsView, merchantWithdrawals, requestWithdrawal } from '../../services/withdrawalRequests.js';
import { ButtonForm, formOf, formWithProblem, withForm } from '../forms.js';
import { sendPage } from '../layout.js';
import { seeOther, sendTooManyAttempts } from '../session.js';
import { cab, NOT_FOUND_CODES, param, query, sentence, str } from './common.js';
import { DestinationForm, WithdrawalForm } from './forms.js';
import { CABINET } from './session.js';
import {
  EMPTY_DESTINATION_FORM,
  EMPTY_WITHDRAWAL_FORM,
  withdrawalsPage,
  type DestinationFormValues,
  type FormProblem,
  type WithdrawalFormValues,
} from './withdrawalsView.js';

/** Requests the page lists, newest first. */
const REQUESTS_SHOWN = 100;

/** Where an action's notice is read back: `?done=` names one of these, never free text. */
const NOTICES: Record<string, string> = {
  requested: 'Withdrawal requested: the amount is held until we pay it. The owners get a mail of each step.',
  destination: 'Payout destination saved.',
  removed: 'Payout destination removed. Requests already made to it still go there.',
};

/**
 * Withdrawal requests in the cabinet (web spec, "Withdrawal requests"): the page, a request
 * (`POST /cabinet/withdrawals`), a destination saved (`POST /cabinet/payout-destinations`) or
 * removed. Posting is an owner's (the role gate refuses anyone else with 403 before the form is
 * read); a refused form comes back as typed with the reason and the code.
 */
export function withdrawalRoutes(app: FastifyInstance, ctx: Ctx): void {
  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    o: { withdrawal?: WithdrawalFormValues; destination?: DestinationFormValues; problem?: FormProblem | null; notice?: string | null } = {},
  ) => {
    const c = cab(req);
    const [funds, requests, destinations, tf] = await Promise.all([
      merchantFundsView(ctx, c.merchant.id),
      merchantWithdrawals(ctx, c.merchant.id, REQUESTS_SHOWN),
      merchantDestinations(ctx, c.merchant.id),
      twoFactorStatus(ctx, 'cabinet', c.user.id),
    ]);
    return sendPage(
      reply,
      status,
      withdrawalsPage(c, {
        funds,
        requests,
        destinations,
        twoFactorOn: tf.enabled,
        withdrawal: o.withdrawal ?? EMPTY_WITHDRAWAL_FORM,
        destination: o.destination ?? EMPTY_DESTINATION_FORM,
        problem: o.problem ?? null,
        notice: o.notice ?? null,
      }),
    );
  };

  /** A refusal as the form shows it: 4xx by its code, the reason and the code, the form as typed. */
  const refused = (err: unknown): { status: number; text: string } => {
    // Another merchant's destination is not found, as anywhere else: the 404 page.
    if (!(err instanceof AppError) || NOT_FOUND_CODES.has(err.code)) throw err;
    const status = ERROR_STATUS[err.code];
    return { status: status >= 400 && status < 500 ? status : 409, text: `${sentence(err.detail)} (${err.code})` };
  };

  app.get('/cabinet/withdrawals', async (req, reply) => page(req, reply, 200, { notice: NOTICES[str(query(req).done, 20)] ?? null }));

  app.post('/cabinet/withdrawals', withForm(WithdrawalForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, WithdrawalForm);
    const values: WithdrawalFormValues = { amountUsd: str(form.amountUsd, 40), destinationId: str(form.destinationId, 64) };
    try {
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      const asked = await requestWithdrawal(ctx, c.user, { ...values, code: str(form.code, 40) });
      if (asked.kind === 'locked') return sendTooManyAttempts(ctx, CABINET, req, reply, asked.retryAfterMs, '/cabinet/withdrawals');
      return seeOther(reply, '/cabinet/withdrawals?done=requested');
    } catch (err) {
      const r = refused(err);
      return page(req, reply, r.status, { withdrawal: values, problem: { form: 'withdrawal', text: r.text } });
    }
  });

  app.post('/cabinet/payout-destinations', withForm(DestinationForm, { invalid: 'route' }), async (req, reply) => {
    const c = cab(req);
    const { form, problem } = formWithProblem(req, DestinationForm);
    const values: DestinationFormValues = {
      kind: str(form.kind, 20),
      label: str(form.label, 200),
      address: str(form.address, 200),
      iban: str(form.iban, 200),
      account: str(form.account, 200),
      holder: str(form.holder, 200),
      bank: str(form.bank, 200),
    };
    try {
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      await addDestination(ctx, c.user, values);
      return seeOther(reply, '/cabinet/withdrawals?done=destination#payout-destinations');
    } catch (err) {
      const r = refused(err);
      return page(req, reply, r.status, { destination: values, problem: { form: 'destination', text: r.text } });
    }
  });

  app.post('/cabinet/payout-destinations/:destinationId/remove', withForm(ButtonForm), async (req, reply) => {
    formOf(req, ButtonForm);
    await dropDestination(ctx, cab(req).user, param(req, 'destinationId'));
    return seeOther(reply, '/cabinet/withdrawals?done=removed#payout-destinations');
  });
}
