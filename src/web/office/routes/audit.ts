import type { FastifyInstance } from 'fastify';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import { sendCsv, type CsvColumn } from '../csv.js';
import { query, str, type Kit } from '../kit.js';
import type { AuditItem } from '../ui.js';
import { auditPage } from '../views/audit.js';

const AUDIT_COLUMNS: CsvColumn<AuditItem>[] = [
  { name: 'id', value: (a) => a.id },
  { name: 'at', value: (a) => a.at },
  { name: 'actor', value: (a) => a.actor },
  { name: 'action', value: (a) => a.action },
  { name: 'objectId', value: (a) => a.objectId },
  { name: 'outcome', value: (a) => a.outcome },
  { name: 'detail', value: (a) => a.detail },
];

/** The audit trail and its export (read only: there is no route that changes an entry). */
export function auditRoutes(app: FastifyInstance, { ctx, page }: Kit): void {
  app.get('/office/audit', async (req, reply) => {
    const objectId = str(query(req).objectId, 64);
    const list = await listAudit(ctx, { objectId: objectId || undefined, before: str(query(req).before, 20) || undefined, limit: 50 });
    return page(req, reply, (s) => auditPage(s, list, objectId));
  });
  app.get('/office/audit.csv', async (req, reply) => sendCsv(ctx, reply, 'audit.csv', AUDIT_COLUMNS, office.exportAudit(ctx, { objectId: str(query(req).objectId, 64) })));
}
