import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';
import { IN_CI } from './liveGateway.js';
import { compareSurface, documentSurface, dumpedSurface, hasCommand, typescriptOperations, typescriptSchemas, typescriptSurface, type Surface } from './surface.js';

// openapi.json at the root is the one source of truth: every SDK carries every /gw/v1 operation and
// every field of the schemas those operations send and answer, found in each SDK's own code.

const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
const expected = documentSurface(doc);

describe('the document surface', () => {
  it('names the gateway operations and the schemas they reach', () => {
    expect(expected.operations).toEqual(expect.arrayContaining(['createOrder', 'getOrder', 'cancelOrder', 'openAppeal', 'getAppeal', 'getMethods', 'getRates', 'getBalance', 'listEvents']));
    expect(expected.operations.every((op) => !/^admin|simulate/i.test(op))).toBe(true);
    expect(expected.schemas.Order).toEqual(expect.arrayContaining(['id', 'orderRef', 'settled', 'subStatus', 'credited']));
    expect(expected.schemas['Appeal.amount']).toEqual(['value', 'currency']);
    expect(expected.schemas.CallbackEvent).toContain('occurredAt');
    expect(expected.schemas.PaymentByUrl).toBeUndefined();
  });

  it('fails naming the operation and the field an SDK misses when the document gains them', () => {
    const grown = structuredClone(doc);
    grown.components.schemas.Order.properties.loyaltyPoints = { type: 'integer' };
    grown.paths['/gw/v1/refunds'] = { post: { operationId: 'createRefund', responses: { '201': { content: { 'application/json': { schema: { type: 'object', properties: { result: { $ref: '#/components/schemas/Refund' } } } } } } } } };
    grown.components.schemas.Refund = { type: 'object', properties: { id: { type: 'string' } } };
    const sdk: Surface = { operations: expected.operations, schemas: expected.schemas };
    expect(compareSurface('Example SDK', expected, sdk)).toEqual([]);
    expect(compareSurface('Example SDK', documentSurface(grown), sdk)).toEqual([
      'Example SDK misses operation createRefund',
      'Example SDK misses field Order.loyaltyPoints',
      'Example SDK misses schema Refund (fields id)',
    ]);
  });

  it('reads the TypeScript SDK from its calls and its generated types, so a change there shows', () => {
    expect(typescriptOperations("this.call({ method: 'GET', path: `/gw/v1/orders/${seg(id)}`, retry: 'network' })", doc)).toEqual(['getOrder']);
    expect(typescriptOperations("this.call({ method: 'POST', path: `/gw/v1/orders/${seg(id)}`, retry: 'never' })", doc)).toEqual([]);
    expect(typescriptSchemas('export interface components { schemas: { A: { x: string; y?: { z: number }[] | null } } }')).toEqual({ A: ['x', 'y'], 'A.y': ['z'] });
  });
});

describe('every SDK covers the document', () => {
  it('TypeScript (packages/sdk)', () => {
    expect(compareSurface('The TypeScript SDK', expected, typescriptSurface(ROOT, doc))).toEqual([]);
  });

  const sdks = [
    { name: 'Python', command: 'python3', args: ['packages/sdk-python/tools/surface.py'] },
    { name: 'PHP', command: 'php', args: ['packages/sdk-php/tools/surface.php'] },
  ];
  for (const sdk of sdks) {
    const present = hasCommand(sdk.command);
    it.runIf(present || IN_CI)(`${sdk.name} (${sdk.args[0]})`, () => {
      expect(present, `${sdk.command} is not installed`).toBe(true);
      const dump = dumpedSurface(sdk.command, sdk.args, ROOT);
      expect(compareSurface(`The ${sdk.name} SDK`, expected, dump)).toEqual([]);
    });
  }
});
