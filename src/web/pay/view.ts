import type { PayPage } from '../../services/payPage.js';
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
  /** Outcome of a UTR the customer just sent from this page. */
  utrError: 'invalid' | 'refused' | null;
  utrValue: string | null;
}

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

/** The `upi://pay` link every UPI app understands: payee address and name, amount, currency. */
export function upiLink(upiId: string, holder: string | null, amount: string): string {
  // UPI apps read the payee address with its '@' as is (NPCI's own examples); the rest is encoded.
  const q = [`pa=${encodeURIComponent(upiId).replace(/%40/g, '@')}`];
  if (holder) q.push(`pn=${encodeURIComponent(holder)}`);
  q.push(`am=${amount}`, 'cu=INR');
  return `upi://pay?${q.join('&')}`;
}

/** Seconds before a completed page leads on to the shop, and a cancelled one to its fail page. */
export const SUCCESS_REDIRECT_S = 5;
export const FAIL_REDIRECT_S = 10;
/** Without JavaScript an open page reloads itself this often; a UPI page slower, since the UTR is typed there. */
export const NOSCRIPT_REFRESH_S = 15;
export const NOSCRIPT_REFRESH_UPI_S = 45;

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
    const every = kind === 'upi' ? NOSCRIPT_REFRESH_UPI_S : NOSCRIPT_REFRESH_S;
    head = html`<noscript><meta http-equiv="refresh" content="${String(every)}"></noscript>`;
  }
  const redirect = view === 'completed' ? p.successUrl : view === 'cancelled' ? p.failUrl : null;
  const redirectAfter = view === 'completed' ? SUCCESS_REDIRECT_S : FAIL_REDIRECT_S;

  const body = html`<main class="pay ${view}">
${p.sandbox && html`<p class="sandbox" role="note">${t('sandboxBanner')}</p>`}
<header class="summary${view === 'open' ? '' : ' muted'}">
<h1 class="merchant">${t('payTo', { merchant })}</h1>
<p class="label">${view === 'open' ? t('amountToPay') : t('fieldAmount')}</p>
<p class="amount" id="amount">${amountText}</p>
<p class="currency">${p.amount} ${p.currency}${view === 'open' && html` · ${t('payExactly')}`}</p>
${view === 'open' && timer(p, lang, t, now)}
</header>
${view === 'open' ? openBody(input, kind, amountText, self) : closedBody(input, view, self)}
<p class="back">${view === 'open' && p.backUrl && html`<a href="${p.backUrl}">${t('backToShop')}</a>`}</p>
${languageSwitcher(p.id, lang, t)}
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
  const qr = input.qrSvg && html`<figure class="qr">${raw(input.qrSvg)}<figcaption>${kind === 'upi' ? t('qrUpiLabel', { amount: amountText }) : t('scanWithPhone')}</figcaption></figure>`;
  const cta = railless && p.payment.url && html`<p class="cta"><a class="button" id="pay-link" href="${p.payment.url}">${t('openPayment')}</a></p>`;
  const howTo = steps && html`<section class="steps" aria-labelledby="steps-h">
<h2 id="steps-h">${t('howToPay')}: ${t(steps.title)}</h2>
<ol>${steps.steps.map((s) => html`<li>${t(s, { amount: amountText })}</li>`)}</ol>
</section>`;
  // Without rails the provider's link is the way to pay, so it comes first; with rails the steps
  // say what to do with the details that follow them.
  return html`${railless ? html`${cta}${qr}${howTo}` : html`${howTo}${qr}${details}`}
${kind === 'upi' && utrForm(input, self)}
<p class="live" id="live" role="status">${t('liveNote')}</p>`;
}

function detailRow(key: string, label: string, value: string, t: Translate): Html {
  const shown = key === 'card' || key === 'iban' ? groupByFour(value) : key === 'phone' ? formatPhone(value) : value;
  return html`<div class="row" id="detail-${key}"><dt>${label}</dt><dd><span class="value">${shown}</span><button type="button" class="copy" data-copy="${value}" aria-label="${`${t('copy')}: ${label}`}" hidden>${t('copy')}</button></dd></div>
`;
}

function utrForm(input: PayPageInput, self: string): Html {
  const { page: p, t } = input;
  const error = input.utrError === 'invalid' ? t('utrInvalid') : input.utrError === 'refused' ? t('utrRefused') : null;
  return html`<section class="utr" aria-labelledby="utr-h">
<h2 id="utr-h">${t('utrTitle')}</h2>
${p.payerReference && html`<p class="reported" id="utr-reported" role="status">${t('utrReported', { utr: p.payerReference })}</p>`}
<form method="post" action="${self}">
<label for="payerReference">${t('utrLabel')}</label>
<p class="hint" id="utr-hint">${t('utrHelp')}</p>
${error && html`<p class="error" id="utr-error" role="alert">${error}</p>`}
<div class="inline"><input id="payerReference" name="payerReference" required maxlength="64" pattern="[A-Za-z0-9]{1,64}" autocomplete="off" spellcheck="false" aria-describedby="utr-hint${error ? ' utr-error' : ''}"${error ? raw(' aria-invalid="true"') : ''} value="${input.utrValue ?? ''}">
<button type="submit">${t('utrSubmit')}</button></div>
</form>
</section>`;
}

/** State icons drawn as SVG, so they never depend on the customer's fonts having a glyph. */
const svgIcon = (d: string) => `<svg viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"><path d="${d}"/></svg>`;
const ICONS: Record<Exclude<View, 'open'>, string> = {
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
${view === 'payed' && payKind(p.method, p.rail) === 'upi' && utrForm(input, self)}`;
}

/** "Taking you back to the shop": only true when the script will do it, so the script shows it. */
function redirectNote(view: View, p: PayPage, t: Translate): Html | null {
  if (view !== 'completed' || !p.successUrl) return null;
  return html`<p class="small" id="redirecting" hidden>${t('redirecting')}</p>`;
}

function languageSwitcher(id: string, current: Lang, t: Translate): Html {
  return html`<nav class="langs" aria-label="${t('language')}"><ul>${(Object.keys(LANGUAGES) as Lang[]).map((l) => {
    const name = (LANGUAGES[l] as Messages).languageName;
    return l === current
      ? html`<li><span aria-current="true" lang="${l}">${name}</span></li>`
      : html`<li><a href="${`/pay/${id}?lang=${l}`}" lang="${l}" hreflang="${l}">${name}</a></li>`;
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
