/**
 * Standard Webhooks signing (standardwebhooks.com): a secret is `whsec_` + base64 of random bytes;
 * a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`:
 * `v1,` + base64 of HMAC-SHA256 keyed with the secret's decoded bytes over
 * `{webhook-id}.{webhook-timestamp}.{body}`, one per secret, separated by spaces.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret (the specification allows 24 to 64). */
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_` secret. */
export function webhookKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/** The `webhook-signature` header: one `v1,` signature per key, the current one first. */
export function signWebhook(keys: readonly Buffer[], id: string, ts: number, body: Buffer): string {
  return keys
    .map((key) => {
      const h = createHmac('sha256', key);
      h.update(`${id}.${ts}.`);
      h.update(body);
      return `v1,${h.digest('base64')}`;
    })
    .join(' ');
}

/** The headers of a delivery attempt at `ts` (Unix seconds). */
export function standardWebhookHeaders(keys: readonly Buffer[], id: string, ts: number, body: Buffer): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Paygate/1.0 Webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signWebhook(keys, id, ts, body),
  };
}
