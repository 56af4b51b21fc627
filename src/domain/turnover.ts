import type { Decimal } from 'decimal.js';
import { fmt8, dec } from './money.js';

export type Scope = 'desk' | 'merchant' | 'provider' | 'platform';
export type Window = 'hour' | 'day' | 'month';
export const WINDOWS: readonly Window[] = ['hour', 'day', 'month'];

/** Calendar-aligned windows in UTC: a daily cap resets at midnight UTC, a monthly one on the 1st. */
export function windowStart(window: Window, atMs: number): Date {
  const d = new Date(atMs);
  if (window === 'hour') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()));
  if (window === 'day') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

export interface Cap {
  id: string;
  scope: Scope;
  scopeId: string | null;
  window: Window;
  capUsd: string;
  notifyOnly: boolean;
}

/** D22: refused when completed + order would exceed the cap; reaching it exactly is allowed. */
export function capExceeded(cap: Cap, completedUsd: Decimal | string, orderUsd: Decimal): string | null {
  const total = dec(completedUsd).plus(orderUsd);
  if (total.lte(cap.capUsd)) return null;
  return `${cap.scope} ${cap.window} cap ${fmt8(cap.capUsd)} USD: completed ${fmt8(completedUsd)} + order ${fmt8(orderUsd)}`;
}
