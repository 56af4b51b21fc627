import { DESTINATION_KIND_LABEL, DESTINATION_KINDS, ibanForPeople, WITHDRAWAL_STATUS_LABEL, type DestinationInput, type DestinationKind, type WithdrawalStatus } from '../../domain/payouts.js';
import type { DestinationView } from '../../services/payoutDestinations.js';
import type { FundsView, WithdrawalView } from '../../services/withdrawalRequests.js';
import { html, type Html } from '../html.js';
import { cabinetPage, copyable, csrfInput, listTable, money, utc } from './layout.js';
import type { CabinetRequest } from './session.js';

/**
 * The withdrawals page: what may be asked for (the live balance less open requests), the request
 * form, the requests with their statuses, and the payout destinations an owner saves and removes.
 * Only an owner gets the forms (web spec); everyone reads.
 */

export interface WithdrawalFormValues {
  amountUsd: string;
  destinationId: string;
}
export const EMPTY_WITHDRAWAL_FORM: WithdrawalFormValues = { amountUsd: '', destinationId: '' };

/** The destination form's values as typed: the domain's input. */
export type DestinationFormValues = DestinationInput;
export const EMPTY_DESTINATION_FORM: DestinationFormValues = { kind: 'usdt-trc20', label: '', address: '', iban: '', account: '', holder: '', bank: '' };

/** A refusal shown on the form it concerns, with the form as typed. */
export interface FormProblem {
  form: 'withdrawal' | 'destination';
  text: string;
}

export interface WithdrawalsPage {
  funds: FundsView;
  requests: readonly WithdrawalView[];
  destinations: readonly DestinationView[];
  twoFactorOn: boolean;
  withdrawal: WithdrawalFormValues;
  destination: DestinationFormValues;
  problem: FormProblem | null;
  notice: string | null;
}

export const mayMoveMoney = (c: CabinetRequest) => c.user.role === 'owner';

const STATUS_TONE: Readonly<Record<WithdrawalStatus, string>> = { requested: 'warn', paid: 'ok', rejected: 'bad' };
export const withdrawalBadge = (s: WithdrawalStatus) => html`<span class="badge ${STATUS_TONE[s]}">${WITHDRAWAL_STATUS_LABEL[s]}</span>`;

/** Where the money goes: the label, the kind, and the address or account in full (copyable). */
export function destinationCell(d: DestinationView): Html {
  const kind = DESTINATION_KIND_LABEL[d.kind as DestinationKind] ?? d.kind;
  if (d.kind === 'bank') {
    const number = d.iban ? html`IBAN ${copyable(ibanForPeople(d.iban), 'IBAN')}` : html`Account ${copyable(d.account ?? '', 'account number')}`;
    return html`<strong>${d.label}</strong><br><span class="hint">${kind}</span><br>${number}<br>${d.holder}, ${d.bank}`;
  }
  return html`<strong>${d.label}</strong><br><span class="hint">${kind}</span><br>${copyable(d.address ?? '', 'address')}`;
}

/** The note of a request: the transfer's reference once paid, the operator's reason once rejected. */
function outcomeCell(w: WithdrawalView): Html | string {
  if (w.status === 'paid') return html`Reference ${copyable(w.reference ?? '', 'reference')}<br><span class="hint">paid ${utc(w.decidedAt)}</span>`;
  if (w.status === 'rejected') return html`${w.reason}<br><span class="hint">rejected ${utc(w.decidedAt)}</span>`;
  return html`<span class="hint">Held until we pay it</span>`;
}

/** The requests, newest first: the balance page shows the latest, this page all it lists. */
export function requestsTable(requests: readonly WithdrawalView[], caption: string): Html {
  return listTable<WithdrawalView>(caption, [
    { label: 'Requested (UTC)', cell: (w) => utc(w.createdAt) },
    { label: 'Amount', cell: (w) => money(w.amountUsd, 'USD'), num: true },
    { label: 'To', cell: (w) => destinationCell(w.destination) },
    { label: 'Status', cell: (w) => withdrawalBadge(w.status as WithdrawalStatus) },
    { label: 'Outcome', cell: outcomeCell },
    { label: 'Request', cell: (w) => html`<span class="mono id">${w.id}</span>` },
  ], requests, { wide: true, id: 'withdrawal-requests' });
}

/** The three figures: available (what may be asked for), held (open requests) and the live balance they add up to. */
export function fundsCards(f: FundsView): Html {
  return html`<div class="grid three" id="funds">
<section class="card current" aria-labelledby="available-h"><h2 id="available-h">Available to withdraw</h2>
<p class="figure" id="available">${money(f.available, 'USD')}</p>
<p class="hint">The live balance less what open requests hold.</p></section>
<section class="card" aria-labelledby="held-h"><h2 id="held-h">Held by open requests</h2>
<p class="figure" id="held">${money(f.held, 'USD')}</p>
<p class="hint">Set aside at once when you ask; it leaves the balance when we pay, and comes back if we reject.</p></section>
<section class="card" aria-labelledby="live-total-h"><h2 id="live-total-h">Live balance</h2>
<p class="figure" id="live">${money(f.live, 'USD')}</p>
<p class="hint">Available plus held: what the ledger holds of live money.</p></section>
</div>`;
}

function withdrawalForm(c: CabinetRequest, p: WithdrawalsPage): Html {
  const error = p.problem?.form === 'withdrawal' ? p.problem.text : null;
  if (p.destinations.length === 0) {
    return html`<section class="card" aria-labelledby="ask-h" id="new-withdrawal"><h2 id="ask-h">Request a withdrawal</h2>
<p>Save a <a href="#new-destination">payout destination</a> first: a USDT address or a bank account we pay to.</p></section>`;
  }
  return html`<form class="card stack" method="post" action="/cabinet/withdrawals" id="new-withdrawal" aria-labelledby="ask-h"${error ? html` aria-describedby="withdrawal-error"` : ''}>${csrfInput(c.csrf)}
<h2 id="ask-h">Request a withdrawal</h2>
${error ? html`<p class="notice bad" role="alert" id="withdrawal-error"><strong>Nothing was requested.</strong> ${error}</p>` : ''}
<label>Amount, USD <span class="hint">Up to the available balance, ${money(p.funds.available, 'USD')}; at most 2 decimals.</span>
<input type="text" name="amountUsd" inputmode="decimal" required maxlength="20" value="${p.withdrawal.amountUsd}" placeholder="250.00" autocomplete="off"></label>
<label>Pay to <select name="destinationId" required>${p.destinations.map((d) => html`<option value="${d.id}"${d.id === p.withdrawal.destinationId ? html` selected` : ''}>${d.label} (${DESTINATION_KIND_LABEL[d.kind as DestinationKind] ?? d.kind})</option>`)}</select></label>
${p.twoFactorOn
  ? html`<label>Two-factor code <span class="hint">The current code from your authenticator app.</span>
<input type="text" class="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="40" value=""></label>`
  : html`<p class="hint">Turn on <a href="/cabinet/account">two-factor sign-in</a> and every request asks for its code as well.</p>`}
<p class="hint">The amount is held at once. We pay it to the destination and mark it paid with the transfer's reference, or reject it with a reason; each step comes by mail to the owners.</p>
<div><button type="submit">Request withdrawal</button></div>
</form>`;
}

const kindChecked = (v: DestinationFormValues, k: string) => (v.kind === k ? html` checked` : '');

function destinationForm(c: CabinetRequest, p: WithdrawalsPage): Html {
  const v = p.destination;
  const error = p.problem?.form === 'destination' ? p.problem.text : null;
  return html`<form class="card stack" method="post" action="/cabinet/payout-destinations" id="new-destination" aria-labelledby="dest-h"${error ? html` aria-describedby="destination-error"` : ''}>${csrfInput(c.csrf)}
<h2 id="dest-h">Add a payout destination</h2>
${error ? html`<p class="notice bad" role="alert" id="destination-error"><strong>Nothing was saved.</strong> ${error}</p>` : ''}
<fieldset class="kinds"><legend>Kind</legend>
${DESTINATION_KINDS.map((k) => html`<label><input type="radio" name="kind" value="${k}"${kindChecked(v, k)}> ${DESTINATION_KIND_LABEL[k]}</label>`)}
</fieldset>
<label>Label <span class="hint">Optional: how you will know it, such as “Treasury wallet”.</span>
<input type="text" name="label" maxlength="60" value="${v.label}" autocomplete="off"></label>
<fieldset class="text-fields" data-kinds="usdt-trc20 usdt-erc20"><legend>USDT address</legend>
<label>Address <span class="hint">Tron: 34 characters starting with T. Ethereum: 0x and 40 characters, in the mixed case your wallet shows. Checked by its checksum.</span>
<input type="text" name="address" maxlength="100" value="${v.address}" autocomplete="off" spellcheck="false"></label>
</fieldset>
<fieldset class="text-fields" data-kinds="bank"><legend>Bank account</legend>
<label>IBAN <span class="hint">Where the bank has one; checked by its check digits.</span>
<input type="text" name="iban" maxlength="50" value="${v.iban}" autocomplete="off" spellcheck="false"></label>
<label>Or account number <span class="hint">Where there is no IBAN.</span>
<input type="text" name="account" maxlength="50" value="${v.account}" autocomplete="off" spellcheck="false"></label>
<label>Account holder <input type="text" name="holder" maxlength="100" value="${v.holder}" autocomplete="off"></label>
<label>Bank <span class="hint">Its name, and the branch or SWIFT/BIC code where it helps.</span>
<input type="text" name="bank" maxlength="100" value="${v.bank}" autocomplete="off"></label>
</fieldset>
<div><button type="submit">Save destination</button></div>
</form>`;
}

function destinationsList(c: CabinetRequest, p: WithdrawalsPage): Html {
  if (p.destinations.length === 0) return html`<p class="muted">No payout destination yet.</p>`;
  return listTable<DestinationView>('Payout destinations, newest first', [
    { label: 'Destination', cell: destinationCell },
    { label: 'Saved (UTC)', cell: (d) => utc(d.createdAt) },
    {
      label: 'Action',
      cell: (d) => (mayMoveMoney(c)
        ? html`<form class="inline" method="post" action="/cabinet/payout-destinations/${d.id}/remove">${csrfInput(c.csrf)}<button type="submit" class="danger">Remove<span class="skip"> ${d.label}</span></button></form>`
        : ''),
    },
  ], p.destinations, { id: 'destinations' });
}

export function withdrawalsPage(c: CabinetRequest, p: WithdrawalsPage): Html {
  const owner = mayMoveMoney(c);
  return cabinetPage(
    c,
    'Withdrawals',
    'balance',
    html`<h1>Withdrawals</h1>
${p.notice ? html`<p class="notice ok" role="status">${p.notice}</p>` : ''}
${fundsCards(p.funds)}
${c.merchant.status !== 'Active' ? html`<p class="notice info">Withdrawals are paid from live money, which live orders earn once the account is approved. Sandbox money is never withdrawable.</p>` : ''}
${owner ? withdrawalForm(c, p) : html`<p class="card">Only an owner of ${c.merchant.name} asks for withdrawals and changes where they are paid.</p>`}
<section class="card" aria-labelledby="requests-h"><h2 id="requests-h">Requests</h2>
${p.requests.length === 0 ? html`<p class="muted">No withdrawal requested yet.</p>` : requestsTable(p.requests, 'Withdrawal requests, newest first')}
</section>
<section class="card" aria-labelledby="destinations-h" id="payout-destinations"><h2 id="destinations-h">Payout destinations</h2>
${destinationsList(c, p)}
</section>
${owner ? destinationForm(c, p) : ''}`,
  );
}
