import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { AppError } from '../../../domain/errors.js';
import { listAudit } from '../../../services/audit.js';
import * as office from '../../../services/office.js';
import * as op from '../../../services/operator.js';
import { formOf, formWithProblem } from '../../forms.js';
import { seeOther } from '../../session.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import * as forms from '../forms.js';
import { doneOf, param, sentence, type Kit } from '../kit.js';
import { tariffPage, tariffsPage, type TariffFormValues, type TariffItem } from '../views/tariffs.js';

type TariffForm = Static<typeof forms.TariffForm>;

/** The tariff form as typed: its name, its band rows (empty ones dropped), the default tick. */
function tariffValues(f: TariffForm): TariffFormValues {
  const cells = f as Record<string, string | undefined>;
  const bands: TariffFormValues['bands'] = [];
  for (let i = 1; i <= forms.TARIFF_ROWS; i++) {
    const cell = (name: string) => cells[forms.rowField(name, i)] ?? '';
    const band = { fromUsd: cell('fromUsd'), toUsd: cell('toUsd'), ratePercent: cell('ratePercent') };
    if (band.fromUsd || band.toUsd || band.ratePercent) bands.push(band);
  }
  return { name: f.name?.trim() ?? '', bands, default: f.default === 'true' };
}

/**
 * The bands as the API takes them: an empty "to" is no upper bound, an empty "from" of the first
 * band starts at 0. The service's words (`bands[1].toUsd: …`) name the band as the page numbers it.
 */
function bandsOf(v: TariffFormValues) {
  if (!v.name) throw new AppError('VALIDATION_ERROR', 'Name: give the tariff a name');
  if (v.bands.length === 0) throw new AppError('VALIDATION_ERROR', 'Bands: give at least one band with its fee');
  const raw = v.bands.map((b, i) => ({ fromUsd: b.fromUsd || (i === 0 ? '0' : ''), toUsd: b.toUsd || null, ratePercent: b.ratePercent }));
  try {
    return op.validateBands(raw);
  } catch (err) {
    if (err instanceof AppError && err.detail) throw new AppError(err.code, err.detail.replace(/^bands\[(\d+)\]\.(\w+)/, (_m, i: string, k: string) => `Band ${Number(i) + 1}, ${BAND_FIELD[k] ?? k}`));
    throw err;
  }
}

const BAND_FIELD: Record<string, string> = { fromUsd: 'from', toUsd: 'to', ratePercent: 'fee' };

/** A row field's name in the schema's words (`fromUsd2: …`) as the page numbers it. */
const rowField = (detail: string) => detail.replace(/^(fromUsd|toUsd|ratePercent)(\d*)/, (_m, k: string, n: string) => `Band ${n || 1}, ${BAND_FIELD[k] ?? k}`);

/** One line of the tariffs export: a tariff and one of its bands (none for a tariff without bands). */
interface TariffLine {
  t: TariffItem;
  b: TariffItem['bands'][number] | null;
}

const TARIFF_COLUMNS: CsvColumn<TariffLine>[] = [
  { name: 'id', value: (r) => r.t.id },
  { name: 'name', value: (r) => r.t.name },
  { name: 'default', value: (r) => r.t.default },
  { name: 'fromUsd', value: (r) => r.b?.fromUsd },
  { name: 'toUsd', value: (r) => r.b?.toUsd },
  { name: 'ratePercent', value: (r) => r.b?.ratePercent },
  { name: 'createdAt', value: (r) => r.t.createdAt },
];

/** Tariffs: the list, a new one, one with its bands to edit, and which one is the default. */
export function tariffRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  const showList = async (req: FastifyRequest, reply: FastifyReply, o: { form?: TariffFormValues; error?: string | null; status?: number } = {}) => {
    const list = await office.listTariffViews(ctx);
    return page(req, reply, (s) => tariffsPage(s, list, { done: doneOf(req), ...o }), o.status);
  };
  const showOne = async (req: FastifyRequest, reply: FastifyReply, o: { form?: TariffFormValues; error?: string | null; status?: number } = {}) => {
    const t = await op.getTariff(ctx, param(req, 'id'));
    const audit = await listAudit(ctx, { objectId: t.id, limit: 50 });
    return page(req, reply, (s) => tariffPage(s, t, audit.items, { done: doneOf(req), ...o }), o.status);
  };

  app.get('/office/tariffs', async (req, reply) => showList(req, reply));
  app.get('/office/tariffs.csv', async (req, reply) => {
    // One line per band, so a spreadsheet reads each fee; a tariff without bands has one line with none.
    const rows = async () => (await office.listTariffViews(ctx)).flatMap((t): TariffLine[] => (t.bands.length ? t.bands.map((b) => ({ t, b })) : [{ t, b: null }]));
    return sendCsv(ctx, reply, 'tariffs.csv', TARIFF_COLUMNS, listed(rows));
  });
  app.get('/office/tariffs/:id', async (req, reply) => showOne(req, reply));

  adminPost(
    '/office/tariffs',
    forms.TariffForm,
    async (req, reply) => {
      const { form, problem } = formWithProblem(req, forms.TariffForm);
      const v = tariffValues(form);
      if (problem) return showList(req, reply, { form: v, error: sentence(rowField(problem)), status: 400 });
      try {
        const bands = bandsOf(v);
        const t = await act(req, 'tariff.create', null, (c) => op.createTariff(c, { name: v.name, bands, default: v.default }), (r) => r.id);
        return seeOther(reply, `/office/tariffs/${t.id}?done=tariff-created`);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return showList(req, reply, { form: v, error: sentence(err.detail), status: 400 });
        throw err;
      }
    },
    { invalid: 'route' },
  );

  adminPost(
    '/office/tariffs/:id',
    forms.TariffForm,
    async (req, reply) => {
      const id = param(req, 'id');
      const { form, problem } = formWithProblem(req, forms.TariffForm);
      const v = tariffValues(form);
      if (problem) return showOne(req, reply, { form: v, error: sentence(rowField(problem)), status: 400 });
      try {
        const bands = bandsOf(v);
        // The edit form has no default tick: making a tariff the default is its own button.
        await act(req, 'tariff.update', id, (c) => op.patchTariff(c, id, { name: v.name, bands }));
        return seeOther(reply, `/office/tariffs/${id}?done=tariff-saved`);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return showOne(req, reply, { form: v, error: sentence(err.detail), status: 400 });
        throw err;
      }
    },
    { invalid: 'route' },
  );

  adminPost('/office/tariffs/:id/default', forms.TariffDefaultForm, async (req, reply) => {
    const id = param(req, 'id');
    const f = formOf(req, forms.TariffDefaultForm);
    if (f.default === undefined) throw new AppError('VALIDATION_ERROR', 'default: true or false');
    const on = f.default === 'true';
    await act(req, 'tariff.update', id, (c) => op.patchTariff(c, id, { default: on }));
    return seeOther(reply, `/office/tariffs/${id}?done=${on ? 'tariff-default' : 'tariff-undefault'}`);
  });
}
