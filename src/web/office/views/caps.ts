import { html, type Html } from '../../html.js';
import { action, csrfInput, isAdmin, notice, officePage, table, utc, type Fn, type Shell, ident, usd } from '../ui.js';

/** Turnover caps with what the current window of each already holds. */

export function capsPage(s: Shell, caps: Fn<'capsWithUsage'>, done: string | null, error: string | null): Html {
  const admin = isAdmin(s.o);
  return officePage(
    s,
    'Turnover caps',
    'caps',
    html`<h1>Turnover caps</h1>${notice(done)}${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
<p class="muted">Completed USD in the current calendar window (UTC) against each cap. A hard cap refuses orders that would cross it; a notify-only cap raises a notification.</p>
<p class="list-tools"><a class="button secondary" href="/office/caps.csv" download>Export CSV</a></p>
${table(
  'Turnover caps',
  ['Scope', 'Window', { label: 'Cap (USD)', kind: 'num' }, { label: 'Used (USD)', kind: 'num' }, 'Kind', ...(admin ? [{ label: '', kind: 'action' as const }] : [])],
  caps.map((c) => [
    html`${c.scope}${c.scopeId ? html` ${ident(c.scopeId, 'scope id')}` : ''}`,
    html`${c.window} from ${utc(c.windowStart)}`,
    usd(c.capUsd),
    html`${usd(c.usedUsd)} <span class="muted">(${c.usedPercent} %)</span><meter min="0" max="100" value="${c.usedPercent}" aria-label="Share of the cap used">${c.usedPercent} %</meter>`,
    c.notifyOnly ? 'notify only' : 'hard',
    ...(admin ? [action(s.o, `/office/caps/${c.id}/remove`, 'Remove', { kind: 'danger' })] : []),
  ]),
  'No caps.',
)}
${admin
  ? html`<section class="card" aria-labelledby="newcap-h"><h2 id="newcap-h">Add a cap</h2>
<form class="stack" method="post" action="/office/caps">${csrfInput(s.o.csrf)}
<label for="scope">Scope</label><select id="scope" name="scope"><option>platform</option><option>merchant</option><option>desk</option><option>provider</option></select>
<label for="scopeId">Scope id (empty for the platform)</label><input type="text" id="scopeId" name="scopeId" maxlength="64">
<label for="window">Window</label><select id="window" name="window"><option>hour</option><option selected>day</option><option>month</option></select>
<label for="capUsd">Cap (USD)</label><input type="text" id="capUsd" name="capUsd" inputmode="decimal" required>
<label class="check"><input type="checkbox" name="notifyOnly" value="true"> Notify only</label>
<button type="submit">Add cap</button></form></section>`
  : ''}`,
  );
}

