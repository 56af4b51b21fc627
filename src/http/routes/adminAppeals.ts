import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { APPEAL_STATUSES, type AppealStatus } from '../../domain/appealGuard.js';
import { AppError } from '../../domain/errors.js';
import { acceptAppeal, getAppealForReview, listAppealsForReview, rejectAppeal, reviewView } from '../../services/appeals.js';
import { sendOk } from '../errors.js';
import { field, jsonBody } from '../validate.js';

const COMMENT_MAX = 2000;
const idParam = (req: FastifyRequest) => (req.params as { id: string }).id;
const commentOf = (req: FastifyRequest) => field.string(jsonBody(req.body), 'comment', { nullable: true, max: COMMENT_MAX }) ?? null;

/** Operator review of appeals. */
export async function adminAppealRoutes(admin: FastifyInstance, ctx: Ctx): Promise<void> {
  admin.get('/appeals', async (req, reply) => {
    const status = (req.query as Record<string, unknown>).status;
    if (status !== undefined && !(typeof status === 'string' && (APPEAL_STATUSES as readonly string[]).includes(status))) {
      throw new AppError('VALIDATION_ERROR', `status: must be one of ${APPEAL_STATUSES.join(', ')}`);
    }
    return sendOk(req, reply, await listAppealsForReview(ctx, (status as AppealStatus | undefined) ?? null));
  });

  admin.get('/appeals/:id', async (req, reply) => sendOk(req, reply, await getAppealForReview(ctx, idParam(req))));

  admin.post('/appeals/:id/accept', async (req, reply) => {
    const comment = commentOf(req);
    return sendOk(req, reply, reviewView(await acceptAppeal(ctx, idParam(req), comment), ctx.clock.now()));
  });

  admin.post('/appeals/:id/reject', async (req, reply) => {
    const comment = commentOf(req);
    return sendOk(req, reply, reviewView(await rejectAppeal(ctx, idParam(req), comment), ctx.clock.now()));
  });
}
