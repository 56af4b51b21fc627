import type { Ctx } from '../../context.js';
import { cabinetAccount } from '../../services/cabinet.js';
import type { SessionInfo } from '../../services/sessions.js';
import type { MerchantRow, UserRow } from '../../services/shapes.js';
import { sessionHook, type SurfaceCookies } from '../session.js';

export { cookieHeader, readCookie, setCookies } from '../session.js';

/** The cabinet's cookies (the back office has its own). */
export const CABINET: SurfaceCookies = { surface: 'cabinet', session: 'pg_cabinet', pre: 'pg_cabinet_pre', signInPath: '/cabinet/sign-in', homePath: '/cabinet' };
export const SESSION_COOKIE = CABINET.session;
export const PRE_SESSION_COOKIE = CABINET.pre;

export interface CabinetRequest {
  session: SessionInfo;
  user: UserRow;
  merchant: MerchantRow;
  /** Approved merchants: one line per desk no live provider serves (the banner); empty otherwise. */
  liveWarnings: readonly string[];
  /** The token every form of the page carries in its hidden `_csrf` input. */
  csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    cabinet?: CabinetRequest;
  }
}

/** Resumes the cabinet session and loads the user and its merchant before every signed-in page. */
export function cabinetSessionHook(ctx: Ctx) {
  return sessionHook(
    ctx,
    CABINET,
    (accountId) => cabinetAccount(ctx, accountId),
    (req, s) => {
      req.cabinet = { session: s.session, user: s.account.user, merchant: s.account.merchant, liveWarnings: s.account.liveWarnings, csrf: s.csrf };
    },
  );
}
