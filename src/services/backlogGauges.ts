import type { Ctx } from '../context.js';
import { backlogFigures } from '../store/backlogs.js';

/**
 * A scrape reads the figures at most this often (on the injected clock): Prometheus scraping every
 * few seconds, or several scrapers, cost one small statement per 10 s.
 */
export const BACKLOG_SAMPLE_MS = 10_000;

/**
 * The gauges of what waits for people (unmatched credits and the oldest one's age, unread device
 * messages, silent devices) read from the database when a scrape asks for them, never on a
 * request's path. A failed read keeps the last figures and says so in the log.
 */
export function sampleBacklogsOnScrape(ctx: Ctx): void {
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | null = null;
  const read = async (): Promise<void> => {
    const now = ctx.clock.now();
    try {
      const f = await backlogFigures(ctx.db, new Date(now - ctx.config.deviceSilenceMinutes * 60_000));
      ctx.metrics.unmatchedCredits.set(f.unmatched_credits);
      ctx.metrics.unmatchedCreditOldestAge.set(f.oldest_unmatched_at ? Math.max(0, (now - f.oldest_unmatched_at.getTime()) / 1000) : 0);
      ctx.metrics.deviceMessagesUnread.set(f.unread_messages);
      ctx.metrics.devicesSilent.set(f.silent_devices);
      readAt = now;
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'backlog figures for the metrics could not be read; the last ones are shown');
    }
  };
  ctx.metrics.onScrape(() => {
    if (reading) return reading;
    if (ctx.clock.now() - readAt < BACKLOG_SAMPLE_MS) return Promise.resolve();
    reading = read().finally(() => (reading = null));
    return reading;
  });
}
