import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import * as office from '../../../services/office.js';
import * as op from '../../../services/operator.js';
import { ButtonForm, formOf } from '../../forms.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { doneOf, param, str, type Kit } from '../kit.js';
import { ratesPage } from '../views/rates.js';

/** Currencies and rates: the settings and the manual overrides. */
export function rateRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  app.get('/office/rates', async (req, reply) => {
    const rates = await office.ratesOverview(ctx);
    return page(req, reply, (s) => ratesPage(s, rates, doneOf(req), ctx.config.rateMaxAgeSeconds, ctx.clock.now()));
  });
  adminPost('/office/rates/:code', forms.RateForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    const rate = str(formOf(req, forms.RateForm).rate, 40);
    if (!rate) throw new AppError('VALIDATION_ERROR', 'Rate: a decimal number, such as 92.5');
    await act(req, 'rate.set', code, (c) => op.putManualRate(c, code, rate));
    return seeOther(reply, '/office/rates?done=rate');
  });
  adminPost('/office/currencies/:code', forms.CurrencyForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    const f = formOf(req, forms.CurrencyForm);
    const spreadPercent = str(f.spreadPercent, 20);
    if (!spreadPercent) throw new AppError('VALIDATION_ERROR', 'Spread: a percentage such as 1.5');
    await act(req, 'currency.update', code, (c) => op.putCurrency(c, code, { enabled: f.enabled === 'true', spreadPercent }));
    return seeOther(reply, '/office/rates?done=currency');
  });
  adminPost('/office/rates/:code/remove', ButtonForm, async (req, reply) => {
    const code = op.currencyCode(param(req, 'code'));
    await act(req, 'rate.remove', code, (c) => op.deleteManualRate(c, code));
    return seeOther(reply, '/office/rates?done=rate-removed');
  });
}
