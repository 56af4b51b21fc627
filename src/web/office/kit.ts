import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Ctx } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { audited } from '../../services/audit.js';
import * as office from '../../services/office.js';
import { sendPage } from '../layout.js';
import { seeOther } from '../session.js';
import { formOf, withForm, type FormSchema } from '../forms.js';
import type { Html } from '../html.js';
import { off } from './session.js';
import { isAdmin, messagePage, type Mode, type NavExtra, type Shell } from './ui.js';

/**
 * What every family of back-office routes uses: reading the path and query, the shell of a page,
 * and the one way an action is taken (the operator API's service inside `audited()`, the operator
 * as actor, then 303 to where its notice is shown).
 */

export const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name]!;
export const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
export const str = (x: unknown, max = 200) => (typeof x === 'string' ? x.trim().slice(0, max) : '');

/** Where an action's notice is read back: `?done=` names one of these, never free text. */
const NOTICES: Record<string, string> = {
  approved: 'Merchant approved: live providers serve it from now on, and its owners are mailed.',
  'application-rejected': 'Application rejected: its owners are mailed the reason, and the merchant may change it and submit again.',
  blocked: 'Merchant blocked: its orders answer MERCHANT_INACTIVE.',
  unblocked: 'Merchant unblocked.',
  withdrawn: 'Withdrawal recorded: the balance shrank by its amount.',
  'withdrawal-paid': 'Withdrawal marked paid: the ledger holds its withdrawal, the balance shrank and the hold is released.',
  'withdrawal-reject': 'Withdrawal request rejected: the hold is released and the owners are told why.',
  stopped: 'Desk stopped: its orders answer SHOP_STOPPED with the reason.',
  resumed: 'Resumed.',
  accepted: 'Appeal accepted: the order is completed and the merchant credited.',
  rejected: 'Appeal rejected: the order is cancelled.',
  confirmed: 'Payment confirmed: the order is completed and the merchant credited.',
  paused: 'Provider paused: the cascade skips it.',
  rate: 'Manual rate set: it takes precedence over the market.',
  currency: 'Currency setting saved.',
  sandbox: 'Sandbox setting changed.',
  'rate-removed': 'Manual rate removed: the market rate applies again.',
  'cap-added': 'Cap added.',
  'cap-removed': 'Cap removed.',
  tariff: "Desk's tariff saved: fees of orders completed from now on follow it.",
  'tariff-created': 'Tariff created.',
  'tariff-saved': 'Tariff saved: fees of orders completed from now on use its bands.',
  'tariff-default': 'This is the default tariff now: desks created without a tariff get it.',
  'tariff-undefault': 'No default tariff now: desks created without a tariff wait for one, and approving their merchant is refused until they have one.',
  'operator-created': 'Operator created: they sign in with the email and password given.',
  'operator-role': 'Role changed: it applies from their next page.',
  'operator-disabled': 'Operator disabled: they cannot sign in, and their sessions have ended.',
  'operator-enabled': 'Operator enabled: they may sign in again.',
  'merchant-created': 'Merchant created: it is under review. Add its cabinet users and desks below.',
  renamed: 'Merchant renamed.',
  'user-created': 'Cabinet user added: they sign in with the email and password given.',
  'desk-saved': 'Desk settings saved.',
};
export const doneOf = (req: FastifyRequest) => NOTICES[str(query(req).done, 20)] ?? null;

/** Live money unless the page is asked for the sandbox's (`?mode=sandbox`). */
export const modeOf = (req: FastifyRequest): Mode => (query(req).mode === 'sandbox' ? 'sandbox' : 'live');

/** A service detail ("amountUsd: must be …") as a sentence for a person. */
export function sentence(detail: string | null): string {
  if (!detail) return 'That is not possible now.';
  return /[.!?]$/.test(detail) ? detail : `${detail}.`;
}

/**
 * A navigation entry of a page family another room adds (src/app wires it): where it leads, in which
 * group, and what it counts (a badge beside it, left out at zero), counted afresh for every page.
 */
export interface OfficeNavEntry {
  label: string;
  path: NavExtra['path'];
  group: NavExtra['group'];
  count?: (ctx: Ctx) => Promise<number>;
}

/**
 * A family of back-office pages another room adds: registered inside the signed-in scope, so its
 * routes have the session, the CSRF check, the two-factor gate and the office's error pages, and
 * take admin actions through the kit like the office's own.
 */
export type OfficePageFamily = (app: FastifyInstance, kit: Kit) => void | Promise<void>;

/**
 * A section another room adds to the home page (the dashboard), under its tiles: what needs an
 * operator's eye now. Rendered afresh for every visit of the page's mode; null when there is
 * nothing to show.
 */
export type OfficeHomeSection = (ctx: Ctx, mode: Mode) => Promise<Html | null>;

/** What other rooms add to the back office: their page families, navigation entries and home sections. */
export interface OfficeExtensions {
  pages?: readonly OfficePageFamily[];
  nav?: readonly OfficeNavEntry[];
  home?: readonly OfficeHomeSection[];
}

export async function shell(ctx: Ctx, req: FastifyRequest, nav: readonly OfficeNavEntry[] = []): Promise<Shell> {
  const [counts, added] = await Promise.all([
    office.queueCounts(ctx),
    Promise.all(nav.map(async (e): Promise<NavExtra> => ({ label: e.label, path: e.path, group: e.group, count: e.count ? await e.count(ctx) : null }))),
  ]);
  return { o: off(req), counts, nav: added, mode: modeOf(req) };
}

/** The answer to a `support` operator posting an admin action. */
export async function refuseSupport(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, nav: readonly OfficeNavEntry[] = []) {
  return sendPage(reply, 403, messagePage(await shell(ctx, req, nav), 'Administrators only', 'This action is for administrators. Ask one to take it.'));
}

export interface Kit {
  ctx: Ctx;
  /** An action as `/admin/v1` takes it: the same service, audited in its transaction, actor = the operator. */
  act<T>(req: FastifyRequest, action: string, objectId: string | null, fn: (c: Ctx) => Promise<T>, objectOf?: (r: T) => string | null): Promise<T>;
  /** A POST only administrators may take, with its form: a support operator gets 403 before the form is looked at. */
  adminPost(path: string, form: FormSchema, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>, o?: { invalid?: 'route' }): void;
  /**
   * An admin action on the object in the path: the form checked first (a refusal is a 400 page and
   * no action), then the service in `audited()`, then 303 to where its notice is shown.
   */
  objectAction<F extends FormSchema>(
    path: string,
    action: string,
    form: F,
    fn: (c: Ctx, id: string, f: Static<F>) => Promise<unknown>,
    back: (id: string, f: Static<F>) => string,
    check?: (f: Static<F>) => string | null,
  ): void;
  /** Renders a page inside the shell (navigation with the queue counts). */
  page(req: FastifyRequest, reply: FastifyReply, render: (s: Shell) => Html, status?: number): Promise<FastifyReply>;
  /** The shell of a page: the operator, the queue counts, the added navigation entries with theirs. */
  shell(req: FastifyRequest): Promise<Shell>;
  /** The preHandler of an admin-only route: a `support` operator gets the 403 page. */
  adminOnly(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** The sections other rooms add to the home page, for the request's mode, those with something to show. */
  homeSections(req: FastifyRequest): Promise<Html[]>;
}

export function kitFor(app: FastifyInstance, ctx: Ctx, nav: readonly OfficeNavEntry[] = [], home: readonly OfficeHomeSection[] = []): Kit {
  const act: Kit['act'] = (req, action, objectId, fn, objectOf) => audited(ctx, { actor: off(req).operator.id, action, objectId, objectOf }, fn);
  const adminOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!isAdmin(off(req))) return refuseSupport(ctx, req, reply, nav);
  };
  const adminPost: Kit['adminPost'] = (path, form, handler, o = {}) => {
    app.post(path, withForm(form, { preHandler: adminOnly, ...o }), handler);
  };
  const objectAction: Kit['objectAction'] = (path, action, form, fn, back, check) =>
    adminPost(path, form, async (req, reply) => {
      const id = param(req, 'id');
      const f = formOf(req, form);
      const problem = check?.(f);
      if (problem) throw new AppError('VALIDATION_ERROR', problem);
      await act(req, action, id, (c) => fn(c, id, f));
      return seeOther(reply, back(id, f));
    });
  const page: Kit['page'] = async (req, reply, render, status = 200) => sendPage(reply, status, render(await shell(ctx, req, nav)));
  const homeSections: Kit['homeSections'] = async (req) => (await Promise.all(home.map((section) => section(ctx, modeOf(req))))).filter((x): x is Html => x !== null);
  return { ctx, act, adminPost, objectAction, page, shell: (req) => shell(ctx, req, nav), adminOnly, homeSections };
}
