import { html, type Html } from '../../html.js';
import { auditTable, href, officePage, type AuditItem, type Shell } from '../ui.js';

/** The audit trail, newest first, filtered by object, and its export. */

export function auditPage(s: Shell, page: { items: AuditItem[]; hasMore: boolean; next: string | null }, objectId: string): Html {
  return officePage(
    s,
    'Audit trail',
    'audit',
    html`<h1>Audit trail</h1>
<p class="muted">Every state-changing action of the back office and of the operator API, newest first, refusals included. Entries are never changed.</p>
<form class="filters" method="get" action="/office/audit" role="search" aria-label="Audit trail"><div><label for="objectId">Object id</label><input type="text" id="objectId" name="objectId" value="${objectId}" maxlength="64"></div>
<div class="filter-actions"><button type="submit" class="secondary">Filter</button> <a href="/office/audit">Clear</a></div></form>
<p class="list-tools"><a class="button secondary" href="${href('/office/audit.csv', { objectId })}" download>Export CSV</a> <span class="muted">every entry this filter matches</span></p>
${auditTable(page.items)}
${page.hasMore && page.next ? html`<p class="pager"><a href="${href('/office/audit', { objectId, before: page.next })}">Older entries</a></p>` : ''}`,
  );
}
