import type { Lang } from './i18n/index.js';

/**
 * Display formatting for the payment page. Amounts arrive as decimal strings and stay strings:
 * Intl.NumberFormat formats a decimal string exactly (no float rounding on the way).
 */

/**
 * An amount as the page's language writes money: its digit grouping (Indian lakh and crore
 * grouping for `hi`), decimal separator and currency placement, with the currency's own minor
 * units (2 for RUB, INR, KZT, TRY, UZS; none for KRW), so "2 750,00 ₽" and "₩65,000". A fraction
 * the currency's units cannot show (KRW 65000.50) is shown rather than rounded away: the page
 * never shows an amount other than the one to pay.
 */
export function formatAmount(lang: Lang, amount: string, currency: string): string {
  const fraction = (amount.split('.')[1] ?? '').replace(/0+$/, '');
  try {
    const own = new Intl.NumberFormat(lang, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    const digits = Math.min(Math.max(own, fraction.length), 20);
    return new Intl.NumberFormat(lang, {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: own,
      maximumFractionDigits: digits,
    }).format(amount as unknown as number);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A time of day in UTC for the language, e.g. "14:35 UTC"; the script adds the customer's local time. */
export function formatUtcTime(lang: Lang, at: Date): string {
  return new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(at);
}

/** Minutes and seconds left, "14:59"; hours shown past 60 minutes, "1:05:00". */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Card numbers and IBANs in groups of four, the way they are printed and read aloud. */
export function groupByFour(value: string): string {
  return value.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * A phone number in E.164 laid out the way its country writes it. Unknown countries keep the
 * E.164 form, which every banking app accepts.
 */
export function formatPhone(e164: string): string {
  const d = e164.replace(/[^\d+]/g, '');
  let m: RegExpMatchArray | null;
  // Russia and Kazakhstan: +7 916 123-45-67
  if ((m = d.match(/^\+7(\d{3})(\d{3})(\d{2})(\d{2})$/))) return `+7 ${m[1]} ${m[2]}-${m[3]}-${m[4]}`;
  // India: +91 98765 43210
  if ((m = d.match(/^\+91(\d{5})(\d{5})$/))) return `+91 ${m[1]} ${m[2]}`;
  // Turkey: +90 532 123 45 67
  if ((m = d.match(/^\+90(\d{3})(\d{3})(\d{2})(\d{2})$/))) return `+90 ${m[1]} ${m[2]} ${m[3]} ${m[4]}`;
  // Korea (mobile): +82 10-1234-5678
  if ((m = d.match(/^\+82(\d{2})(\d{4})(\d{4})$/))) return `+82 ${m[1]}-${m[2]}-${m[3]}`;
  // Azerbaijan and Uzbekistan: +994 50 123 45 67, +998 90 123 45 67
  if ((m = d.match(/^\+(994|998)(\d{2})(\d{3})(\d{2})(\d{2})$/))) return `+${m[1]} ${m[2]} ${m[3]} ${m[4]} ${m[5]}`;
  return e164;
}

/** A count with its noun in the right number: `1 desk`, `2 desks` (English pages). */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
