import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.js';
import { appealView, getAppealForDesk, openAppeal } from '../../services/appeals.js';
import { sendOk } from '../errors.js';
import { field, jsonBody } from '../validate.js';

// Length caps on free text: an orderRef is at most 255 characters anyway; several evidence URLs
// separated by semicolons fit in 4096.
const ORDER_ID_MAX = 255;
const REASON_MAX = 2000;
const EVIDENCE_MAX = 4096;

/** POST /gw/v1/appeals and GET /gw/v1/appeals/{id}. */
export async function gatewayAppealRoutes(gw: FastifyInstance, ctx: Ctx): Promise<void> {
  gw.post('/appeals', async (req, reply) => {
    const b = jsonBody(req.body);
    const appeal = await openAppeal(ctx, req.desk!.id, {
      orderId: field.requiredString(b, 'orderId', { max: ORDER_ID_MAX }),
      reason: field.string(b, 'reason', { nullable: true, max: REASON_MAX }) ?? null,
      evidenceUrl: field.string(b, 'evidenceUrl', { nullable: true, max: EVIDENCE_MAX }) ?? null,
    });
    // A repeat while the appeal is open returns that appeal, also with 201 (spec rule 3).
    return sendOk(req, reply, appealView(appeal), 201);
  });

  gw.get('/appeals/:id', async (req, reply) => {
    const appeal = await getAppealForDesk(ctx, req.desk!.id, (req.params as { id: string }).id);
    return sendOk(req, reply, appealView(appeal));
  });
}
