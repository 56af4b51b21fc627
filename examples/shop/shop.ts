import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyRawJson, Paygate, PaygateError, verifyCallback, type CallbackEvent, type OrderStatus } from '@paygate/sdk';

export interface ShopOptions {
  /** The gateway, e.g. http://127.0.0.1:8080 (the customer's payment page comes with each order, as `payPageUrl`). */
  gatewayUrl: string;
  key: string;
  secret: string;
  /** Where customers reach this shop (links back from the payment page). */
  publicUrl: string;
  /** Where the gateway sends callbacks; default `${publicUrl}/paygate/callbacks`. */
  notifyUrl?: string;
  /** How often the events feed is read to catch callbacks that never arrived; 0 turns it off. Default 30 s. */
  feedIntervalMs?: number;
  /** Replaceable for tests. */
  paygate?: Paygate;
}

export interface ShopOrder {
  ref: string;
  id: string;
  amount: string;
  currency: string;
  status: OrderStatus;
  paymentUrl: string;
  /** Ids of the events applied: callbacks and the feed deliver the same event, it counts once. */
  events: string[];
}

export interface Shop {
  app: FastifyInstance;
  orders: Map<string, ShopOrder>;
  /** Applies every event of the feed after the last one seen; returns how many were new. */
  syncFromFeed(): Promise<number>;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A merchant integration in one file. In a real shop the orders, the seen event ids and the feed
 * position live in the shop's database; here they are in memory.
 */
export function createShop(o: ShopOptions): Shop {
  const gatewayUrl = o.gatewayUrl.replace(/\/+$/, '');
  const paygate = o.paygate ?? new Paygate({ baseUrl: gatewayUrl, key: o.key, secret: o.secret });
  const notifyUrl = o.notifyUrl ?? `${o.publicUrl}/paygate/callbacks`;
  const orders = new Map<string, ShopOrder>();
  const seen = new Set<string>();
  let feedPosition: string | undefined;

  /** Idempotent by event id: a callback and the feed, or a retried callback, apply once. */
  function apply(eventId: string, e: CallbackEvent): boolean {
    if (seen.has(eventId)) return false;
    seen.add(eventId);
    const order = (e.orderRef && orders.get(e.orderRef)) || [...orders.values()].find((x) => x.id === e.id);
    if (!order) return false; // not one of ours (another integration on the same desk)
    order.status = e.status;
    order.events.push(eventId);
    return true;
  }

  async function syncFromFeed(): Promise<number> {
    let applied = 0;
    for await (const fe of paygate.events({ after: feedPosition })) {
      if (apply(fe.id, JSON.parse(fe.body) as CallbackEvent)) applied++;
      feedPosition = fe.id;
    }
    return applied;
  }

  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.get('/', async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(
      page('Paygate example shop', `<form method="post" action="/checkout"><label>Amount, RUB <input name="amount" value="1500.50"></label> <button>Pay</button></form>`),
    ),
  );

  app.post('/checkout', async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string | number | undefined>;
    const amount = Number(b.amount);
    if (!(amount > 0)) return reply.code(400).type('text/plain').send('amount: a positive number');
    const ref = `shop-${randomUUID()}`;
    // The desk's rails: ask once per checkout here; a real shop knows its rail from its configuration.
    const rail = typeof b.rail === 'string' ? b.rail : ((await paygate.methods()).rails[0]?.rail ?? undefined);
    try {
      // With an orderRef the SDK may safely retry on network errors and 503.
      const created = await paygate.orders.create({
        amount,
        currency: typeof b.currency === 'string' ? b.currency : undefined,
        rail,
        orderRef: ref,
        notifyUrl,
        successUrl: `${o.publicUrl}/thanks?ref=${ref}`,
        failUrl: `${o.publicUrl}/thanks?ref=${ref}`,
      });
      // The gateway says where its payment page is (its PUBLIC_URL): the shop never builds the address.
      const paymentUrl = created.payPageUrl;
      orders.set(ref, { ref, id: created.id, amount: created.amount, currency: created.currency, status: created.status, paymentUrl, events: [] });
      return reply.redirect(paymentUrl, 303);
    } catch (err) {
      if (err instanceof PaygateError) {
        return reply.code(502).type('text/plain').send(`The payment could not be started: ${err.code}${err.detail ? ` (${err.detail})` : ''}; trace ${err.traceId ?? '-'}`);
      }
      throw err;
    }
  });

  // Callbacks: the raw body is kept (only in this scope) so the signature can be checked over it.
  app.register(async (scope) => {
    fastifyRawJson(scope);
    scope.post('/paygate/callbacks', async (req, reply) => {
      let event: CallbackEvent;
      try {
        event = verifyCallback(req.body as Buffer, req.headers, o.secret);
      } catch (err) {
        if (err instanceof PaygateError) return reply.code(400).type('text/plain').send(err.code);
        throw err;
      }
      apply(req.headers['x-gate-event-id'] as string, event);
      // Exactly 200 acknowledges; repeats of a seen event are acknowledged too.
      return reply.code(200).type('text/plain').send('ok');
    });
  });

  app.get('/orders/:ref', async (req, reply) => {
    const order = orders.get((req.params as { ref: string }).ref);
    return order ? order : reply.code(404).send({ error: 'no such order' });
  });

  app.get('/thanks', async (req, reply) => {
    const order = orders.get(String((req.query as { ref?: string }).ref ?? ''));
    if (!order) return reply.code(404).type('text/html; charset=utf-8').send(page('Unknown order', ''));
    const text = order.status === 'Completed' ? 'Paid, thank you.' : order.status === 'Canceled' ? 'The payment was cancelled.' : 'Waiting for the payment…';
    return reply.type('text/html; charset=utf-8').send(page(`Order ${escape(order.ref)}`, `<p>${text}</p><p>Status: ${escape(order.status)}</p>`));
  });

  const interval = o.feedIntervalMs ?? 30_000;
  if (interval > 0) {
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      syncFromFeed()
        .catch((err) => app.log.warn({ err }, 'events feed unavailable'))
        .finally(() => {
          timer = setTimeout(tick, interval);
          timer.unref();
        });
    };
    app.addHook('onReady', async () => tick());
    app.addHook('onClose', async () => clearTimeout(timer));
  }

  return { app, orders, syncFromFeed };
}
