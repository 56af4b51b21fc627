import type { Ctx } from '../context.js';
import type { ProviderRow } from '../store/providers.js';
import { issueViaHttp, type IssueOutcome, type IssueRequest } from './httpConnector.js';
import { issueRequisite } from './pool.js';
import { sandboxPaymentDetails } from './sandboxDetails.js';

/** One kind of provider behind one interface: how it issues details, and how it reports back. */
export interface ProviderKind {
  readonly kind: ProviderRow['kind'];
  /**
   * Issues payment details for an order. `timeoutMs` is the provider's own share; `budgetMs` what
   * is left of the cascade's: when the budget is the shorter, it ends the exchange through the
   * abort signal, and a call cut by our budget is not the provider's failure (unscored).
   */
  issue(ctx: Ctx, p: ProviderRow, o: IssueRequest, limits: { timeoutMs: number; budgetMs: number }): Promise<IssueOutcome>;
  /** Outcomes of this kind count for the circuit breaker (remote providers only). */
  readonly scored: boolean;
  /**
   * Issues within the process, reading and writing nothing (the sandbox): there is nothing to wait
   * for between reserving an order and placing it, so both may be one statement.
   */
  readonly instant: boolean;
  /** Kinds that report payments over the signed connector: the key and secret their messages are checked with. */
  readonly inbound: { credentials(ctx: Ctx, p: ProviderRow): { key: string; secret: string } | null } | null;
}

const sandbox: ProviderKind = {
  kind: 'sandbox',
  scored: false,
  instant: true,
  inbound: null,
  async issue(ctx, _p, o) {
    try {
      const payment = sandboxPaymentDetails({
        method: o.method,
        rail: o.rail,
        currency: o.currency,
        bankPageUrl: `${ctx.config.publicBaseUrl}/sandbox/bank/${o.orderId}`,
        random: Math.random,
      });
      return { kind: 'issued', payment };
    } catch (err) {
      return { kind: 'declined', reason: `sandbox cannot simulate this combination: ${(err as Error).message}` };
    }
  },
};

const pool: ProviderKind = {
  kind: 'pool',
  scored: false,
  instant: false,
  inbound: null,
  /** A requisite only under the assignment rules, so that each credit points at one order (src/reconciliation). */
  issue(ctx, p, o) {
    return issueRequisite(ctx, p.id, o);
  },
};

const http: ProviderKind = {
  kind: 'http',
  scored: true,
  instant: false,
  inbound: {
    credentials(ctx, p) {
      return p.api_key !== null && p.secret_enc !== null ? { key: p.api_key, secret: ctx.box.open(p.secret_enc) } : null;
    },
  },
  async issue(ctx, p, o, { timeoutMs, budgetMs }) {
    if (!p.base_url || !p.api_key || !p.secret_enc) return { kind: 'failed', scored: false, reason: 'provider connection is not configured' };
    const budget = new AbortController();
    const budgetTimer = budgetMs < timeoutMs ? setTimeout(() => budget.abort(), budgetMs) : null;
    try {
      return await issueViaHttp(
        { baseUrl: p.base_url, key: p.api_key, secret: ctx.box.open(p.secret_enc) },
        { orderId: o.orderId, method: o.method, rail: o.rail, amount: o.amount, currency: o.currency, operator: o.operator, expiresAt: o.expiresAt },
        { clock: ctx.clock, timeoutMs, signal: budget.signal },
      );
    } finally {
      if (budgetTimer) clearTimeout(budgetTimer);
    }
  },
};

const KINDS: Record<ProviderRow['kind'], ProviderKind> = { sandbox, pool, http };

export function providerKind(kind: ProviderRow['kind']): ProviderKind {
  return KINDS[kind];
}
