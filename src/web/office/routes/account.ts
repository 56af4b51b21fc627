import QRCode from 'qrcode';
import { endSession } from '../../../services/sessions.js';
import { beginEnrolment, confirmEnrolment, pendingEnrolment, twoFactorStatus } from '../../../services/twoFactor.js';
import { ButtonForm, formOf, withForm } from '../../forms.js';
import { cookieHeader, seeOther, setCookies } from '../../session.js';
import * as forms from '../forms.js';
import { query, str, type Kit } from '../kit.js';
import { off, OFFICE, type OfficeRequest } from '../session.js';
import { enrolPage, recoveryCodesPage, twoFactorStatusPage } from '../views/signIn.js';
import type { FastifyInstance } from 'fastify';

/** The operator's own account: sign-out and the second factor. */
export function accountRoutes(app: FastifyInstance, { ctx, page }: Kit): void {
  app.post('/office/sign-out', withForm(ButtonForm), async (req, reply) => {
    await endSession(ctx, off(req).session);
    setCookies(reply, [cookieHeader(ctx, OFFICE.session, '', 0)]);
    return seeOther(reply, OFFICE.signInPath);
  });

  const enrolment = async (o: OfficeRequest) =>
    (await pendingEnrolment(ctx, 'office', o.operator.id, o.operator.email)) ?? (await beginEnrolment(ctx, 'office', o.operator.id, o.operator.email));
  const qr = (uri: string) => QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then((svg) => svg.replace('<svg ', '<svg role="img" aria-label="QR code of the authenticator secret" class="qr-code" '));
  const required = ctx.config.officeRequire2fa;

  app.get('/office/two-factor', async (req, reply) => {
    const o = off(req);
    const status = await twoFactorStatus(ctx, 'office', o.operator.id);
    if (status.enabled || (!required && query(req).setup !== '1')) return page(req, reply, (s) => twoFactorStatusPage(s, status));
    const e = await enrolment(o);
    const svg = await qr(e.uri);
    return page(req, reply, (s) => enrolPage(s, { ...e, qrSvg: svg, error: null, required: required }));
  });

  app.post('/office/two-factor', withForm(forms.TwoFactorForm), async (req, reply) => {
    const o = off(req);
    // Already on: a stray form must not start a new secret over the one in force.
    if ((await twoFactorStatus(ctx, 'office', o.operator.id)).enabled) return seeOther(reply, '/office/two-factor');
    const codes = await confirmEnrolment(ctx, 'office', o.operator.id, str(formOf(req, forms.TwoFactorForm).code, 40));
    if (!codes) {
      const e = await enrolment(o);
      const svg = await qr(e.uri);
      return page(req, reply, (s) => enrolPage(s, { ...e, qrSvg: svg, error: 'That code does not match. Check the time on your phone and enter the current code.', required: required }), 400);
    }
    return page(req, reply, (s) => recoveryCodesPage(s, codes));
  });
}
