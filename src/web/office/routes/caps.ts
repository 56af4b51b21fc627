import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import type { Scope, Window } from '../../../domain/turnover.js';
import * as office from '../../../services/office.js';
import { createLimit, removeLimit } from '../../../services/turnover.js';
import { ButtonForm, formOf } from '../../forms.js';
import { seeOther } from '../../session.js';
import * as forms from '../forms.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import { doneOf, param, str, type Kit } from '../kit.js';
import { capsPage } from '../views/caps.js';

type CapItem = Awaited<ReturnType<typeof office.capsWithUsage>>[number];

const CAP_COLUMNS: CsvColumn<CapItem>[] = [
  { name: 'id', value: (c) => c.id },
  { name: 'scope', value: (c) => c.scope },
  { name: 'scopeId', value: (c) => c.scopeId },
  { name: 'window', value: (c) => c.window },
  { name: 'windowStart', value: (c) => c.windowStart },
  { name: 'capUsd', value: (c) => c.capUsd },
  { name: 'usedUsd', value: (c) => c.usedUsd },
  { name: 'usedPercent', value: (c) => c.usedPercent },
  { name: 'notifyOnly', value: (c) => c.notifyOnly },
];

/** Turnover caps: the list with their usage and its export, adding and removing one. */
export function capRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  app.get('/office/caps', async (req, reply) => {
    const caps = await office.capsWithUsage(ctx);
    return page(req, reply, (s) => capsPage(s, caps, doneOf(req), null));
  });
  app.get('/office/caps.csv', async (_req, reply) => sendCsv(ctx, reply, 'caps.csv', CAP_COLUMNS, listed(() => office.capsWithUsage(ctx))));
  adminPost('/office/caps', forms.CapForm, async (req, reply) => {
    const f = formOf(req, forms.CapForm);
    const scope = str(f.scope, 20) as Scope;
    const window = str(f.window, 20) as Window;
    const capUsd = str(f.capUsd, 40);
    if (!scope) throw new AppError('VALIDATION_ERROR', 'Scope: platform, merchant, desk or provider');
    if (!window) throw new AppError('VALIDATION_ERROR', 'Window: hour, day or month');
    if (!capUsd) throw new AppError('VALIDATION_ERROR', 'Cap: a decimal amount in USD');
    const input = { scope, scopeId: str(f.scopeId, 64) || null, window, capUsd, notifyOnly: f.notifyOnly === 'true' };
    await act(req, 'turnoverLimit.create', null, (c) => createLimit(c, input), (r) => r.id);
    return seeOther(reply, '/office/caps?done=cap-added');
  });
  adminPost('/office/caps/:id/remove', ButtonForm, async (req, reply) => {
    const id = param(req, 'id');
    await act(req, 'turnoverLimit.remove', id, (c) => removeLimit(c, id));
    return seeOther(reply, '/office/caps?done=cap-removed');
  });
}
