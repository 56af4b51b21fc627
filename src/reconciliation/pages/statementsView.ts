/**
 * Bank statements in the back office: the list (`/office/statements`, newest first, by pool and
 * account) and a statement's page (`/office/statements/{id}`) with what the file said (name,
 * SHA-256, format, accounts, period, the balances it states), the two checks made of it (balance
 * check and continuity), who uploaded it and when, and every entry with its outcome, linked to
 * the credit it made or repeats. The checks' badges and sentences are shared with the day report
 * and the home page's warning.
 */
import { html, type Html } from '../../web/html.js';
import { notice, officePage, utc, type Shell } from '../../web/office/ui.js';
import type { PoolProvider } from '../queue.js';
import type { StatementView } from '../statementImport.js';
import type { BalanceCheck, Continuity } from '../statementStore.js';
import { CREDITS_PATH } from './creditsView.js';
import { amount, list, withQuery } from './ui.js';

export const STATEMENTS_PATH = '/office/statements' as const;

/** The outcomes an entry may have, as the entries' filter offers them. */
export const ENTRY_OUTCOMES = ['new', 'duplicate', 'skipped', 'unreadable'] as const;
export type EntryOutcome = (typeof ENTRY_OUTCOMES)[number];

const OUTCOME_LABEL: Record<EntryOutcome, string> = { new: 'New', duplicate: 'Duplicate', skipped: 'Skipped', unreadable: 'Unreadable' };

/** A statement's format as people name it, with its version (`camt.053 001.08`). */
export function formatLabel(format: string, version: string | null): string {
  const name: Record<string, string> = { mt940: 'MT940', mt942: 'MT942', '1c': '1C client-bank', csv: 'CSV (Paygate columns)', 'csv-profile': 'CSV (bank profile)' };
  return `${name[format] ?? format}${version ? ` ${version}` : ''}`;
}

export interface Gap {
  from: string | null;
  to: string | null;
}

/** The missing days of a gap, as a sentence's end: "2026-01-13 to 2026-01-14", or what is known of them. */
export function gapDays(gap: Gap | null): string {
  if (!gap || (!gap.from && !gap.to)) return 'the opening balance differs from the previous closing balance';
  if (gap.from === gap.to) return `no statement for ${gap.from}`;
  return `no statement for ${gap.from ?? '?'} to ${gap.to ?? '?'}`;
}

/** The balance check as a badge, the difference beside an inconsistent one. */
export function balanceBadge(check: BalanceCheck, difference: string | null, currency: string | null): Html {
  if (check === 'consistent') return html`<span class="badge ok">consistent</span>`;
  if (check === 'inconsistent') return html`<span class="badge bad">inconsistent</span>${difference ? html` <span class="nowrap">by ${amount(difference, currency)}</span>` : ''}`;
  return html`<span class="badge">not stated</span>`;
}

/** Continuity with the account's previous statement as a badge, the missing period beside a gap. */
export function continuityBadge(continuity: Continuity, gap: Gap | null): Html {
  if (continuity === 'continuous') return html`<span class="badge ok">continuous</span>`;
  if (continuity === 'gap') return html`<span class="badge bad">gap</span> <span>${gapDays(gap)}</span>`;
  if (continuity === 'first') return html`<span class="badge">first</span>`;
  return html`<span class="badge">not stated</span>`;
}

/** The currency of a statement's balances, when its sections state one currency. */
export function balanceCurrency(s: Pick<StatementView, 'sections'>): string | null {
  const all = new Set(s.sections.flatMap((x) => [x.opening?.currency, x.closing?.currency]).filter((c): c is string => !!c));
  return all.size === 1 ? [...all][0]! : null;
}

/** The period a statement covers. */
export function period(from: string | null, to: string | null): Html {
  if (!from && !to) return html`<span class="muted">not stated</span>`;
  if (from === to) return html`<span class="nowrap">${from}</span>`;
  return html`<span class="nowrap">${from ?? '?'}</span> – <span class="nowrap">${to ?? '?'}</span>`;
}

/** Who uploaded a statement: an operator (by email where known) or the API token. */
export type Uploaders = ReadonlyMap<string, string>;
export function uploader(id: string, names: Uploaders): Html {
  if (id === 'token') return html`<span class="muted">API token</span>`;
  const email = names.get(id);
  return email ? html`<a href="/office/operators#${id}">${email}</a>` : html`<a class="mono" href="/office/operators#${id}">${id}</a>`;
}

export const statementLink = (s: { id: string; filename: string | null }) => html`<a href="${STATEMENTS_PATH}/${s.id}">${s.filename ?? s.id}</a>`;

export interface StatementFilters {
  providerId: string;
  account: string;
}

export function statementsPage(
  s: Shell,
  page: { items: StatementView[]; next: string | null },
  f: StatementFilters,
  pools: readonly PoolProvider[],
  names: Uploaders,
  o: { continued: boolean },
): Html {
  const poolName = new Map(pools.map((p) => [p.id, p.name]));
  const opt = (v: string, label: string) => html`<option value="${v}"${v === f.providerId ? html` selected` : ''}>${label}</option>`;
  const filtered = f.providerId !== '' || f.account !== '';
  return officePage(
    s,
    'Bank statements',
    STATEMENTS_PATH,
    html`<h1>Bank statements</h1>
<p class="muted">Every statement uploaded for the pools' accounts, the newest first, with the two checks made of it: whether its balances add up (opening + credits − debits = closing) and whether it continues the account's previous statement.</p>
<form class="filters" method="get" action="${STATEMENTS_PATH}" role="search" aria-label="Statements">
<div><label for="f-provider">Pool provider</label><select id="f-provider" name="providerId">${opt('', 'Any')}${pools.map((p) => opt(p.id, p.name))}</select></div>
<div><label for="f-account">Account</label><input type="text" id="f-account" name="account" value="${f.account}" maxlength="255" spellcheck="false" autocomplete="off"></div>
<div class="rc-buttons"><button type="submit" class="secondary">Show</button> <a href="${STATEMENTS_PATH}">Clear</a></div>
</form>
${page.items.length === 0
  ? html`<p class="muted empty" id="statements-empty">${filtered || o.continued ? 'No statements match these filters.' : 'No statement has been uploaded yet. Upload one on a pool\u2019s page.'}</p>`
  : list(
      'Bank statements, newest first',
      [{ label: 'Statement' }, { label: 'Pool' }, { label: 'Account' }, { label: 'Period' }, { label: 'Checks' }, { label: 'Entries', num: true }, { label: 'Uploaded' }],
      page.items.map((x) => {
        const cur = balanceCurrency(x);
        return [
          html`${statementLink(x)}<br><span class="muted">${formatLabel(x.format, x.version)}</span>${x.state === 'importing' ? html` <span class="badge warn">being recorded</span>` : ''}`,
          html`<a href="/office/pools/${x.providerId}">${poolName.get(x.providerId) ?? x.providerId}</a>`,
          html`${x.accounts.map((a, i) => html`${i ? html`<br>` : ''}<span class="mono">${a}</span>`)}`,
          period(x.periodFrom, x.periodTo),
          html`<span class="muted">Balances</span> ${balanceBadge(x.balanceCheck, x.balanceDifference, cur)}<br><span class="muted">Continuity</span> ${continuityBadge(x.continuity, x.gap)}`,
          html`${x.counts.entries}<br><span class="muted">${x.counts.credits} credit${x.counts.credits === 1 ? '' : 's'}</span>`,
          html`${utc(x.createdAt)}<div><span class="muted">by</span> ${uploader(x.uploadedBy, names)}</div>`,
        ];
      }),
      { fit: 'l', id: 'statements' },
    )}
${page.next ? html`<p class="pager"><a href="${withQuery(STATEMENTS_PATH, { providerId: f.providerId, account: f.account, before: page.next })}" rel="next">Older statements</a></p>` : ''}`,
  );
}

type StatementWithEntries = StatementView & { entries: { items: EntryView[]; hasMore: boolean; next: number | null } };
export interface EntryView {
  index: number;
  kind: string;
  account: string | null;
  amount: string | null;
  currency: string | null;
  bookingDate: string | null;
  bankReference: string | null;
  sourceRef: string | null;
  payer: string | null;
  reference: string | null;
  outcome: string;
  creditId: string | null;
  duplicateOf: string | null;
  problem: string | null;
}

function outcomeBadge(outcome: string): Html {
  const tone = outcome === 'new' ? 'ok' : outcome === 'unreadable' ? 'bad' : outcome === 'duplicate' ? 'warn' : '';
  return html`<span class="badge${tone ? ` ${tone}` : ''}">${outcome}</span>`;
}

/** What the entry became: the credit it made, the credit it repeats, or why it made none. */
function becameOf(e: EntryView): Html {
  if (e.outcome === 'duplicate' && e.duplicateOf) return html`repeats <a class="mono" href="${CREDITS_PATH}/${e.duplicateOf}">${e.duplicateOf}</a>`;
  if (e.creditId) return html`<a class="mono" href="${CREDITS_PATH}/${e.creditId}">${e.creditId}</a>`;
  if (e.outcome === 'skipped') return html`<span class="muted">none: ${e.kind === 'debit' ? 'money out' : 'not a booked credit'}</span>`;
  return html`<span class="muted">none</span>`;
}

/** The counts by outcome, each a link to the entries of that outcome. */
function outcomeNav(st: StatementWithEntries, current: EntryOutcome | null): Html {
  const c = st.counts;
  const n: Record<EntryOutcome, number> = { new: c.credits - c.duplicates, duplicate: c.duplicates, skipped: c.skipped, unreadable: c.unreadable };
  const link = (o: EntryOutcome | null, label: string, count: number) =>
    html`<li><a href="${withQuery(`${STATEMENTS_PATH}/${st.id}`, { outcome: o })}#entries-h"${o === current ? html` aria-current="true"` : ''}>${o === current ? html`<strong>${label}</strong>` : label}</a> <span class="count">${count}</span></li>`;
  return html`<nav aria-label="Entries by outcome"><ul class="plain rc-links">${link(null, 'All', c.entries)}${ENTRY_OUTCOMES.map((o) => link(o, OUTCOME_LABEL[o], n[o]))}</ul></nav>`;
}

/** What the checks found, in words, with what usually explains it. */
function findings(st: StatementView, cur: string | null): Html {
  const out: Html[] = [];
  if (st.balanceCheck === 'inconsistent') {
    out.push(html`<p><strong>The balances do not add up</strong>${st.balanceDifference ? html`: opening + credits − debits differs from the closing balance by ${amount(st.balanceDifference, cur)}` : ''}. An entry the file left out${st.counts.unreadable ? html`, or one of its ${st.counts.unreadable} unreadable entries,` : ''} usually explains it.</p>`);
  }
  if (st.continuity === 'gap') {
    const prev = st.sections.find((x) => x.continuity === 'gap')?.gap;
    out.push(html`<p><strong>Gap</strong>: ${gapDays(st.gap)}${prev ? html` since <a href="${STATEMENTS_PATH}/${prev.previousStatementId}">the account's previous statement</a>, which closed at ${amount(prev.previousClosing, cur)}` : ''}. Upload the missing statement, so no money goes unseen.</p>`);
  }
  return out.length ? html`<div class="notice warn" role="note" id="statement-findings">${out}</div>` : html``;
}

function sectionsList(st: StatementView): Html {
  return list(
    `Balances of ${st.filename ?? st.id}, per account`,
    [
      { label: 'Account' },
      { label: 'Period' },
      { label: 'Opening', num: true },
      { label: 'Credits', num: true },
      { label: 'Debits', num: true },
      { label: 'Closing', num: true },
      { label: 'Balance check' },
      { label: 'Continuity' },
    ],
    st.sections.map((x) => {
      const cur = x.closing?.currency ?? x.opening?.currency ?? null;
      const bal = (b: typeof x.opening) => (b ? html`${amount(b.amount, b.currency ?? cur)}${b.date ? html`<br><span class="muted">${b.date}</span>` : ''}` : html`<span class="muted">not stated</span>`);
      return [
        html`<span class="mono">${x.account}</span>`,
        period(x.from, x.to),
        bal(x.opening),
        amount(x.credits, cur),
        amount(x.debits, cur),
        bal(x.closing),
        balanceBadge(x.balanceCheck, x.difference, cur),
        html`${continuityBadge(x.continuity, x.gap)}${x.gap ? html`<br><a href="${STATEMENTS_PATH}/${x.gap.previousStatementId}">Previous statement</a>` : ''}`,
      ];
    }),
    { fit: 'l', id: 'sections' },
  );
}

function entriesList(st: StatementWithEntries): Html {
  return list(
    `Entries of ${st.filename ?? st.id}`,
    [{ label: 'Entry' }, { label: 'Amount', num: true }, { label: 'Booked' }, { label: 'Account' }, { label: 'Bank reference' }, { label: 'Outcome' }, { label: 'Credit' }, { label: 'Problem' }],
    st.entries.items.map((e) => [
      html`<span id="entry-${e.index}">#${e.index}</span> <span class="muted">${e.kind}</span>`,
      amount(e.amount, e.currency),
      e.bookingDate ? html`<span class="nowrap">${e.bookingDate}</span>` : html`<span class="muted">—</span>`,
      e.account ? html`<span class="mono">${e.account}</span>` : html`<span class="muted">—</span>`,
      e.bankReference ? html`<code>${e.bankReference}</code>` : html`<span class="muted">—</span>`,
      outcomeBadge(e.outcome),
      becameOf(e),
      e.problem ? html`<span class="rc-wrap">${e.problem}</span>` : html`<span class="muted">—</span>`,
    ]),
    { fit: 'l', id: 'entries' },
  );
}

export function statementPage(s: Shell, st: StatementWithEntries, pool: PoolProvider | null, names: Uploaders, o: { outcome: EntryOutcome | null; after: number }): Html {
  const cur = balanceCurrency(st);
  const title = st.filename ?? st.id;
  const here = `${STATEMENTS_PATH}/${st.id}`;
  return officePage(
    s,
    `Statement ${title}`,
    STATEMENTS_PATH,
    html`<p><a href="${withQuery(STATEMENTS_PATH, { providerId: st.providerId })}">← Statements${pool ? ` of ${pool.name}` : ''}</a></p>
<h1 class="rc-wrap">Statement ${title}</h1>
${st.state === 'importing' ? notice('This statement is still being recorded: its entries and checks are not final yet.') : ''}
${findings(st, cur)}
<section class="card" aria-labelledby="file-h"><h2 id="file-h">The file</h2>
<dl class="fields">
<dt>Balances</dt><dd id="balance-check">${balanceBadge(st.balanceCheck, st.balanceDifference, cur)}</dd>
<dt>Continuity</dt><dd id="continuity">${continuityBadge(st.continuity, st.gap)}</dd>
<dt>File name</dt><dd>${st.filename ?? html`<span class="muted">not given</span>`}</dd>
<dt>SHA-256</dt><dd><code class="ident" data-copy="SHA-256">${st.sha256}</code></dd>
<dt>Format</dt><dd>${formatLabel(st.format, st.version)}</dd>
<dt>Pool</dt><dd>${pool ? html`<a href="/office/pools/${pool.id}">${pool.name}</a>` : html`<span class="mono">${st.providerId}</span>`}</dd>
<dt>Account${st.accounts.length === 1 ? '' : 's'}</dt><dd>${st.accounts.map((a, i) => html`${i ? html`<br>` : ''}<span class="mono">${a}</span>`)}</dd>
<dt>Period</dt><dd>${period(st.periodFrom, st.periodTo)}</dd>
<dt>Uploaded</dt><dd>${utc(st.createdAt)} by ${uploader(st.uploadedBy, names)}</dd>
<dt>Statement</dt><dd><code class="ident" data-copy="statement id">${st.id}</code></dd>
</dl></section>
<section class="card" aria-labelledby="balances-h"><h2 id="balances-h">Balances it states</h2>
<p class="muted">Per account: the opening and closing balances the file states, the sums of its booked credits and debits, whether they add up, and whether the opening balance continues the closing balance of the account's previous statement.</p>
${st.sections.length ? sectionsList(st) : html`<p class="muted empty">The file states no account section.</p>`}</section>
<section class="card" aria-labelledby="entries-h"><h2 id="entries-h">Entries</h2>
<p><span data-field="entries">${st.counts.entries}</span> ${st.counts.entries === 1 ? 'entry' : 'entries'}, of which <span data-field="credits">${st.counts.credits}</span> made or repeated credits: <span data-field="matched">${st.counts.matched}</span> matched on arrival, <span data-field="unmatched">${st.counts.unmatched}</span> left for a person${st.counts.duplicates ? html`, <span data-field="duplicates">${st.counts.duplicates}</span> recorded before` : ''}.</p>
${outcomeNav(st, o.outcome)}
${st.entries.items.length === 0
  ? html`<p class="muted empty" id="entries-empty">${o.outcome ? `No ${o.outcome} entries${o.after ? ' after these' : ''}.` : 'No entries.'}</p>`
  : entriesList(st)}
<p class="pager rc-links">${o.after > 0 ? html`<a href="${withQuery(here, { outcome: o.outcome })}#entries-h">First entries</a>` : ''}${st.entries.next !== null ? html`<a href="${withQuery(here, { outcome: o.outcome, after: String(st.entries.next) })}#entries-h" rel="next">Next entries</a>` : ''}</p>
</section>`,
  );
}
