/**
 * Bank statements in the back office, read through the operator API's services: the list as
 * `GET /admin/v1/statements` (newest first; pool, account) and a statement with a page of its
 * entries as `GET /admin/v1/statements/{id}` (filtered by outcome). Reading only: statements are
 * uploaded on a pool's page.
 */
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { officeOperator } from '../../services/office.js';
import { param, query, str, type Kit } from '../../web/office/kit.js';
import { poolProviders } from '../queue.js';
import { getStatementView, listStatementViews } from '../statementImport.js';
import { ENTRY_OUTCOMES, statementPage, statementsPage, STATEMENTS_PATH, type EntryOutcome, type Uploaders } from './statementsView.js';

/** Statements on one page of the list. */
export const STATEMENTS_PAGE = 25;
/** Entries on one page of a statement: each is a card on a phone. */
export const ENTRIES_PAGE = 50;

/** The emails of the operators who uploaded these statements (the API token and operators gone are left out). */
export async function uploaderNames(ctx: Ctx, ids: readonly string[]): Promise<Uploaders> {
  const distinct = [...new Set(ids.filter((id) => id !== 'token'))];
  const found = await Promise.all(distinct.map(async (id) => [id, (await officeOperator(ctx, id))?.email ?? null] as const));
  return new Map(found.filter((x): x is readonly [string, string] => x[1] !== null));
}

export function statementPages(app: FastifyInstance, { ctx, page }: Kit): void {
  app.get(STATEMENTS_PATH, async (req, reply) => {
    const q = query(req);
    const f = { providerId: str(q.providerId, 64), account: str(q.account, 255) };
    const before = str(q.before, 64);
    const [list, pools] = await Promise.all([
      listStatementViews(ctx, { providerId: f.providerId || undefined, account: f.account || undefined, before: before || undefined, limit: STATEMENTS_PAGE }),
      poolProviders(ctx),
    ]);
    const names = await uploaderNames(ctx, list.items.map((s) => s.uploadedBy));
    return page(req, reply, (s) => statementsPage(s, list, f, pools, names, { continued: before !== '' }));
  });

  app.get(`${STATEMENTS_PATH}/:id`, async (req, reply) => {
    const q = query(req);
    const wanted = str(q.outcome, 20);
    const outcome = (ENTRY_OUTCOMES as readonly string[]).includes(wanted) ? (wanted as EntryOutcome) : null;
    const afterText = str(q.after, 9);
    const after = /^\d{1,9}$/.test(afterText) ? Number(afterText) : 0;
    const st = await getStatementView(ctx, param(req, 'id'), { after, limit: ENTRIES_PAGE, outcome: outcome ?? undefined });
    const [pools, names] = await Promise.all([poolProviders(ctx), uploaderNames(ctx, [st.uploadedBy])]);
    const pool = pools.find((p) => p.id === st.providerId) ?? null;
    return page(req, reply, (s) => statementPage(s, st, pool, names, { outcome, after }));
  });
}
