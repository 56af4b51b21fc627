import { PaygateError } from './errors.js';
import { newNonce, signRequest } from './signing.js';
import type {
  Appeal,
  Balance,
  CreateAppealRequest,
  CreatedOrder,
  CreateOrderRequest,
  CreateWebhookEndpointRequest,
  EventsPage,
  EventsQuery,
  FeedEvent,
  Methods,
  Order,
  Rates,
  UpdateWebhookEndpointRequest,
  WebhookAttemptsPage,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookRecovery,
  WebhookSecret,
  WebhookTestEvent,
} from './types.js';

export interface PaygateOptions {
  /** Where the gateway is, e.g. `https://pay.example.com` (without `/gw/v1`). */
  baseUrl: string;
  /** Cash desk key (`shp_…`). */
  key: string;
  /** Cash desk secret, shown once when the desk was created. */
  secret: string;
  /**
   * Attempts in all for a call that is safe to repeat (order creation with an `orderRef`, reads);
   * default 3. Order creation without an `orderRef` is never repeated.
   */
  maxAttempts?: number;
  /** First back-off delay in ms, doubled per attempt, with jitter; default 500. */
  retryBaseMs?: number;
  /**
   * Per-request timeout in ms; default 180 000, above the gateway's 160 s provider cascade, so an
   * order creation is not abandoned while the gateway is still placing it.
   */
  timeoutMs?: number;
  /** Replaceable for tests and custom transports. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

type RetryPolicy = 'never' | 'network' | 'network-and-503';

interface Call {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  retry: RetryPolicy;
}

const seg = (s: string) => encodeURIComponent(s);

/** Client of the gateway API (`/gw/v1`) for one cash desk. */
export class Paygate {
  private readonly baseUrl: string;
  private readonly key: string;
  private readonly secret: string;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  /** Server clock minus local clock in ms, learnt from `Date` after an `AUTH_TIMESTAMP_SKEW`. */
  private clockOffsetMs = 0;

  constructor(options: PaygateOptions) {
    if (!options?.baseUrl || !options.key || !options.secret) throw new TypeError('Paygate: baseUrl, key and secret are required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.key = options.key;
    this.secret = options.secret;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 180_000;
    this.fetchFn = options.fetch ?? ((...a) => fetch(...a));
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  readonly orders = {
    /**
     * Creates an order. With an `orderRef` the call is idempotent for an hour, so it is retried on
     * network errors and `503 NO_AVAILABLE_METHOD` with back-off; without one it is sent once.
     */
    create: (body: CreateOrderRequest): Promise<CreatedOrder> =>
      this.call({ method: 'POST', path: '/gw/v1/orders', body, retry: body?.orderRef ? 'network-and-503' : 'never' }),
    /** Reads an order by its `ord_` id or by the merchant's `orderRef` (the newest with it). */
    get: (idOrRef: string): Promise<Order> => this.call({ method: 'GET', path: `/gw/v1/orders/${seg(idOrRef)}`, retry: 'network' }),
    /** Cancels an unpaid order; a cancelled one is a no-op, a completed one `409 ORDER_ALREADY_COMPLETED`. */
    cancel: (id: string, reason?: string): Promise<Order> =>
      this.call({ method: 'POST', path: `/gw/v1/orders/${seg(id)}/cancel`, body: reason === undefined ? {} : { reason }, retry: 'never' }),
  };

  readonly appeals = {
    create: (body: CreateAppealRequest): Promise<Appeal> => this.call({ method: 'POST', path: '/gw/v1/appeals', body, retry: 'never' }),
    get: (id: string): Promise<Appeal> => this.call({ method: 'GET', path: `/gw/v1/appeals/${seg(id)}`, retry: 'network' }),
  };

  /** The merchant's webhook endpoints (Standard Webhooks); deliveries verify with `verifyWebhook`. */
  readonly webhookEndpoints = {
    /** Subscribes a URL; the answer's `secret` (`whsec_…`) is shown this once. */
    create: (body: CreateWebhookEndpointRequest): Promise<WebhookEndpointCreated> =>
      this.call({ method: 'POST', path: '/gw/v1/webhook-endpoints', body, retry: 'never' }),
    /** The merchant's endpoints, oldest first (without secrets). */
    list: async (): Promise<WebhookEndpoint[]> =>
      (await this.call<{ endpoints: WebhookEndpoint[] }>({ method: 'GET', path: '/gw/v1/webhook-endpoints', retry: 'network' })).endpoints,
    get: (id: string): Promise<WebhookEndpoint> => this.call({ method: 'GET', path: `/gw/v1/webhook-endpoints/${seg(id)}`, retry: 'network' }),
    /** Changes the fields given. */
    update: (id: string, body: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> =>
      this.call({ method: 'PATCH', path: `/gw/v1/webhook-endpoints/${seg(id)}`, body, retry: 'never' }),
    /** A new secret; the old one keeps signing beside it for 24 hours. */
    rotateSecret: (id: string): Promise<WebhookSecret> => this.call({ method: 'POST', path: `/gw/v1/webhook-endpoints/${seg(id)}/rotate-secret`, retry: 'never' }),
    /** Queues again every event since `since` (ISO 8601, at most 30 days ago) not yet delivered. */
    recover: (id: string, since: string): Promise<WebhookRecovery> =>
      this.call({ method: 'POST', path: `/gw/v1/webhook-endpoints/${seg(id)}/recover`, body: { since }, retry: 'never' }),
    /** Queues a `webhook.test` delivery to the endpoint. */
    sendTestEvent: (id: string): Promise<WebhookTestEvent> => this.call({ method: 'POST', path: `/gw/v1/webhook-endpoints/${seg(id)}/test`, retry: 'never' }),
    /** A page of delivery attempts, newest first; pass the page's `next` as `before`. */
    attempts: (id: string, query: { before?: string; limit?: number } = {}): Promise<WebhookAttemptsPage> =>
      this.call({
        method: 'GET',
        path: `/gw/v1/webhook-endpoints/${seg(id)}/attempts`,
        query: { before: query.before, limit: query.limit === undefined ? undefined : String(query.limit) },
        retry: 'network',
      }),
  };

  methods(): Promise<Methods> {
    return this.call({ method: 'GET', path: '/gw/v1/methods', retry: 'network' });
  }

  rates(currency?: string): Promise<Rates> {
    return this.call({ method: 'GET', path: '/gw/v1/rates', query: { currency }, retry: 'network' });
  }

  balance(): Promise<Balance> {
    return this.call({ method: 'GET', path: '/gw/v1/balance', retry: 'network' });
  }

  /** One page of the events feed. */
  eventsPage(query: EventsQuery = {}): Promise<EventsPage> {
    return this.call({
      method: 'GET',
      path: '/gw/v1/events',
      query: {
        after: query.after,
        orderId: query.orderId,
        delivered: query.delivered === false ? 'false' : undefined,
        limit: query.limit === undefined ? undefined : String(query.limit),
      },
      retry: 'network',
    });
  }

  /**
   * Every event after `after` (from the oldest when absent), oldest first, following `next` while
   * `hasMore`. Remember the id of the last event you processed and pass it next time.
   */
  async *events(query: EventsQuery = {}): AsyncGenerator<FeedEvent, void, undefined> {
    let after = query.after;
    for (;;) {
      const page = await this.eventsPage({ ...query, after });
      for (const e of page.events) yield e;
      if (!page.hasMore || !page.next) return;
      after = page.next;
    }
  }

  private async call<T>(c: Call): Promise<T> {
    // The exact bytes sent are the bytes signed: serialise once, hash and send the same buffer.
    const body = c.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(c.body));
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) qs.set(k, v);
    const url = `${this.baseUrl}${c.path}${qs.size ? `?${qs}` : ''}`;
    let skewRetried = false;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      let text: string;
      try {
        res = await this.send(c, url, body);
        // A connection lost while the body streams in is a network failure too.
        text = await res.text();
      } catch (err) {
        if (c.retry !== 'never' && attempt < this.maxAttempts) {
          await this.backOff(attempt);
          continue;
        }
        throw new PaygateError({ status: 0, code: 'NETWORK_ERROR', detail: err instanceof Error ? err.message : String(err), cause: err });
      }
      const traceHeader = res.headers.get('x-trace-id');
      if (res.status === 429) {
        const ra = Number(res.headers.get('retry-after'));
        throw new PaygateError({ status: 429, code: 'RATE_LIMITED', detail: null, traceId: traceHeader, retryAfter: Number.isFinite(ra) && ra >= 0 ? ra : null });
      }
      let parsed: any = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      if (res.ok && parsed?.status === 'ok') return parsed.result as T;
      const code: string = parsed?.fault?.code ?? `HTTP_${res.status}`;
      const err = new PaygateError({
        status: res.status,
        code,
        detail: parsed?.fault?.detail ?? (parsed ? null : text.slice(0, 300) || null),
        traceId: parsed?.traceId ?? traceHeader,
      });
      if (code === 'AUTH_TIMESTAMP_SKEW' && !skewRetried) {
        // Our clock is off by more than 300 s: learn the gateway's from its Date header and sign again.
        const serverMs = Date.parse(res.headers.get('date') ?? '');
        if (Number.isFinite(serverMs)) {
          this.clockOffsetMs = serverMs - this.now();
          skewRetried = true;
          attempt--;
          continue;
        }
      }
      if (res.status === 503 && c.retry === 'network-and-503' && attempt < this.maxAttempts) {
        await this.backOff(attempt);
        continue;
      }
      throw err;
    }
  }

  private async send(c: Call, url: string, body: Uint8Array<ArrayBuffer> | undefined): Promise<Response> {
    const ts = String(Math.floor((this.now() + this.clockOffsetMs) / 1000));
    const nonce = newNonce();
    const headers: Record<string, string> = {
      'x-gate-key': this.key,
      'x-gate-ts': ts,
      'x-gate-nonce': nonce,
      'x-gate-sign': signRequest(this.secret, ts, nonce, c.method, c.path, body ?? ''),
      accept: 'application/json',
    };
    if (body) headers['content-type'] = 'application/json';
    return this.fetchFn(url, { method: c.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
  }

  /** Exponential back-off with jitter: base·2^(n−1), scaled by a random factor in [0.5, 1). */
  private backOff(attempt: number): Promise<void> {
    const ms = this.retryBaseMs * 2 ** (attempt - 1) * (0.5 + this.random() / 2);
    return this.sleep(Math.round(ms));
  }
}
