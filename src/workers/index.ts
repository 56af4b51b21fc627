import type { Ctx } from '../context.js';
import { expireDueOrders } from '../services/orderActions.js';
import { failStalePlacements } from '../store/orders.js';
import { CASCADE_BUDGET_MS } from '../providers/cascade.js';
import { startLoop, type RunningLoop, type Worker } from './loop.js';
import { DeliveryWorker } from '../callbacks/delivery.js';
import { WebhookSender } from '../callbacks/webhookSender.js';
import { rateRefresher } from '../fx/refresh.js';
import { refreshAppealsOverdue } from '../services/appeals.js';
import { pruneProviderMessages } from '../store/providerMessages.js';
import { pruneDeclines } from '../store/requisites.js';
import { watchDevices } from '../services/deviceWatch.js';
import { orderStatsWorker, ORDER_STATS_PERIOD_MS, RETENTION_BATCH, RETENTION_PERIOD_MS, retentionWorker } from './maintenance.js';
import { MAIL_BATCH, MAIL_PERIOD_MS, MailSender } from '../mail/sender.js';
import { ALERT_EVALUATION_PERIOD_MS, alertEvaluator } from '../alerts/alerts.js';
import { ALERT_WEBHOOK_PERIOD_MS, AlertWebhookSender } from '../alerts/webhooks.js';

/** Provider message ids are remembered this long for idempotency. */
export const PROVIDER_MESSAGE_RETENTION_MS = 30 * 86_400_000;

/** A pool's declines are kept this long: the pool's page shows the last day's, support looks back a few weeks. */
export const POOL_DECLINE_RETENTION_MS = 30 * 86_400_000;

/** Only bounds how late a refresh can start; the cadence itself (RUB 60 s, others 600 s) is kept in the database. */
export const RATE_REFRESH_PERIOD_MS = 5_000;

export const EXPIRY_PERIOD_MS = 200;
export const EXPIRY_BATCH = 500;

export function nonceJanitor(ctx: Ctx): Worker {
  return { name: 'nonce-janitor', runOnce: () => ctx.nonces.prune() };
}

export function providerMessageJanitor(ctx: Ctx): Worker {
  return {
    name: 'provider-message-janitor',
    runOnce: () => pruneProviderMessages(ctx.db, new Date(ctx.clock.now() - PROVIDER_MESSAGE_RETENTION_MS)),
  };
}

export function poolDeclineJanitor(ctx: Ctx): Worker {
  return { name: 'pool-decline-janitor', runOnce: () => pruneDeclines(ctx.db, new Date(ctx.clock.now() - POOL_DECLINE_RETENTION_MS)) };
}

/** Created orders past expiresAt become Canceled/Expired. */
export function expiryWorker(ctx: Ctx, batchSize = EXPIRY_BATCH): Worker {
  return { name: 'expiry', runOnce: () => expireDueOrders(ctx, batchSize) };
}

/** A reservation older than the cascade can take belongs to a create that died mid-cascade. */
export const STALE_PLACEMENT_MS = CASCADE_BUDGET_MS + 10_000;

/** Gives up orphaned reservations, so a repeat of their orderRef can go ahead. */
export function placementReaper(ctx: Ctx): Worker {
  return {
    name: 'placement-reaper',
    runOnce() {
      const now = ctx.clock.now();
      return failStalePlacements(ctx.db, new Date(now - STALE_PLACEMENT_MS), new Date(now));
    },
  };
}

/** Every background loop of one worker process; stop(graceMs) lets callback sends in flight finish within graceMs. */
export function startWorkers(ctx: Ctx): RunningLoop[] {
  const delivery = new DeliveryWorker(ctx);
  // Claims whenever a sending slot is free; the 10 s period is only its idle poll.
  delivery.start();
  // Webhook endpoints have their own sender and slots: a dead endpoint never slows the desk callbacks.
  const webhooks = new WebhookSender(ctx);
  webhooks.start();
  const mail = new MailSender(ctx);
  const mailLoop = startLoop(ctx, mail, MAIL_PERIOD_MS, { batchSize: MAIL_BATCH });
  const alertWebhooks = new AlertWebhookSender(ctx);
  // A pass that started sends runs again at once to fill the free slots; it never waits for a send.
  const alertWebhookLoop = startLoop(ctx, alertWebhooks, ALERT_WEBHOOK_PERIOD_MS, { batchSize: 1 });
  return [
    startLoop(ctx, expiryWorker(ctx), EXPIRY_PERIOD_MS, { batchSize: EXPIRY_BATCH }),
    // Off the 200 ms expiry path: nothing here can be due sooner than 170 s after its create.
    startLoop(ctx, placementReaper(ctx), 10_000),
    startLoop(ctx, nonceJanitor(ctx), 60_000),
    startLoop(ctx, providerMessageJanitor(ctx), 3_600_000),
    startLoop(ctx, poolDeclineJanitor(ctx), 3_600_000),
    // Marks devices silent for the record and the pages; issuing reads the sightings itself, so a minute is soon enough.
    startLoop(ctx, { name: 'device-silence-watch', runOnce: () => watchDevices(ctx) }, 60_000),
    startLoop(ctx, { name: 'appeals-sla', runOnce: async () => (await refreshAppealsOverdue(ctx), 0) }, 60_000),
    startLoop(ctx, rateRefresher(ctx), RATE_REFRESH_PERIOD_MS),
    startLoop(ctx, retentionWorker(ctx), RETENTION_PERIOD_MS, { batchSize: RETENTION_BATCH }),
    startLoop(ctx, orderStatsWorker(ctx), ORDER_STATS_PERIOD_MS),
    // Alerts are evaluated here, off every request path: raising one never slows what raised it.
    startLoop(ctx, alertEvaluator(ctx), ALERT_EVALUATION_PERIOD_MS),
    {
      async stop(graceMs = 0) {
        await alertWebhookLoop.stop();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([alertWebhooks.idle(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
        clearTimeout(timer);
        await alertWebhooks.close();
      },
    },
    { stop: (graceMs?: number) => delivery.stop(graceMs) },
    { stop: (graceMs?: number) => webhooks.stop(graceMs) },
    // Mails out (or kept, without SMTP_URL): sends in flight may finish within the grace period, then they are cut off and retried later.
    {
      async stop(graceMs = 0) {
        const stopped = mailLoop.stop();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([stopped, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
        clearTimeout(timer);
        mail.abortSends();
        await stopped;
        mail.close();
      },
    },
  ];
}
