/** The day report of a pool provider: orders against money, per requisite. */
import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { dec, fmt2 } from '../domain/money.js';
import { getProvider } from '../store/providers.js';
import { utcDay } from '../providers/pool.js';
import { parseDay } from '../services/merchantStatements.js';
import * as statementStore from './statementStore.js';
import * as store from './store.js';
import * as ms from './messageStore.js';
import { isoSeconds } from '../domain/time.js';

const DAY_MS = 86_400_000;

const today = (ctx: Ctx) => utcDay(ctx.clock.now()).start.toISOString().slice(0, 10);

function row(r: store.DayRow) {
  return {
    requisiteId: r.requisite_id,
    ordersIssued: r.orders_issued,
    ordersCompleted: r.orders_completed,
    completedAmount: fmt2(r.completed_amount),
    credits: r.credits,
    creditsAmount: fmt2(r.credits_amount),
    matched: r.matched,
    unmatched: r.unmatched,
    ignored: r.ignored,
    completedWithoutCredit: r.completed_without_credit,
  };
}

/**
 * `GET /admin/v1/reconciliation`: one row per requisite of the provider for the UTC day, and the
 * totals. Credits whose account names no requisite are in the totals only (they arrived on the
 * provider's accounts all the same), so the totals' money is what the bank shows for the day.
 */
export async function reconciliationReport(ctx: Ctx, providerId: string, date: string | undefined) {
  const day = date ?? today(ctx);
  const from = parseDay(day, 'date');
  // The report reads where reports read: the read replica while it keeps up (ctx.readDb).
  if (!(await getProvider(ctx.readDb, providerId))) throw new AppError('PROVIDER_NOT_FOUND', `no provider ${providerId}`);
  const rows = await store.dayRows(ctx.readDb, providerId, from, new Date(from.getTime() + DAY_MS));
  const totals = rows.reduce(
    (t, r) => ({
      requisite_id: null,
      orders_issued: t.orders_issued + r.orders_issued,
      orders_completed: t.orders_completed + r.orders_completed,
      completed_amount: dec(t.completed_amount).plus(r.completed_amount).toString(),
      credits: t.credits + r.credits,
      credits_amount: dec(t.credits_amount).plus(r.credits_amount).toString(),
      matched: t.matched + r.matched,
      unmatched: t.unmatched + r.unmatched,
      ignored: t.ignored + r.ignored,
      completed_without_credit: t.completed_without_credit + r.completed_without_credit,
    }),
    { requisite_id: null, orders_issued: 0, orders_completed: 0, completed_amount: '0', credits: 0, credits_amount: '0', matched: 0, unmatched: 0, ignored: 0, completed_without_credit: 0 } as store.DayRow,
  );
  const statements = await statementStore.statementsOfDay(ctx.readDb, providerId, from, new Date(from.getTime() + DAY_MS));
  const deviceSilences = await silencesOfDay(ctx, providerId, from);
  return {
    providerId,
    date: day,
    requisites: rows.filter((r) => r.requisite_id !== null).map(row),
    totals: row(totals),
    statements: statements.map((s) => ({
      id: s.id, filename: s.filename, format: s.format, accounts: s.accounts, periodFrom: s.period_from, periodTo: s.period_to,
      balanceCheck: s.balance_check, balanceDifference: s.balance_difference, continuity: s.continuity,
      gap: s.continuity === 'gap' ? { from: s.gap_from, to: s.gap_to } : null,
    })),
    deviceSilences,
  };
}

/**
 * Which devices of the provider were silent during the day, when and for how long: the silences
 * recorded (device_silences), and a device silent now that the silence watch has not come by yet,
 * from the moment its silence began. `from` and `to` are the silence's own ends (`to` null: still
 * silent); `minutes` is the part of it inside the day (up to now for one still going on).
 */
async function silencesOfDay(ctx: Ctx, providerId: string, dayStart: Date) {
  const now = ctx.clock.now();
  const dayEnd = new Date(dayStart.getTime() + DAY_MS);
  if (dayStart.getTime() > now) return [];
  const recorded = await ms.silencesOverlapping(ctx.readDb, providerId, dayStart, dayEnd);
  const open = new Set(recorded.filter((r) => r.ended_at === null).map((r) => r.device_id));
  const silenceMs = ctx.config.deviceSilenceMinutes * 60_000;
  const unrecorded = (await ms.listDevices(ctx.readDb, providerId))
    .map((d) => ({ d, began: (d.last_seen_at ?? d.created_at).getTime() + silenceMs }))
    .filter(({ d, began }) => !open.has(d.id) && began < now && began < dayEnd.getTime())
    .map(({ d, began }) => ({ device_id: d.id, name: d.name, started_at: new Date(began), ended_at: null }));
  return [...recorded, ...unrecorded]
    .sort((a, b) => a.started_at.getTime() - b.started_at.getTime() || a.device_id.localeCompare(b.device_id))
    .map((r) => {
      const start = Math.max(r.started_at.getTime(), dayStart.getTime());
      const end = Math.min(r.ended_at?.getTime() ?? now, dayEnd.getTime());
      return { deviceId: r.device_id, name: r.name, from: isoSeconds(r.started_at), to: r.ended_at ? isoSeconds(r.ended_at) : null, minutes: Math.max(0, Math.round((end - start) / 60_000)) };
    });
}
