import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { AppError } from '../../../domain/errors.js';
import * as office from '../../../services/office.js';
import { createProvider, pauseProvider, providerViewById, rotateProviderSecret } from '../../../services/providersAdmin.js';
import { ButtonForm, formWithProblem } from '../../forms.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import * as forms from '../forms.js';
import { doneOf, param, sentence, type Kit } from '../kit.js';
import { providerCreatedPage, providerPage, providerSecretPage, providersPage, type ProviderFormValues, type ProviderItem } from '../views/providers.js';

type ProviderForm = Static<typeof forms.ProviderForm>;

const CAP_FIELD: Record<string, string> = { method: 'method', rail: 'rail', currency: 'currency', min: 'min', max: 'max' };

/** A row field's name in the schema's words (`currency2: …`) as the page numbers it. */
const rowField = (detail: string) => detail.replace(/^(method|rail|currency|min|max)(\d*)/, (_m, k: string, n: string) => `Capability ${n || 1}, ${CAP_FIELD[k] ?? k}`);

/** The form as typed, the capability rows with anything in them. */
function providerValues(f: ProviderForm): ProviderFormValues {
  const cells = f as Record<string, string | undefined>;
  const capabilities: ProviderFormValues['capabilities'] = [];
  for (let i = 1; i <= forms.CAPABILITY_ROWS; i++) {
    const cell = (name: string) => cells[forms.rowField(name, i)] ?? '';
    const c = { method: cell('method'), rail: cell('rail'), currency: cell('currency').toUpperCase(), min: cell('min'), max: cell('max') };
    if (c.method || c.rail || c.currency || c.min || c.max) capabilities.push(c);
  }
  const requisite: Record<string, string> = {};
  for (const k of forms.REQUISITE_KEYS) {
    const v = cells[`requisite_${k}`]?.trim();
    if (v) requisite[k] = v;
  }
  return { name: f.name?.trim() ?? '', kind: f.kind ?? 'pool', priority: f.priority ?? '100', capabilities, baseUrl: f.baseUrl ?? '', key: f.key ?? '', requisite };
}

const PROVIDER_COLUMNS: CsvColumn<ProviderItem>[] = [
  { name: 'id', value: (p) => p.id },
  { name: 'name', value: (p) => p.name },
  { name: 'kind', value: (p) => p.kind },
  { name: 'priority', value: (p) => p.priority },
  { name: 'paused', value: (p) => p.paused },
  { name: 'pauseReasons', value: (p) => p.pauseReasons.join(';') },
  { name: 'openAppeals', value: (p) => p.openAppeals },
  { name: 'key', value: (p) => p.key },
  { name: 'baseUrl', value: (p) => p.baseUrl },
  {
    name: 'capabilities',
    value: (p) =>
      typeof p.capabilities === 'string'
        ? p.capabilities
        : (p.capabilities as { method: string; rail: string | null; currency: string; min: string; max: string }[]).map((c) => `${c.method}/${c.rail ?? '-'}/${c.currency}/${c.min}-${c.max}`).join(';'),
  },
  { name: 'createdAt', value: (p) => p.createdAt },
];

/** Providers and routing health; adding one of any kind, pause and resume, a new secret. */
export function providerRoutes(app: FastifyInstance, { ctx, page, act, adminPost, objectAction }: Kit): void {
  const showList = async (req: FastifyRequest, reply: FastifyReply, o: { form?: ProviderFormValues; error?: string | null; status?: number } = {}) => {
    const list = await office.providersOverview(ctx);
    return page(req, reply, (s) => providersPage(s, list, { done: doneOf(req), ...o }), o.status);
  };
  app.get('/office/providers', async (req, reply) => showList(req, reply));
  app.get('/office/providers.csv', async (req, reply) => sendCsv(ctx, reply, 'providers.csv', PROVIDER_COLUMNS, listed(() => office.providersOverview(ctx))));
  app.get('/office/providers/:id', async (req, reply) => {
    const h = await office.providerHealth(ctx, param(req, 'id'));
    return page(req, reply, (s) => providerPage(s, h, doneOf(req)));
  });

  // As POST /admin/v1/providers: a pool's generated secret is on the answer page only.
  adminPost(
    '/office/providers',
    forms.ProviderForm,
    async (req, reply) => {
      const { form, problem } = formWithProblem(req, forms.ProviderForm);
      const v = providerValues(form);
      if (problem) return showList(req, reply, { form: v, error: sentence(rowField(problem)), status: 400 });
      const input = {
        name: v.name,
        kind: v.kind,
        priority: Number(v.priority || '100'),
        capabilities: v.capabilities.map((c) => ({ method: c.method, rail: c.rail || null, currency: c.currency, min: c.min || '0', max: c.max || '0' })),
        requisites: v.kind === 'pool' && Object.keys(v.requisite).length > 0 ? [v.requisite] : [],
        baseUrl: v.kind === 'http' ? v.baseUrl || null : null,
        key: v.key || null,
        secret: form.secret || null,
      };
      try {
        if (!input.name) throw new AppError('VALIDATION_ERROR', 'Name: give the provider a name');
        if (input.priority > 1_000_000) throw new AppError('VALIDATION_ERROR', 'Priority: a whole number from 0 to 1000000');
        const created = await act(req, 'provider.create', null, (c) => createProvider(c, input), (r) => r.id);
        const secret = 'secret' in created ? (created.secret as string | undefined) : undefined;
        return page(req, reply, (s) => providerCreatedPage(s, { id: created.id, name: created.name, key: created.key, secret }), 201);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') {
          const detail = (err.detail ?? '').replace(/^capabilities\[(\d+)\]\.(\w+)/, (_m, i: string, k: string) => `Capability ${Number(i) + 1}, ${k}`).replace(/^requisites\[0\]/, 'Requisite');
          return showList(req, reply, { form: v, error: sentence(detail), status: 400 });
        }
        throw err;
      }
    },
    { invalid: 'route' },
  );

  for (const [verb, paused] of [['pause', true], ['resume', false]] as const) {
    objectAction(`/office/providers/:id/${verb}`, `provider.${verb}`, ButtonForm, (c, id) => pauseProvider(c, id, paused), (id) => `/office/providers/${id}?done=${paused ? 'paused' : 'resumed'}`);
  }
  // As POST /admin/v1/providers/{id}/secret: the new secret is on the answer page only.
  adminPost('/office/providers/:id/secret', ButtonForm, async (req, reply) => {
    const id = param(req, 'id');
    const p = await providerViewById(ctx, id);
    const creds = await act(req, 'provider.rotateSecret', id, (c) => rotateProviderSecret(c, id));
    return page(req, reply, (s) => providerSecretPage(s, p, creds));
  });
}
