export { Paygate, type PaygateOptions } from './client.js';
export { PaygateError } from './errors.js';
export { verifyCallback, DEFAULT_TOLERANCE_SECONDS, type HeadersLike, type RawBody, type VerifyOptions } from './verify.js';
export { signRequest, signCallback, requestSigningString, sha256Hex } from './signing.js';
export { verifyWebhook, signWebhook, type WebhookMessage } from './webhooks.js';
export { fastifyRawJson, verifyRequest } from './adapters.js';
export { listen, type ListenOptions } from './listen.js';
export type * from './types.js';
