import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import * as office from '../../../services/office.js';
import * as op from '../../../services/operator.js';
import { ButtonForm, formOf } from '../../forms.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import { doneOf, param, str, type Kit } from '../kit.js';
import { ratesPage } from '../views/rates.js';

type RateItem = Awaited<ReturnType<typeof office.ratesOverview>>[number];

const RATE_COLUMNS: CsvColumn<RateItem>[] = [
  { name: 'code', value: (r) => r.code },
  { name: 'enabled', value: (r) => r.currency?.enabled ?? null },
  { name: 'spreadPercent', value: (r) => r.currency?.spreadPercent ?? null },
  { name: 'rate', value: (r) => r.rate },
  { name: 'source', value: (r) => r.source },
  { name: 'marketRate', value: (r) => r.marketRate },
  { name: 'marketSource', value: (r) => r.marketSource },
  { name: 'marketFetchedAt', value: (r) => r.marketFetchedAt },
  { name: 'manualRate', value: (r) => r.manualRate },
  { name: 'manualSetAt', value: (r) => r.manualSetAt },
  { name: 'flag', value: (r) => r.flag },
];

/** Currencies and rates: the settings, the manual overrides, and the export. */
export function rateRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  app.get('/office/rates', async (req, reply) => {
    const rates = await office.ratesOverview(ctx);
    return page(req, reply, (s) => ratesPage(s, rates, doneOf(req), ctx.config.rateMaxAgeSeconds, ctx.clock.now()));
  });
  app.get('/office/rates.csv', async (_req, reply) => sendCsv(ctx, reply, 'rates.csv', RATE_COLUMNS, listed(() => office.ratesOverview(ctx))));
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
