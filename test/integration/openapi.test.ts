import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOpenApi, renderMarkdownReference } from '../../src/http/openapiDocument.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let doc: Record<string, any>;
let h: Harness;

beforeAll(async () => {
  doc = await generateOpenApi();
  h = await createHarness();
});
afterAll(() => h.close());

describe('the OpenAPI document', () => {
  it('is what is committed (run `npm run openapi` after changing a route schema)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    expect(doc).toEqual(committed);
    expect(readFileSync(new URL('../../docs/api-reference.md', import.meta.url), 'utf8')).toBe(renderMarkdownReference(doc));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route of the gateway, operator, payment-page and provider APIs, each with its error codes', () => {
    const served = h.app.paygateRoutes.filter((r) => /^\/(gw\/v1|admin\/v1|api\/pay|providers\/v1)\//.test(r.url));
    expect(served.length).toBeGreaterThan(40);
    for (const r of served) {
      const path = r.url.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(op['x-error-codes'].length, `${r.method} ${path}`).toBeGreaterThan(0);
      const ok = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
      expect(op.responses[ok].content['application/json'].schema.properties.result, `${r.method} ${path}`).toBeDefined();
    }
  });

  it('names the four signing headers as security schemes and the callback as a webhook with its signature', () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.values<any>(schemes).map((s) => s.name)).toEqual(expect.arrayContaining(['X-Gate-Key', 'X-Gate-Ts', 'X-Gate-Nonce', 'X-Gate-Sign']));
    expect(doc.paths['/gw/v1/orders'].post.security).toEqual([{ GateKey: [], GateTs: [], GateNonce: [], GateSign: [] }]);
    expect(doc.paths['/gw/v1/orders'].post['x-error-codes']).toEqual(expect.arrayContaining(['INVALID_CURRENCY', 'PAYOUTS_NOT_SUPPORTED', 'NO_AVAILABLE_METHOD']));
    const hook = doc.webhooks.orderEvent.post;
    expect(hook.parameters.map((p: any) => p.name)).toEqual(['User-Agent', 'X-Gate-Ts', 'X-Gate-Event-Id', 'X-Gate-Sign']);
    expect(hook.description).toContain('{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}');
    expect(Object.keys(doc.paths)).toContain('/gw/v1/events');
  });

  it('is served at /openapi.json and rendered at /docs from this origin only', async () => {
    const json = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(json.statusCode).toBe(200);
    expect(JSON.parse(json.body).openapi).toBe('3.1.0');
    const page = await h.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('/gw/v1/orders');
    expect(page.body).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    const css = await h.app.inject({ method: 'GET', url: '/docs/reference.css' });
    expect(css.statusCode).toBe(200);
  });
});
