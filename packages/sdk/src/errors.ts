/**
 * Every failure the SDK reports: an error answer of the gateway (`status`, `code`, `detail` and
 * `traceId` from the error envelope), a `429` (`code` `RATE_LIMITED`, `retryAfter` in seconds), a
 * network failure (`status` 0, `code` `NETWORK_ERROR`) or a callback that fails verification
 * (`status` 400, a `CALLBACK_*` code).
 */
export class PaygateError extends Error {
  override readonly name = 'PaygateError';
  /** HTTP status of the answer; 0 when no answer arrived. */
  readonly status: number;
  /** The gateway's `fault.code` (e.g. `ORDER_NOT_FOUND`), or one of the SDK's own codes. */
  readonly code: string;
  /** The gateway's `fault.detail`: names the field, the bound or the limit. */
  readonly detail: string | null;
  /** Quote it to support; from the envelope or the `X-Trace-Id` header. */
  readonly traceId: string | null;
  /** For `429`: seconds to wait, from `Retry-After`. */
  readonly retryAfter: number | null;

  constructor(o: { status: number; code: string; detail?: string | null; traceId?: string | null; retryAfter?: number | null; message?: string; cause?: unknown }) {
    super(o.message ?? `${o.code}${o.status ? ` (HTTP ${o.status})` : ''}${o.detail ? `: ${o.detail}` : ''}${o.traceId ? ` [trace ${o.traceId}]` : ''}`, o.cause === undefined ? undefined : { cause: o.cause });
    this.status = o.status;
    this.code = o.code;
    this.detail = o.detail ?? null;
    this.traceId = o.traceId ?? null;
    this.retryAfter = o.retryAfter ?? null;
  }
}
