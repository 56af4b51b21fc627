import type { Ctx } from './context.js';
import * as op from './services/operator.js';

export interface DemoSeed {
  merchantId: string;
  deskId: string;
  deskKey: string;
  deskSecret: string;
}

/**
 * On an empty database: a sandbox merchant, a Classic desk (Sbp, C2c; RUB), the demo tariff as the
 * default tariff (so cabinet desks are priced), and manual rates marked as the demo's
 * (`source: "demo"`) until an operator sets them by hand.
 */
export async function seedDemo(ctx: Ctx): Promise<DemoSeed | null> {
  const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants');
  if (rows[0].n > 0) return null;
  const merchant = await op.createMerchant(ctx, { name: 'Demo merchant', sandbox: true });
  const tariff = await op.createTariff(ctx, {
    name: 'Demo tariff',
    bands: [
      { fromUsd: '0', toUsd: '1000', ratePercent: '3.5' },
      { fromUsd: '1000', toUsd: null, ratePercent: '2.5' },
    ],
    default: true,
  });
  for (const [code, rate] of [['RUB', '91.8'], ['KZT', '478.5'], ['INR', '84.2']] as const) {
    await op.putCurrency(ctx, code, { enabled: true, spreadPercent: '0' });
    await op.putManualRate(ctx, code, rate, { demo: true });
  }
  const desk = await op.createDesk(ctx, merchant.id, {
    method: 'Classic',
    rails: ['Sbp', 'C2c'],
    currencies: ['RUB'],
    minUsd: '0',
    maxUsd: '0',
    callbackUrl: null,
    callbacksEnabled: true,
    tariffId: tariff.id,
  });
  return { merchantId: merchant.id, deskId: desk.id, deskKey: desk.key, deskSecret: desk.secret };
}
