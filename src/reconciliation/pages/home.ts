/**
 * The reconciliation room's section of the back office's home page: the recent bank statements
 * whose balances do not add up or that leave a gap since the account's previous statement, each
 * linked to its page, so a missing statement or an entry the bank left out is seen the day it
 * shows, not at the month's close. Live money only: the sandbox dashboard has no bank statements.
 */
import type { Ctx } from '../../context.js';
import { html, type Html } from '../../web/html.js';
import type { Mode } from '../../web/office/ui.js';
import { poolProviders } from '../queue.js';
import { statementView } from '../statementImport.js';
import * as statementStore from '../statementStore.js';
import { balanceCurrency, gapDays, statementLink, STATEMENTS_PATH } from './statementsView.js';
import { amount } from './ui.js';

/** How long a statement's finding stays on the home page: a fortnight of uploads, newest first. */
export const FINDINGS_DAYS = 14;
/** The most findings the home page lists; the statements page has them all. */
export const FINDINGS_SHOWN = 5;

export async function statementFindings(ctx: Ctx, mode: Mode): Promise<Html | null> {
  if (mode === 'sandbox') return null;
  const since = ctx.clock.now() - FINDINGS_DAYS * 86_400_000;
  // One more than shown, to say when there are more.
  const rows = (await statementStore.statementsWithFindings(ctx.db, FINDINGS_SHOWN + 1)).filter((s) => s.created_at.getTime() >= since);
  if (rows.length === 0) return null;
  const names = new Map((await poolProviders(ctx)).map((p) => [p.id, p.name]));
  const shown = rows.slice(0, FINDINGS_SHOWN).map(statementView);
  return html`<section class="notice warn" aria-labelledby="statement-findings-h" id="statement-findings">
<h2 id="statement-findings-h">Bank statements to look at</h2>
<p>Uploaded in the last ${FINDINGS_DAYS} days, with balances that do not add up or a gap since the account's previous statement: an entry the bank left out, or a statement not uploaded.</p>
<ul>${shown.map((s) => {
    const what: Html[] = [];
    if (s.balanceCheck === 'inconsistent') what.push(html`balances inconsistent${s.balanceDifference ? html` by ${amount(s.balanceDifference, balanceCurrency(s))}` : ''}`);
    if (s.continuity === 'gap') what.push(html`gap: ${gapDays(s.gap)}`);
    return html`<li>${statementLink(s)} <span class="muted">(${names.get(s.providerId) ?? s.providerId}, ${s.accounts.join(', ')})</span>: ${what.map((w, i) => html`${i ? '; ' : ''}${w}`)}</li>`;
  })}</ul>
<p><a href="${STATEMENTS_PATH}">Every bank statement</a>${rows.length > FINDINGS_SHOWN ? ' (more statements with findings there)' : ''}</p>
</section>`;
}
