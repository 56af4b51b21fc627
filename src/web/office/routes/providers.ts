import type { FastifyInstance } from 'fastify';
import * as office from '../../../services/office.js';
import { pauseProvider } from '../../../services/providersAdmin.js';
import { ButtonForm } from '../../forms.js';
import { doneOf, param, type Kit } from '../kit.js';
import { providerPage, providersPage } from '../views/providers.js';

/** Providers and routing health; pause and resume. */
export function providerRoutes(app: FastifyInstance, { ctx, page, objectAction }: Kit): void {
  app.get('/office/providers', async (req, reply) => {
    const list = await office.providersOverview(ctx);
    return page(req, reply, (s) => providersPage(s, list, doneOf(req)));
  });
  app.get('/office/providers/:id', async (req, reply) => {
    const h = await office.providerHealth(ctx, param(req, 'id'));
    return page(req, reply, (s) => providerPage(s, h, doneOf(req)));
  });
  for (const [verb, paused] of [['pause', true], ['resume', false]] as const) {
    objectAction(`/office/providers/:id/${verb}`, `provider.${verb}`, ButtonForm, (c, id) => pauseProvider(c, id, paused), (id) => `/office/providers/${id}?done=${paused ? 'paused' : 'resumed'}`);
  }
}
