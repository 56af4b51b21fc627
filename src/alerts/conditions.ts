/**
 * What alerts are raised for: one condition per kind, each a read of what holds now, as findings
 * under a stable subject. The evaluator (alerts.ts) raises an alert for a finding whose key (kind
 * and subject) has none open, and resolves an open one whose finding is gone. A condition only
 * reads; a new kind is one more entry in `ALERT_CONDITIONS`.
 */
import type { Ctx } from '../context.js';
import { visibleState, type BreakerState } from '../domain/breaker.js';
import { fmt2 } from '../domain/money.js';
import { isoSeconds } from '../domain/time.js';
import type { AlertMailKind } from '../mail/outbox.js';
import { breakerConfig } from '../providers/cascade.js';
import { utcDay } from '../providers/pool.js';
import { silentDevices } from '../store/devices.js';
import * as store from './store.js';

export type AlertKind = AlertMailKind;

/** Every kind, in the order the page and the API's filter list them. */
export const ALERT_KINDS: readonly AlertKind[] = ['unmatched-credits', 'statement', 'circuit-open', 'requisite-limit', 'device-silent', 'unread-messages'];

/** One thing that holds now: its subject (with the kind, the alert's key), a sentence for people and the figures behind it. */
export interface Finding {
  subjectId: string;
  summary: string;
  detail: Record<string, unknown>;
}

export interface AlertCondition {
  kind: AlertKind;
  /** Everything of this kind that holds at `now`; a condition that throws leaves its kind's alerts as they are. */
  find(ctx: Ctx, now: Date): Promise<Finding[]>;
}

/** A requisite is near its limit from this share of it on (exact: compared as numeric in the database). */
export const REQUISITE_LIMIT_SHARE = '0.9';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Unmatched credits older than ALERT_UNMATCHED_MINUTES, one alert per provider (not per credit: a bad hour is one alert, not hundreds). */
export const unmatchedCredits: AlertCondition = {
  kind: 'unmatched-credits',
  async find(ctx, now) {
    const minutes = ctx.config.alertUnmatchedMinutes;
    const rows = await store.waitingCreditsByProvider(ctx.db, new Date(now.getTime() - minutes * 60_000));
    return rows.map((r) => ({
      subjectId: r.provider_id,
      summary: `${plural(r.credits, 'credit', 'credits')} of ${r.provider_name} unmatched for over ${minutes} minutes, the oldest (${r.oldest_id}) recorded ${isoSeconds(r.oldest_at)}`,
      detail: { providerId: r.provider_id, credits: r.credits, oldestCreditId: r.oldest_id, oldestRecordedAt: isoSeconds(r.oldest_at), minutes },
    }));
  },
};

/** The last statement of an account does not add up or leaves a gap; one alert per provider and account. */
export const statementFindings: AlertCondition = {
  kind: 'statement',
  async find(ctx) {
    const rows = await store.accountsWithStatementFindings(ctx.db);
    return rows.map((r) => {
      const what: string[] = [];
      if (r.balance_check === 'inconsistent') what.push(`its balances do not add up${r.balance_difference ? ` (off by ${fmt2(r.balance_difference)})` : ''}`);
      if (r.continuity === 'gap') what.push(`it leaves a gap${r.gap_from || r.gap_to ? ` from ${r.gap_from ?? '?'} to ${r.gap_to ?? '?'}` : ''} after the statement before`);
      return {
        subjectId: `${r.provider_id}/${r.account_key}`,
        summary: `The last statement of account ${r.account_key} of ${r.provider_name} (${r.filename ?? r.statement_id}): ${what.join(', and ')}`,
        detail: {
          providerId: r.provider_id,
          accountKey: r.account_key,
          statementId: r.statement_id,
          balanceCheck: r.balance_check,
          balanceDifference: r.balance_difference === null ? null : fmt2(r.balance_difference),
          continuity: r.continuity,
          gapFrom: r.gap_from,
          gapTo: r.gap_to,
        },
      };
    });
  },
};

/**
 * A provider's circuit that is not closed: open, or half-open and not yet proven healthy again.
 * Half-open counts too, or an alert would resolve after each 60 s cool-down and be raised again
 * at the next trip; it ends when the circuit closes.
 */
export const circuitsOpen: AlertCondition = {
  kind: 'circuit-open',
  async find(ctx, now) {
    const cfg = breakerConfig(ctx);
    const found: Finding[] = [];
    for (const c of await store.allCircuits(ctx.db)) {
      const state = visibleState(c.state as BreakerState, now.getTime(), cfg);
      if (state === 'closed') continue;
      const rail = c.rail === '' ? null : c.rail;
      found.push({
        subjectId: `${c.provider_id}/${c.method}/${c.rail}`,
        summary: `The circuit of ${c.provider_name} for ${c.method}${rail ? ` ${rail}` : ''} is ${state}: the cascade skips it${state === 'half-open' ? ' but for a few probes' : ''}`,
        detail: { providerId: c.provider_id, method: c.method, rail, state },
      });
    }
    return found;
  },
};

/** An active requisite whose matched money today reached 90 % of its daily limit; it ends with the UTC day or a higher limit. */
export const requisitesNearLimit: AlertCondition = {
  kind: 'requisite-limit',
  async find(ctx, now) {
    const rows = await store.requisitesNearDailyLimit(ctx.db, utcDay(now.getTime()), REQUISITE_LIMIT_SHARE);
    return rows.map((r) => ({
      subjectId: r.id,
      summary: `Requisite ${r.label ?? r.id} of ${r.provider_name} received ${fmt2(r.received_today)} of its daily limit of ${fmt2(r.daily_limit)}${r.currency ? ` ${r.currency}` : ''} today`,
      detail: { providerId: r.provider_id, requisiteId: r.id, currency: r.currency, dailyLimit: fmt2(r.daily_limit), receivedToday: fmt2(r.received_today) },
    }));
  },
};

/** A device bound to requisites not heard from for DEVICE_SILENCE_MINUTES (they take no new orders meanwhile); ends with its next heartbeat or message, or when it forwards for none. */
export const devicesSilent: AlertCondition = {
  kind: 'device-silent',
  async find(ctx, now) {
    const minutes = ctx.config.deviceSilenceMinutes;
    const rows = await silentDevices(ctx.db, new Date(now.getTime() - minutes * 60_000));
    // A phone that forwards for no requisite pauses nothing: its silence is no evidence stopping.
    return rows.filter((d) => d.requisite_ids.length > 0).map((d) => ({
      subjectId: d.id,
      summary: `Device ${d.name} of pool ${d.provider_id} not heard from ${d.last_seen_at ? `since ${isoSeconds(d.last_seen_at)}` : 'since it was added'}: its ${plural(d.requisite_ids.length, 'requisite takes', 'requisites take')} no new orders`,
      detail: { providerId: d.provider_id, deviceId: d.id, lastSeenAt: d.last_seen_at ? isoSeconds(d.last_seen_at) : null, requisiteIds: d.requisite_ids, minutes },
    }));
  },
};

/**
 * Unread messages (no template read them) waiting longer than ALERT_UNMATCHED_MINUTES, one alert
 * per provider: each may be money no one has seen, like an unmatched credit.
 */
export const unreadMessages: AlertCondition = {
  kind: 'unread-messages',
  async find(ctx, now) {
    const minutes = ctx.config.alertUnmatchedMinutes;
    const rows = await store.unreadMessagesByProvider(ctx.db, new Date(now.getTime() - minutes * 60_000));
    return rows.map((r) => ({
      subjectId: r.provider_id,
      summary: `${plural(r.messages, 'message', 'messages')} of ${r.provider_name} unread for over ${minutes} minutes, the oldest recorded ${isoSeconds(r.oldest_at)}`,
      detail: { providerId: r.provider_id, messages: r.messages, oldestRecordedAt: isoSeconds(r.oldest_at), minutes },
    }));
  },
};

/** The conditions the worker evaluates, one per kind. */
export const ALERT_CONDITIONS: readonly AlertCondition[] = [unmatchedCredits, statementFindings, circuitsOpen, requisitesNearLimit, devicesSilent, unreadMessages];
