import type { FastifyInstance } from 'fastify';
import { listAudit } from '../../../services/audit.js';
import { query, str, type Kit } from '../kit.js';
import { auditPage } from '../views/audit.js';

/** The audit trail (read only: there is no route that changes an entry). */
export function auditRoutes(app: FastifyInstance, { ctx, page }: Kit): void {
  app.get('/office/audit', async (req, reply) => {
    const objectId = str(query(req).objectId, 64);
    const list = await listAudit(ctx, { objectId: objectId || undefined, before: str(query(req).before, 20) || undefined, limit: 50 });
    return page(req, reply, (s) => auditPage(s, list, objectId));
  });
}
