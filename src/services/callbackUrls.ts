import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { checkCallbackUrl } from '../callbacks/urlGuard.js';

/**
 * The callback URL rules (spec, POST /gw/v1/orders): applied when an order brings a notifyUrl, when an
 * operator sets a desk's callbackUrl, and again at connect time for every delivery. Returns the URL
 * in its parsed form, which is what gets stored and later connected to.
 */
export async function checkUrlRules(ctx: Ctx, raw: string): Promise<{ ok: true; url: string } | { ok: false; reason: string }> {
  const r = await checkCallbackUrl(raw, { allowlist: ctx.callbackAllowlist, resolve: ctx.resolve });
  return r.ok ? { ok: true, url: r.url.href } : r;
}

export async function checkDeskCallbackUrl(ctx: Ctx, raw: string): Promise<string> {
  const r = await checkUrlRules(ctx, raw);
  if (!r.ok) throw new AppError('INVALID_CALLBACK_URL', `callbackUrl: ${r.reason}`);
  return r.url;
}
