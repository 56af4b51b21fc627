import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { getPayPage } from '../../services/payPage.js';
import { sendTooMany } from '../errors.js';

const escape = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const LABELS: Record<string, string> = {
  card: 'Card number',
  phone: 'Phone number',
  account: 'Account number',
  iban: 'IBAN',
  upiId: 'UPI id',
  holder: 'Recipient',
  bank: 'Bank',
};

/**
 * The hosted payment page (`payment.url` of methods without rails, and the link a merchant may show):
 * server-rendered from the same data as `GET /api/pay/{id}`, with every value escaped.
 */
export async function payPageRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  app.get('/pay/:id', { schema: { hide: true } }, async (req, reply) => {
    const admission = await ctx.limits.payPage.take(req.ip);
    if (!admission.ok) return sendTooMany(reply, admission.retryAfterMs);
    const v = await getPayPage(ctx, (req.params as { id: string }).id);
    reply.header('Content-Type', 'text/html; charset=utf-8');
    reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'no-referrer');
    if (!v) return reply.code(404).send(page('Payment not found', '<p>This payment link is not valid.</p>'));
    const details = Object.entries(v.payment)
      .filter(([k, val]) => k !== 'url' && val !== null)
      .map(([k, val]) => `<tr><th>${escape(LABELS[k] ?? k)}</th><td>${escape(val)}</td></tr>`)
      .join('');
    const open = v.status === 'Created';
    const body = [
      v.sandbox ? '<p class="sandbox">Sandbox: this is a test payment. No money moves; do not pay.</p>' : '',
      `<p class="amount">${escape(v.amount)} ${escape(v.currency)}</p>`,
      `<p>to ${escape(v.merchant.displayName)} · ${escape(v.method)}${v.rail ? ` · ${escape(v.rail)}` : ''}</p>`,
      open ? `<table>${details}</table><p>Pay before ${escape(v.expiresAt)} (UTC).</p>` : `<p>Status: ${escape(v.status)}</p>`,
      v.status === 'Completed' && v.successUrl ? `<p><a href="${escape(v.successUrl)}">Back to the shop</a></p>` : '',
      v.status === 'Canceled' && v.failUrl ? `<p><a href="${escape(v.failUrl)}">Back to the shop</a></p>` : '',
      open && v.backUrl ? `<p><a href="${escape(v.backUrl)}">Back to the shop</a></p>` : '',
    ].join('\n');
    return reply.send(page('Payment', body));
  });
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}
.amount{font-size:2rem;font-weight:600}.sandbox{background:#fff3cd;padding:.5rem}th{text-align:left;padding-right:1rem}</style></head>
<body><h1>${escape(title)}</h1>
${body}
</body></html>`;
}
