import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS } from '../../src/domain/errors.js';
import { dereference, documentedRouteSchema } from '../../src/http/openapiComponents.js';
import { generateOpenApi, renderMarkdownReference } from '../../src/app/openapiDocument.js';
import { validateBands } from '../../src/services/operator.js';
import { ADMIN_TOKEN, admin, createHarness, json, type Harness } from '../helpers/harness.js';

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

  it('names its schemas in components.schemas and refers to them, so generated clients get named types', () => {
    const schemas = doc.components.schemas;
    for (const name of ['Order', 'OrderCreated', 'Appeal', 'Desk', 'Merchant', 'Balance', 'Event', 'EventsPage', 'ErrorEnvelope', 'Fault', 'ErrorCode', 'Tariff', 'Provider', 'Attempt', 'PaymentDetails', 'CallbackEvent', 'CreateOrderRequest', 'DeskPage', 'OperatorOrderPage', 'ReviewAppealPage']) {
      expect(schemas[name], name).toBeDefined();
    }
    const result = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema.properties.result;
    expect(result('/gw/v1/orders/{id}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Order' });
    expect(result('/gw/v1/orders', 'post', '201')).toEqual({ $ref: '#/components/schemas/OrderCreated' });
    expect(result('/admin/v1/desks', 'get', '200')).toEqual({ $ref: '#/components/schemas/DeskPage' });
    expect(result('/admin/v1/orders/{id}/callbacks', 'get', '200')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Attempt' } });
    expect(doc.paths['/gw/v1/orders'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateOrderRequest' });
    // A titled schema is never left inline, and every reference points at something.
    const text = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks, components: doc.components });
    expect(JSON.stringify(doc.paths)).not.toContain('"title"');
    for (const [, ref] of text.matchAll(/"\$ref":"#\/components\/(\w+\/\w+)"/g)) {
      const [kind, name] = ref.split('/');
      expect(doc.components[kind]?.[name], ref).toBeDefined();
    }
    // Every component is used somewhere.
    for (const [kind, entries] of Object.entries<Record<string, unknown>>({ schemas: doc.components.schemas, responses: doc.components.responses, headers: doc.components.headers })) {
      for (const name of Object.keys(entries)) expect(text, `${kind}/${name}`).toContain(`"#/components/${kind}/${name}"`);
    }
  });

  it('lists every code of the code table in the fault code enum, and each error status with exactly its codes', () => {
    expect(doc.components.schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(doc.components.schemas.Fault.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    const full = dereference(doc);
    for (const [path, item] of Object.entries<any>(full.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const codes: (keyof typeof ERROR_STATUS)[] = op['x-error-codes'];
        const statuses = new Set(codes.map((c) => String(ERROR_STATUS[c])));
        for (const status of statuses) {
          const schema = op.responses[status]?.content?.['application/json']?.schema;
          expect(schema, `${where} ${status}`).toBeDefined();
          const narrowed = schema.allOf[1].properties.fault.properties.code.enum;
          expect(narrowed, `${where} ${status}`).toEqual(codes.filter((c) => String(ERROR_STATUS[c]) === status));
          expect(schema.allOf[0].properties.fault.properties.code.enum, `${where} ${status}`).toEqual(Object.keys(ERROR_STATUS));
        }
        for (const status of Object.keys(op.responses)) if (Number(status) >= 400 && status !== '429') expect(statuses.has(status), `${where} ${status}`).toBe(true);
      }
    }
  });

  it('documents every status an operation answers: 500 and 503 everywhere, 413 and 415 with a body, 429 where limited, X-Trace-Id on every response', () => {
    const full = dereference(doc);
    for (const [path, item] of Object.entries<any>(full.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.responses['500']?.content, where).toBeDefined();
        expect(op.responses['503']?.content, where).toBeDefined();
        if (op.requestBody) {
          expect(op.responses['413'], where).toBeDefined();
          expect(op.responses['415']?.content['application/json'].schema.allOf[1].properties.fault.properties.code.enum, where).toContain('UNSUPPORTED_MEDIA_TYPE');
          // Every JSON request body is closed: an unknown field is refused. The one file upload takes no JSON at all.
          if (op.operationId === 'importStatement') expect(op.requestBody.content['application/json'], where).toBeUndefined();
          else expect(op.requestBody.content['application/json'].schema.additionalProperties, where).toBe(false);
        }
        for (const [status, r] of Object.entries<any>(op.responses)) {
          expect(r.headers?.['X-Trace-Id']?.schema?.type, `${where} ${status}`).toBe('string');
        }
      }
    }
    for (const [path, method] of [['/gw/v1/orders', 'post'], ['/api/pay/{id}', 'get'], ['/api/pay/{id}/payer-reference', 'post']]) {
      const r = doc.paths[path][method].responses['429'];
      expect(r, `${method} ${path}`).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    }
    const tooMany = doc.components.responses.TooManyRequests;
    expect(tooMany.content).toBeUndefined();
    expect(dereference(doc).components.responses.TooManyRequests.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    expect(doc.paths['/api/pay/{id}'].get.responses['400']).toEqual({ $ref: '#/components/responses/ValidationError' });
    expect(doc.paths['/gw/v1/orders'].post.responses['503'].content['application/json'].schema.allOf[1].properties.fault.properties.code.enum).toEqual(['NO_AVAILABLE_METHOD', 'SERVICE_UNAVAILABLE']);
  });

  it('documents the provider event body the service checks after the signature, without Fastify validating it first', async () => {
    const op = doc.paths['/providers/v1/{providerId}/events'].post;
    expect(op['x-request-body']).toBeUndefined();
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ProviderEventRequest' });
    const body = doc.components.schemas.ProviderEventRequest;
    expect(body.required).toEqual(['orderId', 'type']);
    expect(body.properties.type.enum).toEqual(['paid', 'confirmed', 'rejected', 'revoked']);
    expect(body.additionalProperties).toBe(false);
    expect(op.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    // Any route's documented body works the same way, and the route's own schema is left alone.
    const route = { operationId: 'providerCredit', 'x-request-body': { type: 'object', properties: { amount: { type: 'string' } } } };
    const shown = documentedRouteSchema(route)!;
    expect(shown.body).toEqual({ type: 'object', properties: { amount: { type: 'string' } }, additionalProperties: false, title: 'ProviderCreditRequest' });
    expect(shown['x-request-body']).toBeUndefined();
    expect(route['x-request-body']).toEqual({ type: 'object', properties: { amount: { type: 'string' } } });
    // Unsigned garbage is refused by the signature check, not by a body schema.
    const res = await h.app.inject({ method: 'POST', url: '/providers/v1/prv_unknown/events', headers: { 'content-type': 'application/json' }, payload: '{"orderId":5}' });
    expect(res.statusCode).toBe(401);
  });

  it('describes the statement upload with the file types the service reads, not JSON', async () => {
    const op = doc.paths['/admin/v1/providers/{id}/statements'].post;
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(op.requestBody.content)).toEqual(['application/xml', 'text/xml', 'text/csv', 'text/plain', 'application/octet-stream']);
    for (const [type, media] of Object.entries<any>(op.requestBody.content)) expect(media.schema, type).toMatchObject({ type: 'string', contentMediaType: type });
    expect(op.requestBody.content['text/csv'].schema.description).toContain('transactionId,account,amount,currency,receivedAt,payer,reference');
    expect(op['x-error-codes']).toEqual(expect.arrayContaining(['STATEMENT_INVALID', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE']));
    expect(readFileSync(new URL('../../docs/api-reference.md', import.meta.url), 'utf8')).toContain('- `text/csv`: a CSV file with the header row');
    // Each documented type is read as a statement: a JSON body is refused as the wrong type.
    const pool = json(await admin(h.app, 'POST', '/providers', { name: 'Doc pool', kind: 'pool', priority: 10, capabilities: [{ method: 'Classic', rail: 'C2c', currency: 'RUB', min: '0', max: '0' }], requisites: [] })).result;
    const send = (type: string, payload: string) =>
      h.app.inject({ method: 'POST', url: `/admin/v1/providers/${pool.id}/statements`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, payload });
    const csv = 'transactionId,account,amount,currency,receivedAt,payer,reference\n';
    expect((await send('text/csv', csv)).statusCode).toBe(200);
    for (const type of ['application/xml', 'text/xml']) expect(json(await send(type, '<x/>')).fault.code, type).toBe('STATEMENT_INVALID');
    expect(json(await send('application/json', '{}')).fault.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('states the business rules the service enforces: formats, bounds, the payment keys, targetBank', () => {
    const s = doc.components.schemas;
    const create = s.CreateOrderRequest;
    expect(create.properties.targetBank).toMatchObject({ type: ['string', 'null'] });
    expect(create.additionalProperties).toBe(false);
    for (const f of ['notifyUrl', 'successUrl', 'failUrl', 'backUrl']) expect(create.properties[f].format, f).toBe('uri');
    expect(s.CreateDeskRequest.properties.callbackUrl.format).toBe('uri');
    expect(s.CreateProviderRequest.properties.baseUrl.format).toBe('uri');
    for (const n of ['CreateOperatorRequest', 'CreateUserRequest']) expect(s[n].properties.email.format, n).toBe('email');
    expect(s.OperatorAccount.properties.email.format).toBe('email');
    expect(s.Order.properties.createdAt.format).toBe('date-time');
    expect(s.PaymentDetails.allOf[0].anyOf.map((v: any) => v.$ref.split('/').pop())).toEqual(['PaymentByUrl', 'PaymentByCard', 'PaymentByPhone', 'PaymentByAccount', 'PaymentByIban', 'PaymentByUpiId']);
    expect(s.PaymentByUpiId).toMatchObject({ required: ['upiId'], properties: { upiId: { type: 'string' } } });
    expect(s.PaymentDetails.required).toEqual(['url', 'card', 'phone', 'account', 'iban', 'upiId', 'holder', 'bank']);
    // The document-only keywords never reach the served document as extensions.
    expect(JSON.stringify(doc)).not.toContain('x-openapi');
  });

  it('refuses what the schema bounds with the detail the service itself answers', async () => {
    const detail = async (method: 'PUT' | 'POST', url: string, body: unknown) => {
      const res = await admin(h.app, method, url, body);
      expect(res.statusCode, url).toBe(400);
      expect(json(res).fault.code).toBe('VALIDATION_ERROR');
      return json(res).fault.detail as string;
    };
    expect(await detail('PUT', '/currencies/RUB', { spreadPercent: '100.0001' })).toBe('spreadPercent: must be at most 100');
    expect(await detail('PUT', '/currencies/RUB', { spreadPercent: '1.5.0' })).toBe('spreadPercent: must be a decimal string with at most 4 places, e.g. "10.5"');
    expect(await detail('PUT', '/rates/RUB', { rate: '0.00' })).toBe('rate: must be greater than zero');
    expect(await detail('POST', '/operators', { email: 'not-an-email', password: 'a long enough password', role: 'support' })).toBe('email: must be an email address');
    const tariff = await detail('POST', '/tariffs', { name: 't', bands: [{ fromUsd: '0', toUsd: null, ratePercent: '100.5' }] });
    let service = '';
    try {
      validateBands([{ fromUsd: '0', toUsd: null, ratePercent: '100.5' }]);
    } catch (e) {
      service = (e as AppError).detail ?? '';
    }
    expect(tariff).toBe(service);
    expect(tariff).toBe('bands[0].ratePercent: must be at most 100');
    // The bounds themselves still pass.
    expect((await admin(h.app, 'PUT', '/currencies/RUB', { spreadPercent: '100.0000' })).statusCode).toBe(200);
  });

  it('passes `redocly lint` with the recommended rules (redocly.yaml)', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const out = execFileSync(process.execPath, [`${root}node_modules/@redocly/cli/bin/cli.js`, 'lint', '--format=summary'], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      stdio: 'pipe',
      encoding: 'utf8',
    });
    expect(out).not.toMatch(/error|warning/i);
  }, 60_000);
});
