import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { roleMay, type CabinetArea } from '../../services/team.js';
import { sendPage } from '../layout.js';
import { messagePage } from './layout.js';

/**
 * What a signed-in user may post, by role (web spec, "Cabinet, in addition"): everyone signs out
 * and looks after their own sign-in (password, two-factor, their sessions); a `viewer` nothing
 * else; a `developer` everything but the team and withdrawals; an `owner` everything. A refused
 * action answers 403 with a page before its form is read, and nothing happens.
 */
const OWN_SIGN_IN = /^\/cabinet\/(sign-out|account\/(password|two-factor(\/.*)?|sessions\/:handle\/revoke))$/;
/** Withdrawal requests and where they are paid: an owner's alone (web spec, "Withdrawal requests"). */
const MONEY = /^\/cabinet\/(withdrawals|payout-destinations)(\/.*)?$/;
export function areaOf(routeUrl: string): CabinetArea | 'self' {
  if (OWN_SIGN_IN.test(routeUrl)) return 'self';
  if (MONEY.test(routeUrl)) return 'money';
  return routeUrl === '/cabinet/team' || routeUrl.startsWith('/cabinet/team/') ? 'team' : 'work';
}

export function roleGate(ctx: Ctx) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const c = req.cabinet;
    if (!c || req.method === 'GET' || req.method === 'HEAD') return;
    const area = areaOf(req.routeOptions.url ?? '');
    if (area === 'self' || roleMay(c.user.role, area)) return;
    const what =
      area === 'team' ? 'Only an owner changes the team.' : area === 'money' ? 'Only an owner asks for withdrawals and changes where they are paid.' : 'Your role can read everything here but change nothing.';
    ctx.log.info({ userId: c.user.id, role: c.user.role, route: req.routeOptions.url }, 'cabinet action refused for the role');
    return sendPage(reply, 403, messagePage(c, 'Not for your role', `${what} Ask an owner of ${c.merchant.name}.`));
  };
}
