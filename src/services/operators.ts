import type { Ctx } from '../context.js';
import { AppError } from '../domain/errors.js';
import { isoSeconds } from '../domain/time.js';
import * as office from '../store/office.js';
import { revokeAccountSessions } from '../store/sessions.js';
import { pageOf } from './paging.js';

/**
 * The back office's operators beyond their creation (accounts.ts `createOperator`): the list, a
 * role change, disabling and enabling. A disabled operator cannot sign in and their sessions end in
 * the same transaction. The platform always keeps one active admin.
 */

export const operatorAccountView = (o: office.OperatorAccountRow) => ({
  id: o.id,
  email: o.email,
  role: o.role,
  disabled: o.disabled_at !== null,
  createdAt: isoSeconds(o.created_at),
});

export type OperatorAccountView = ReturnType<typeof operatorAccountView>;

/** `GET /admin/v1/operators`: newest first, paged by `before`. */
export async function listOperatorAccounts(ctx: Ctx, query: { before?: string; limit: number }) {
  if (query.before && !(await office.getOperatorAccount(ctx.db, query.before))) throw new AppError('VALIDATION_ERROR', 'before: unknown operator id');
  const rows = await office.listOperators(ctx.db, { beforeId: query.before, limit: query.limit + 1 });
  return pageOf(rows, query.limit, operatorAccountView, (o) => o.id);
}

/** Every operator, for the back office's page and its export (a platform has tens, not thousands). */
export async function allOperatorAccounts(ctx: Ctx): Promise<OperatorAccountView[]> {
  const out: OperatorAccountView[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await listOperatorAccounts(ctx, { before, limit: 500 });
    out.push(...page.items);
    if (!page.hasMore || !page.next) return out;
    before = page.next;
  }
}

/**
 * `PATCH /admin/v1/operators/{id}`: a new role, disabled or enabled again. Refused (FORBIDDEN) when
 * it would leave no active admin; an unknown operator is NOT_FOUND.
 */
export async function patchOperator(ctx: Ctx, id: string, patch: { role?: 'admin' | 'support'; disabled?: boolean }): Promise<OperatorAccountView> {
  return ctx.db.tx(async (q) => {
    const admins = await office.lockActiveAdmins(q);
    const o = await office.getOperatorAccount(q, id);
    if (!o) throw new AppError('NOT_FOUND', `no operator ${id}`);
    const wasActiveAdmin = o.role === 'admin' && o.disabled_at === null;
    const staysActiveAdmin = (patch.role ?? o.role) === 'admin' && !(patch.disabled ?? o.disabled_at !== null);
    if (wasActiveAdmin && !staysActiveAdmin && !admins.some((a) => a !== id)) {
      throw new AppError('FORBIDDEN', 'the last active admin cannot lose the admin role or be disabled; make another operator admin first');
    }
    const now = new Date(ctx.clock.now());
    const disabledAt = patch.disabled === undefined ? undefined : patch.disabled ? (o.disabled_at ?? now) : null;
    const row = (await office.updateOperatorAccess(q, id, { role: patch.role, disabledAt }))!;
    if (patch.disabled) await revokeAccountSessions(q, 'office', id, now);
    return operatorAccountView(row);
  });
}
