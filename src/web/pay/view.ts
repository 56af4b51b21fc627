import { payerReferenceRule, type PayPage } from '../../services/payPage.js';
import { formatAmount, formatPhone, formatRemaining, formatUtcTime, groupByFour } from '../format.js';
import { html, raw, type Html } from '../html.js';
import { LANGUAGES, type Lang, type MessageKey, type Messages, type Translate } from '../i18n/index.js';
import { document } from '../layout.js';

/**
 * The hosted payment page, rendered from the same data as `GET /api/pay/{id}`. Pure: the route
 * loads the order, draws the QR codes and passes the clock's time; this only lays it out.
 */

/** How the customer pays, which decides the instructions and the order of the details. */
export type PayKind =
  | 'sbp' | 'card' | 'mobile' | 'upi' | 'account' | 'iban' | 'havale' | 'phone' | 'wallet'
  | 'bankApp' | 'counterparty' | 'nationalQr';

export function payKind(method: string, rail: string | null): PayKind | null {
  if (method === 'BankApp') return 'bankApp';
  if (method === 'Counterparty') return 'counterparty';
  if (method === 'NationalQr') return 'nationalQr';
  if (method === 'MobileCommerce') return 'mobile';
  switch (rail) {
    case 'Sbp': return 'sbp';
    case 'C2c': case 'CardSchemeA': case 'CardSchemeB': return 'card';
    case 'Upi': return 'upi';
    case 'Account': return 'account';
    case 'Iban': return 'iban';
    case 'Havale': return 'havale';
    case 'Phone': return 'phone';
    case 'WalletCombo': return 'wallet';
    default: return null;
  }
}

/** Title and steps per kind; the shared "send exactly" and "come back" steps follow where they apply. */
const STEPS: Record<PayKind, { title: MessageKey; steps: MessageKey[] }> = {
  sbp: { title: 'titleSbp', steps: ['sbp1', 'sbp2', 'stepExact', 'stepReturn'] },
  card: { title: 'titleCard', steps: ['card1', 'card2', 'stepExact', 'stepReturn'] },
  mobile: { title: 'titleMobile', steps: ['mobile1', 'mobile2', 'stepExact', 'stepReturn'] },
  upi: { title: 'titleUpi', steps: ['upi1', 'upi2', 'upi3'] },
  account: { title: 'titleAccount', steps: ['account1', 'account2', 'stepExact', 'stepReturn'] },
  iban: { title: 'titleIban', steps: ['iban1', 'iban2', 'stepExact', 'stepReturn'] },
  havale: { title: 'titleHavale', steps: ['havale1', 'havale2', 'stepExact', 'stepReturn'] },
  phone: { title: 'titlePhone', steps: ['phone1', 'phone2', 'stepExact', 'stepReturn'] },
  wallet: { title: 'titleWallet', steps: ['wallet1', 'wallet2', 'stepExact', 'stepReturn'] },
  bankApp: { title: 'titleBankApp', steps: ['bankApp1', 'bankApp2', 'stepReturn'] },
  counterparty: { title: 'titleCounterparty', steps: ['counterparty1', 'counterparty2', 'stepReturn'] },
  nationalQr: { title: 'titleNationalQr', steps: ['nationalQr1', 'nationalQr2', 'stepReturn'] },
};

/** Details in the order the customer types them: where to send first, whom to check after. */
const DETAIL_ORDER = [
  ['phone', 'fieldPhone'],
  ['card', 'fieldCard'],
  ['account', 'fieldAccount'],
  ['iban', 'fieldIban'],
  ['upiId', 'fieldUpiId'],
  ['holder', 'fieldHolder'],
  ['bank', 'fieldBank'],
] as const;

export interface PayPageInput {
  page: PayPage;
  lang: Lang;
  t: Translate;
  now: number;
  /** Inline SVG of the QR code (UPI link, or the provider's link for methods without rails). */
  qrSvg: string | null;
  /** Why the reference the customer just sent from this page was not stored: its rail's rule, a paid order, anything else. */
  referenceError: ReferenceError | null;
  /** What the customer typed, shown again with the reason. */
  referenceValue: string | null;
}

export type ReferenceError = 'invalid' | 'paid' | 'refused';

type View = 'open' | 'payed' | 'completed' | 'expired' | 'cancelled' | 'dispute';

export function viewOf(p: PayPage): View {
  switch (p.status) {
    case 'Created': return 'open';
    case 'Payed': return 'payed';
    case 'Completed': return 'completed';
    case 'Dispute': return 'dispute';
    default: return p.subStatus === 'Expired' ? 'expired' : p.status === 'Canceled' ? 'cancelled' : 'open';
  }
}

/**
 * The `upi://pay` link every UPI app understands: payee address and name, amount, currency, the
 * note the app shows (`tn`: the merchant's orderRef, else the order id) and the transaction
 * reference (`tr`: the order id). The QR code and the "pay in a UPI app" button carry this one link.
 */
export function upiLink(p: { upiId: string; holder: string | null; amount: string; note: string; reference: string }): string {
  // UPI apps read the payee address with its '@' as is (NPCI's own examples); the rest is encoded.
  const q = [`pa=${encodeURIComponent(p.upiId).replace(/%40/g, '@')}`];
  if (p.holder) q.push(`pn=${encodeURIComponent(p.holder)}`);
  q.push(`am=${p.amount}`, 'cu=INR', `tn=${encodeURIComponent(p.note)}`, `tr=${encodeURIComponent(p.reference)}`);
  return `upi://pay?${q.join('&')}`;
}

/** The UPI link of an open Upi order's page, or null (another rail, no UPI id, or closed). */
export function upiLinkOf(p: PayPage): string | null {
  if (viewOf(p) !== 'open' || payKind(p.method, p.rail) !== 'upi' || !p.payment.upiId) return null;
  return upiLink({ upiId: p.payment.upiId, holder: p.payment.holder, amount: p.amount, note: p.orderRef ?? p.id, reference: p.id });
}

/** Seconds before a completed page leads on to the shop, and a cancelled one to its fail page. */
export const SUCCESS_REDIRECT_S = 5;
export const FAIL_REDIRECT_S = 10;
/**
 * Without JavaScript a page that follows the order reloads itself: an open page every 45 s, since
 * a payment reference may be typed there on every rail and a reload loses it; a paid page, which
 * has no form, every 15 s.
 */
export const NOSCRIPT_REFRESH_S = 15;
export const NOSCRIPT_REFRESH_FORM_S = 45;

export function renderPayPage(input: PayPageInput): Html {
  const { page: p, lang, t, now } = input;
  const merchant = p.merchant.displayName ?? '';
  const view = viewOf(p);
  const amountText = formatAmount(lang, p.amount, p.currency);
  const kind = payKind(p.method, p.rail);
  const self = `/pay/${p.id}?lang=${lang}`;

  // Without JavaScript an open page reloads itself to follow the order. The move on to the shop
  // after success or cancellation is the script's (a timed meta refresh fails WCAG 2.2.1); the
  // button is there either way.
  let head: Html | null = null;
  if (view === 'open' || view === 'payed') {
    const every = view === 'open' ? NOSCRIPT_REFRESH_FORM_S : NOSCRIPT_REFRESH_S;
    head = html`<noscript><meta http-equiv="refresh" content="${String(every)}"></noscript>`;
  }
  // A page answering the customer's reference with a reason stays put: they are correcting it.
  const redirect = input.referenceError ? null : view === 'completed' ? p.successUrl : view === 'cancelled' ? p.failUrl : null;
  const redirectAfter = view === 'completed' ? SUCCESS_REDIRECT_S : FAIL_REDIRECT_S;

  const body = html`<main class="pay ${view}">
${p.sandbox && html`<p class="sandbox" role="note">${t('sandboxBanner')}</p>`}
<header class="summary${view === 'open' ? '' : ' muted'}">
<h1 class="merchant">${t('payTo', { merchant })}</h1>
${p.description && html`<p class="description"><span class="what">${t('paymentFor')}:</span> <span id="description" dir="auto">${p.description}</span></p>`}
<p class="label">${view === 'open' ? t('amountToPay') : t('fieldAmount')}</p>
<p class="amount" id="amount">${amountText}</p>
<p class="currency"><span class="mono" id="exact-amount">${p.amount} ${p.currency}</span>${view === 'open' && html` · ${t('payExactly')}`}</p>
${view === 'open' && timer(p, lang, t, now)}
</header>
${view === 'open' ? openBody(input, kind, amountText, self) : closedBody(input, view, self)}
${view === 'open' && orderIdBlock(p, t)}
<p class="back">${view === 'open' && p.backUrl && html`<a href="${p.backUrl}">${t('backToShop')}</a>`}</p>
${languageSwitcher(`/pay/${p.id}`, lang, t)}
</main>`;

  return document({
    lang,
    title: t('pageTitle', { merchant }),
    styles: ['pay.css'],
    scripts: ['pay.js'],
    head,
    data: {
      order: p.id,
      status: p.status,
      view,
      expires: p.expiresAt,
      // The countdown runs from the server's clock, not the customer's, which may be off by minutes.
      remaining: String(Math.max(0, new Date(p.expiresAt).getTime() - now)),
      copied: t('copied'),
      'time-up': t('timeUp'),
      redirect,
      'redirect-after': redirect ? String(redirectAfter) : null,
    },
    body,
  });
}

function timer(p: PayPage, lang: Lang, t: Translate, now: number): Html {
  const expires = new Date(p.expiresAt);
  const [before, after] = t('payBefore').split('{time}');
  return html`<p class="timer"><span>${t('timeLeft')}</span> <strong class="countdown" id="countdown" role="timer">${formatRemaining(expires.getTime() - now)}</strong>
<span class="deadline">${before}<time id="deadline" datetime="${p.expiresAt}">${formatUtcTime(lang, expires)}</time>${after}</span></p>`;
}

function openBody(input: PayPageInput, kind: PayKind | null, amountText: string, self: string): Html {
  const { page: p, t } = input;
  const railless = kind === 'bankApp' || kind === 'counterparty' || kind === 'nationalQr';
  const rows = DETAIL_ORDER.filter(([k]) => p.payment[k] !== null).map(([k, label]) => detailRow(k, t(label), p.payment[k]!, t));
  const steps = kind ? STEPS[kind] : null;
  const details = rows.length > 0 && html`<section class="details" aria-labelledby="details-h">
<h2 id="details-h">${t('paymentDetails')}</h2>
<dl>
${detailRow('amount', t('fieldAmount'), p.amount, t)}${rows}</dl>
</section>`;
  const upi = upiLinkOf(p);
  const figure = input.qrSvg && html`<figure class="qr">${raw(input.qrSvg)}<figcaption>${kind === 'upi' ? t('qrUpiLabel', { amount: amountText }) : t('scanWithPhone')}</figcaption></figure>`;
  // For UPI the button that opens the customer's UPI app on this phone sits beside the QR code
  // that a second device scans; both carry the same link.
  const qr = upi
    ? html`<section class="upi-pay" aria-label="${t('titleUpi')}">
<div class="upi-app"><a class="button" id="upi-link" href="${upi}">${t('upiOpenApp')}</a><p class="small" id="upi-link-help">${t('upiOpenAppHelp')}</p></div>
${figure}
</section>`
    : figure;
  const cta = railless && p.payment.url && html`<p class="cta"><a class="button" id="pay-link" href="${p.payment.url}">${t('openPayment')}</a></p>`;
  const howTo = steps && html`<section class="steps" aria-labelledby="steps-h">
<h2 id="steps-h">${t('howToPay')}: ${t(steps.title)}</h2>
<ol>${steps.steps.map((s) => html`<li>${t(s, { amount: amountText })}</li>`)}</ol>
</section>`;
  // Without rails the provider's link is the way to pay, so it comes first; with rails the steps
  // say what to do with the details that follow them.
  return html`${railless ? html`${cta}${qr}${howTo}` : html`${howTo}${qr}${details}`}
${referenceSection(input, 'open', self)}
<p class="live" id="live" role="status">${t('liveNote')}</p>`;
}

function detailRow(key: string, label: string, value: string, t: Translate): Html {
  const shown = key === 'card' || key === 'iban' ? groupByFour(value) : key === 'phone' ? formatPhone(value) : value;
  return html`<div class="row" id="detail-${key}"><dt>${label}</dt><dd><span class="value">${shown}</span>${copyButton(value, label, t)}</dd></div>
`;
}

/** Shown only when the script can copy; without it the value is selected with one tap (user-select: all). */
function copyButton(value: string, label: string, t: Translate): Html {
  return html`<button type="button" class="copy" data-copy="${value}" aria-label="${`${t('copy')}: ${label}`}" hidden>${t('copy')}</button>`;
}

/** The order id as text the customer can quote to the shop or support, with its copy button. */
function orderIdBlock(p: PayPage, t: Translate): Html {
  return html`<section class="order-id" aria-label="${t('orderIdLabel')}">
<dl><div class="row"><dt>${t('orderIdLabel')}</dt><dd><span class="value" id="order-id">${p.id}</span>${copyButton(p.id, t('orderIdLabel'), t)}</dd></div></dl>
<p class="small">${t('orderIdHelp')}</p>
</section>`;
}

/** A message with one value in it, the value set in monospace (it is compared with the bank's receipt) and kept whole where it fits. */
function withValue(message: string, value: string): Html {
  const at = message.indexOf('{ref}');
  if (at < 0) return html`${message} <span class="mono whole">${value}</span>`;
  return html`${message.slice(0, at)}<span class="mono whole">${value}</span>${message.slice(at + '{ref}'.length)}`;
}

/**
 * The payment's reference: the one on record, and the form that reports one while the order is
 * unpaid (open, expired, cancelled). A paid order's page shows the reference it was paid with, and
 * why a new one was refused when one was sent from a page opened before.
 */
function referenceSection(input: PayPageInput, view: View, self: string): Html | null {
  const { page: p, t } = input;
  const utr = payerReferenceRule(p.rail) === 'utr';
  const takes = view === 'open' || view === 'expired' || view === 'cancelled';
  const error =
    input.referenceError === 'invalid' ? t(utr ? 'utrInvalid' : 'refInvalid')
    : input.referenceError === 'paid' ? t('refPaid')
    : input.referenceError === 'refused' ? t('refRefused')
    : null;
  if (!takes && !p.payerReference && !error) return null;
  const onRecord = p.payerReference && html`<p class="reported" id="utr-reported" role="status"><span>${withValue(t(utr ? 'utrOnRecord' : 'refOnRecord'), p.payerReference)}</span> <span class="note">${t(takes ? 'refReplaces' : 'refLocked')}</span></p>`;
  const title = view === 'open' ? t('utrTitle') : takes ? t('refLateTitle') : t(utr ? 'utrLabel' : 'refLabel');
  const intro = view === 'open' ? (utr ? null : t('refOpenIntro')) : takes ? t('refLateIntro') : null;
  const errorLine = error && html`<p class="error" id="utr-error" role="alert">${error}</p>`;
  // The browser's own pattern check would answer in the browser's language, and a value it cut
  // to a maximum length would be stored wrong: the server checks it and answers in the page's.
  const form = takes && html`<form method="post" action="${self}" novalidate>
<label for="payerReference">${t(utr ? 'utrLabel' : 'refLabel')}</label>
<p class="hint" id="utr-hint">${t(utr ? 'utrHelp' : 'refHelp')}</p>
${errorLine}
<div class="inline"><input id="payerReference" name="payerReference" class="mono" required${utr ? raw(' inputmode="numeric"') : ''} autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="utr-hint${error ? ' utr-error' : ''}"${error ? raw(' aria-invalid="true"') : ''} value="${input.referenceValue ?? ''}">
<button type="submit">${t(utr ? 'utrSubmit' : 'refSubmit')}</button></div>
</form>`;
  return html`<section class="utr" aria-labelledby="utr-h">
<h2 id="utr-h">${title}</h2>
${intro && html`<p class="intro">${intro}</p>`}
${!form && errorLine}
${onRecord}
${form}
</section>`;
}

/** State icons drawn as SVG, so they never depend on the customer's fonts having a glyph. */
const svgIcon = (d: string) => `<svg viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"><path d="${d}"/></svg>`;
export const ICONS: Record<Exclude<View, 'open'>, string> = {
  completed: svgIcon('M5 12.5l4.5 4.5L19 7.5'),
  payed: svgIcon('M12 7v5l3 2'),
  dispute: svgIcon('M12 7v6M12 17h.01'),
  expired: svgIcon('M12 7v5l3 2M12 21a9 9 0 1 1 0-18 9 9 0 0 1 0 18z'),
  cancelled: svgIcon('M7 7l10 10M17 7L7 17'),
};

const STATE_TEXT: Record<Exclude<View, 'open'>, { title: MessageKey; text: MessageKey }> = {
  payed: { title: 'payedTitle', text: 'payedText' },
  completed: { title: 'completedTitle', text: 'completedText' },
  expired: { title: 'expiredTitle', text: 'expiredText' },
  cancelled: { title: 'cancelledTitle', text: 'cancelledText' },
  dispute: { title: 'disputeTitle', text: 'disputeText' },
};

function closedBody(input: PayPageInput, view: Exclude<View, 'open'>, self: string): Html {
  const { page: p, t } = input;
  const s = STATE_TEXT[view];
  const to = view === 'completed' ? p.successUrl : view === 'expired' || view === 'cancelled' ? p.failUrl : null;
  return html`<section class="state state-${view}" id="state" role="status">
<div class="icon" aria-hidden="true">${raw(ICONS[view])}</div>
<h2>${t(s.title)}</h2>
<p>${t(s.text, { merchant: p.merchant.displayName ?? '' })}</p>
${redirectNote(view, p, t)}
${to ? html`<p class="cta"><a class="button" id="to-shop" href="${to}">${t('backToShop')}</a></p>` : view !== 'payed' && html`<p class="small">${t('closePage')}</p>`}
</section>
${orderIdBlock(p, t)}
${referenceSection(input, view, self)}`;
}

/** "Taking you back to the shop": only true when the script will do it, so the script shows it. */
function redirectNote(view: View, p: PayPage, t: Translate): Html | null {
  if (view !== 'completed' || !p.successUrl) return null;
  return html`<p class="small" id="redirecting" hidden>${t('redirecting')}</p>`;
}

/** Links to the page at `path` in every other language (the payment page, a payment link's page). */
export function languageSwitcher(path: string, current: Lang, t: Translate): Html {
  return html`<nav class="langs" aria-label="${t('language')}"><ul>${(Object.keys(LANGUAGES) as Lang[]).map((l) => {
    const name = (LANGUAGES[l] as Messages).languageName;
    return l === current
      ? html`<li><span aria-current="true" lang="${l}">${name}</span></li>`
      : html`<li><a href="${`${path}?lang=${l}`}" lang="${l}" hreflang="${l}">${name}</a></li>`;
  })}</ul></nav>`;
}

export function renderNotFound(lang: Lang, t: Translate): Html {
  return document({
    lang,
    title: t('notFoundTitle'),
    styles: ['pay.css'],
    body: html`<main class="pay"><section class="state state-cancelled"><div class="icon" aria-hidden="true">${raw(ICONS.cancelled)}</div><h1>${t('notFoundTitle')}</h1><p>${t('notFoundText')}</p></section></main>`,
  });
}
