import { html, type Html } from '../../html.js';
import { auditTable, officePage, type AuditItem, type Shell } from '../ui.js';

/** The audit trail, newest first, filtered by object. */

export function auditPage(s: Shell, page: { items: AuditItem[]; hasMore: boolean; next: string | null }, objectId: string): Html {
  return officePage(
    s,
    'Audit trail',
    'audit',
    html`<h1>Audit trail</h1>
<p class="muted">Every state-changing action of the back office and of the operator API, newest first. Entries are never changed.</p>
<form class="filters" method="get" action="/office/audit"><div><label for="objectId">Object id</label><input type="text" id="objectId" name="objectId" value="${objectId}" maxlength="64"></div><button type="submit" class="secondary">Filter</button></form>
${auditTable(page.items)}
${page.hasMore && page.next ? html`<p class="pager"><a href="/office/audit?${objectId ? `objectId=${encodeURIComponent(objectId)}&` : ''}before=${page.next}">Older entries</a></p>` : ''}`,
  );
}
