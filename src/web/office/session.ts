import type { FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.js';
import { officeOperator } from '../../services/office.js';
import type { SessionInfo } from '../../services/sessions.js';
import type { OperatorRow } from '../../services/shapes.js';
import { sessionHook, type SurfaceCookies } from '../session.js';

/** The back office's cookies, apart from the cabinet's (web spec, "Common rules"). */
export const OFFICE: SurfaceCookies = { surface: 'office', session: 'pg_office', pre: 'pg_office_pre', signInPath: '/office/sign-in', homePath: '/office' };

export type Role = OperatorRow['role'];

export interface OfficeRequest {
  session: SessionInfo;
  operator: OperatorRow;
  csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    office?: OfficeRequest;
  }
}

/** Resumes the office session and loads its operator before every signed-in page and action. */
export function officeSessionHook(ctx: Ctx) {
  return sessionHook(
    ctx,
    OFFICE,
    (accountId) => officeOperator(ctx, accountId),
    (req, s) => {
      req.office = { session: s.session, operator: s.account, csrf: s.csrf };
    },
  );
}

export const off = (req: FastifyRequest): OfficeRequest => req.office!;
