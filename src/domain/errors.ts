/** The closed list of error codes and their HTTP statuses (spec Errors table, decisions D1–D6). */
export const ERROR_STATUS = {
  AUTH_HEADERS_MISSING: 401,
  AUTH_TIMESTAMP_INVALID: 401,
  AUTH_TIMESTAMP_SKEW: 401,
  AUTH_NONCE_INVALID: 401,
  AUTH_FAILED: 401,
  REPLAY_DETECTED: 409,
  ADMIN_AUTH_FAILED: 401,
  VALIDATION_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ORDER_NOT_FOUND: 404,
  APPEAL_NOT_FOUND: 404,
  MERCHANT_NOT_FOUND: 404,
  DESK_NOT_FOUND: 404,
  TARIFF_NOT_FOUND: 404,
  PROVIDER_NOT_FOUND: 404,
  LIMIT_NOT_FOUND: 404,
  RATE_NOT_FOUND: 404,
  ORDER_REF_CONFLICT: 409,
  ORDER_ALREADY_COMPLETED: 409,
  ORDER_STILL_OPEN: 409,
  INVALID_TRANSITION: 409,
  ORDER_ALREADY_PAID: 409,
  ORDER_IN_DISPUTE: 409,
  NOTHING_TO_REVERSE: 409,
  APPEAL_ALREADY_RESOLVED: 409,
  EMAIL_TAKEN: 409,
  INSUFFICIENT_BALANCE: 409,
  // approval: a price for every live desk, the merchant's application
  TARIFF_REQUIRED: 409,
  APPLICATION_NOT_FOUND: 404,
  APPLICATION_NOT_SUBMITTED: 409,
  APPLICATION_ALREADY_SUBMITTED: 409,
  FORBIDDEN: 403,
  MERCHANT_INACTIVE: 400,
  SHOP_INACTIVE: 400,
  SHOP_STOPPED: 400,
  CALLBACK_URL_REQUIRED: 400,
  INVALID_CALLBACK_URL: 400,
  RAIL_REQUIRED: 400,
  INVALID_RAIL: 400,
  RAIL_NOT_ENABLED: 400,
  INVALID_CURRENCY: 400,
  CURRENCY_NOT_PAYABLE: 400,
  CURRENCY_NOT_ENABLED: 400,
  FX_RATE_UNAVAILABLE: 400,
  AMOUNT_BELOW_MIN: 400,
  AMOUNT_ABOVE_MAX: 400,
  TRAFFIC_LIMIT_REACHED: 400,
  MERCHANT_NOT_APPROVED: 400,
  PAYOUTS_NOT_SUPPORTED: 400,
  NO_AVAILABLE_METHOD: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  // reconciliation: requisites, credits, statements
  REQUISITE_NOT_FOUND: 404,
  CREDIT_NOT_FOUND: 404,
  CREDIT_ALREADY_MATCHED: 409,
  AMOUNT_MISMATCH: 409,
  CURRENCY_MISMATCH: 409,
  STATEMENT_INVALID: 400,
  STATEMENT_NOT_FOUND: 404,
  STATEMENT_PROFILE_NOT_FOUND: 404,
  REQUISITE_MISMATCH: 409,
  SANDBOX_ORDER: 409,
  // device messages: devices and templates
  DEVICE_NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  TEMPLATE_BUILT_IN: 409,
  // alerts: the channels they are sent to
  ALERT_CHANNEL_NOT_FOUND: 404,
  // webhook endpoints (Standard Webhooks)
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
  // withdrawal requests and their payout destinations
  WITHDRAWAL_NOT_FOUND: 404,
  WITHDRAWAL_ALREADY_DECIDED: 409,
  DESTINATION_NOT_FOUND: 404,
  TWO_FACTOR_CODE_INVALID: 403,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected refusal: returned by domain checks and services, turned into an envelope at the edge. */
export interface Refusal {
  readonly code: ErrorCode;
  readonly detail: string | null;
}

export function refusal(code: ErrorCode, detail: string | null = null): Refusal {
  return { code, detail };
}

/** Thrown by services when a refusal has to cross several layers; the HTTP layer maps it like a Refusal. */
export class AppError extends Error {
  constructor(readonly code: ErrorCode, readonly detail: string | null = null) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: ErrorCode, detail: string | null = null): Result<T> => ({ ok: false, refusal: refusal(code, detail) });
