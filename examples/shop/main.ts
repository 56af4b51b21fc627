import { createShop } from './shop.js';

// npm run shop, with the desk's key and secret in PAYGATE_KEY and PAYGATE_SECRET.
const env = process.env;
const port = Number(env.PORT ?? 3000);
const host = env.HOST ?? '127.0.0.1';
if (!env.PAYGATE_KEY || !env.PAYGATE_SECRET) {
  console.error('Set PAYGATE_KEY and PAYGATE_SECRET (printed by the gateway on its first start), and PAYGATE_BASE_URL if it is not http://127.0.0.1:8080.');
  process.exit(2);
}
const publicUrl = env.SHOP_PUBLIC_URL ?? `http://${host}:${port}`;
const shop = createShop({
  gatewayUrl: env.PAYGATE_BASE_URL ?? 'http://127.0.0.1:8080',
  key: env.PAYGATE_KEY,
  secret: env.PAYGATE_SECRET,
  publicUrl,
  notifyUrl: env.SHOP_NOTIFY_URL,
  feedIntervalMs: env.SHOP_FEED_INTERVAL_MS ? Number(env.SHOP_FEED_INTERVAL_MS) : undefined,
});
const address = await shop.app.listen({ port, host });
console.log(`example shop on ${address} (orders notify ${env.SHOP_NOTIFY_URL ?? `${publicUrl}/paygate/callbacks`}); open it and press Pay`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void shop.app.close().then(() => process.exit(0)));
