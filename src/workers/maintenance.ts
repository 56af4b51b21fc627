import { pruneWebhookHistory } from '../store/webhookEndpoints.js';
import type { Ctx } from '../context.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import { pruneMessages } from '../store/devices.js';
import { forgetLinkStarts } from '../store/links.js';
import { refreshCallbackHourStats, refreshOrderDayStats } from '../store/office.js';
import { retireDeliveredEvents } from '../store/outbox.js';
import type { Worker } from './loop.js';

/**
 * Keeping a big database as fast as a small one ("Keeping a big database fast" in docs/configuration.md):
 * retention moves delivered callbacks out of the hot tables, and the dashboard's order rollup is
 * kept fresh. Both run inside the service (`startWorkers`) and by hand (`npm run maintain`).
 */

const DAY_MS = 86_400_000;

/**
 * Events per retention statement: one statement moves them with their attempts (about 1.3 each)
 * in a transaction of a few tens of milliseconds, holding only those rows' locks.
 */
export const RETENTION_BATCH = 1000;
/** A backlog drains batch after batch; after that, one look a minute. */
export const RETENTION_PERIOD_MS = 60_000;
/**
 * The order rollup: today every minute (the dashboard reads today from it, at most a minute old),
 * the two days before every 10 minutes (their orders still expire, get paid and get appealed), and
 * the 31 days before once an hour (an appeal or a reconciliation can still move an older order).
 */
export const ORDER_STATS_PERIOD_MS = 60_000;
const ORDER_STATS_RECENT_MS = 10 * 60_000;
const ORDER_STATS_ALL_MS = 3_600_000;
const ORDER_STATS_RECENT_DAYS = 2;
const ORDER_STATS_ALL_DAYS = 31;
/**
 * The callback rollup: the hours whose events may still change state (retries end some 21 minutes
 * after an event is written) every minute, the dashboard's whole day (and an hour more) with the
 * recent order days.
 */
const CALLBACK_STATS_RECENT_MS = 2 * 3_600_000;
export const CALLBACK_STATS_DAY_MS = 25 * 3_600_000;

/** One batch of retention: delivered events older than RETENTION_DAYS, archived or dropped; 0 when RETENTION_DAYS is 0. */
export function retireOldCallbacks(db: Db, clock: Clock, config: Pick<Config, 'retentionDays' | 'retentionArchive'>, batch = RETENTION_BATCH): Promise<number> {
  if (config.retentionDays === 0) return Promise.resolve(0);
  return retireDeliveredEvents(db, { before: new Date(clock.now() - config.retentionDays * DAY_MS), limit: batch, archive: config.retentionArchive });
}

/** Customers' addresses behind payment links' orders are kept this long (the count needs only the open ones). */
export const LINK_CLIENTS_KEPT_DAYS = 30;

/** One batch of forgetting who started payment links' orders more than LINK_CLIENTS_KEPT_DAYS ago. */
export function forgetOldLinkClients(db: Db, clock: Clock, batch = RETENTION_BATCH): Promise<number> {
  return forgetLinkStarts(db, new Date(clock.now() - LINK_CLIENTS_KEPT_DAYS * DAY_MS), batch);
}

/** Webhook endpoint attempts and finished deliveries are kept this long: as far back as a recovery reaches. */
export const WEBHOOK_HISTORY_DAYS = 30;

/** One batch of forgetting webhook attempts and finished deliveries older than WEBHOOK_HISTORY_DAYS. */
export function forgetOldWebhookHistory(db: Db, clock: Clock, batch = RETENTION_BATCH): Promise<number> {
  return pruneWebhookHistory(db, new Date(clock.now() - WEBHOOK_HISTORY_DAYS * DAY_MS), batch);
}

/**
 * One batch of device messages' retention: those dealt with (a credit, skipped, handled by a
 * person) older than MESSAGE_RETENTION_DAYS, then unread ones older than
 * MESSAGE_UNREAD_RETENTION_DAYS (0 turns either off). Credits stay: a message sent again after its
 * record went is read again and found as the credit it was.
 */
export function pruneOldMessages(db: Db, clock: Clock, config: Pick<Config, 'messageRetentionDays' | 'messageUnreadRetentionDays'>, batch = RETENTION_BATCH): Promise<number> {
  const before = (days: number) => (days === 0 ? null : new Date(clock.now() - days * DAY_MS));
  const o = { handledBefore: before(config.messageRetentionDays), unreadBefore: before(config.messageUnreadRetentionDays), limit: batch };
  if (!o.handledBefore && !o.unreadBefore) return Promise.resolve(0);
  return pruneMessages(db, o);
}

export function retentionWorker(ctx: Ctx, batch = RETENTION_BATCH): Worker {
  return {
    name: 'retention',
    runOnce: async () =>
      (await retireOldCallbacks(ctx.db, ctx.clock, ctx.config, batch)) + (await forgetOldLinkClients(ctx.db, ctx.clock, batch)) + (await forgetOldWebhookHistory(ctx.db, ctx.clock, batch)) +
      (await pruneOldMessages(ctx.db, ctx.clock, ctx.config, batch)),
  };
}

const utcDay = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** Rolls up the orders of the UTC days from `fromDaysAgo` up to (not including) `toDaysAgo` days before today (the clock's; -1 is tomorrow, so today included). */
export function rollUpOrderDays(db: Db, clock: Clock, fromDaysAgo: number, toDaysAgo: number): Promise<number> {
  const now = clock.now();
  return refreshOrderDayStats(db, utcDay(now - fromDaysAgo * DAY_MS), utcDay(now - toDaysAgo * DAY_MS), new Date(now));
}

/** The dashboard's order rollup on the schedule of ORDER_STATS_PERIOD_MS; everything at its first pass. Returns 0: nothing is ever left over. */
export function orderStatsWorker(ctx: Ctx): Worker {
  let lastRecent = Number.NEGATIVE_INFINITY;
  let lastAll = Number.NEGATIVE_INFINITY;
  return {
    name: 'order-stats',
    async runOnce() {
      const now = ctx.clock.now();
      await rollUpOrderDays(ctx.db, ctx.clock, 0, -1);
      if (now - lastRecent >= ORDER_STATS_RECENT_MS) {
        await rollUpOrderDays(ctx.db, ctx.clock, ORDER_STATS_RECENT_DAYS, 0);
        await refreshCallbackHourStats(ctx.db, new Date(now - CALLBACK_STATS_DAY_MS));
        lastRecent = now;
      } else {
        await refreshCallbackHourStats(ctx.db, new Date(now - CALLBACK_STATS_RECENT_MS));
      }
      if (now - lastAll >= ORDER_STATS_ALL_MS) {
        await rollUpOrderDays(ctx.db, ctx.clock, ORDER_STATS_ALL_DAYS, ORDER_STATS_RECENT_DAYS);
        lastAll = now;
      }
      return 0;
    },
  };
}

/** Everything maintenance does, to the end of the backlog: what `npm run maintain` runs. */
export async function maintainOnce(db: Db, clock: Clock, config: Pick<Config, 'retentionDays' | 'retentionArchive' | 'messageRetentionDays' | 'messageUnreadRetentionDays'>): Promise<{ retired: number; archived: boolean; days: number }> {
  let retired = 0;
  for (let n; (n = await retireOldCallbacks(db, clock, config)) > 0; ) retired += n;
  while ((await forgetOldLinkClients(db, clock)) > 0);
  while ((await pruneOldMessages(db, clock, config)) > 0);
  const days = await rollUpOrderDays(db, clock, ORDER_STATS_ALL_DAYS, -1);
  await refreshCallbackHourStats(db, new Date(clock.now() - CALLBACK_STATS_DAY_MS));
  return { retired, archived: config.retentionArchive, days };
}
