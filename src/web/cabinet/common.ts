import type { FastifyRequest } from 'fastify';
import type { CabinetRequest } from './session.js';

/** Small readers every cabinet route module shares. */

export const cab = (req: FastifyRequest): CabinetRequest => req.cabinet!;
export const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name]!;
export const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
export const str = (v: unknown, max = 200) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

/** Codes that mean "nothing of yours by that id": one 404 page whatever the object. */
export const NOT_FOUND_CODES = new Set(['DESK_NOT_FOUND', 'ORDER_NOT_FOUND', 'APPEAL_NOT_FOUND', 'MERCHANT_NOT_FOUND', 'NOT_FOUND', 'DESTINATION_NOT_FOUND', 'WITHDRAWAL_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND']);

/** A service detail ("password: too short") as a sentence for a person. */
export function sentence(detail: string | null): string {
  if (!detail) return 'That is not possible now.';
  const s = detail.replace(/^(\w+): /, (_m, field: string) => `${field[0]!.toUpperCase()}${field.slice(1)}: `);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
