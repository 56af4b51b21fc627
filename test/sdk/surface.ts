import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * One source of truth for every SDK: the operations under `/gw/v1` of the gateway's OpenAPI
 * document, and the fields of the schemas their requests and answers (`result` of the envelope)
 * reach, with the callback body the SDKs verify. An inline object is named `Parent.field`.
 * Each SDK dumps the same shape from its own code, and `compareSurface` names what it misses.
 */
export interface Surface {
  operations: string[];
  schemas: Record<string, string[]>;
}

type Schema = Record<string, any>;

const refName = (ref: string) => ref.split('/').pop()!;

export function documentSurface(doc: any): Surface {
  const all: Record<string, Schema> = doc.components?.schemas ?? {};
  const schemas: Record<string, string[]> = {};
  const operations = new Set<string>();

  function walk(name: string, s: Schema | undefined): void {
    if (!s || typeof s !== 'object') return;
    if (s.$ref) {
      const n = refName(s.$ref);
      if (!(n in schemas)) walk(n, all[n]);
      return;
    }
    if (s.items) walk(name, s.items);
    if (s.properties) {
      schemas[name] = Object.keys(s.properties);
      for (const [field, v] of Object.entries<Schema>(s.properties)) walk(`${name}.${field}`, v);
      // A schema with fields of its own uses anyOf/allOf as constraints (one of these keys is set), not as shapes.
      return;
    }
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(name, branch);
  }

  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    if (!path.startsWith('/gw/v1/') && path !== '/gw/v1') continue;
    for (const op of Object.values<any>(item)) {
      if (!op?.operationId) continue;
      operations.add(op.operationId);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) walk(body.$ref ? refName(body.$ref) : `${op.operationId}.request`, body);
      for (const [status, res] of Object.entries<any>(op.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        const envelope = res.content?.['application/json']?.schema;
        const result = envelope?.$ref ? all[refName(envelope.$ref)]?.properties?.result : envelope?.properties?.result;
        if (result) walk(result.$ref ? refName(result.$ref) : `${op.operationId}.result`, result);
      }
    }
  }
  for (const hook of Object.values<any>(doc.webhooks ?? {})) {
    for (const op of Object.values<any>(hook)) {
      const content = op?.requestBody?.content ?? {};
      const body = (Object.values<any>(content)[0] as any)?.schema;
      if (body) walk(body.$ref ? refName(body.$ref) : 'callback', body);
    }
  }
  return { operations: [...operations].sort(), schemas };
}

/** What `sdk` lacks of `doc`, one line each; empty when it covers the document. */
export function compareSurface(sdkName: string, doc: Surface, sdk: Surface): string[] {
  const problems: string[] = [];
  const have = new Set(sdk.operations);
  for (const op of doc.operations) if (!have.has(op)) problems.push(`${sdkName} misses operation ${op}`);
  for (const [name, fields] of Object.entries(doc.schemas)) {
    const got = sdk.schemas[name];
    if (!got) {
      problems.push(`${sdkName} misses schema ${name} (fields ${fields.join(', ')})`);
      continue;
    }
    const own = new Set(got);
    for (const f of fields) if (!own.has(f)) problems.push(`${sdkName} misses field ${name}.${f}`);
  }
  return problems;
}

// ---- the TypeScript SDK ------------------------------------------------------------------------

/**
 * Operations of the TypeScript SDK: the `method:`/`path:` of every call its client makes, matched
 * with the document's paths (`${…}` in the SDK stands where `{…}` stands in the document).
 */
export function typescriptOperations(clientSource: string, doc: any): string[] {
  const calls = new Set<string>();
  for (const m of clientSource.matchAll(/method:\s*'([A-Z]+)',\s*path:\s*[`'"]([^`'"]+)[`'"]/g)) {
    calls.add(`${m[1]} ${m[2].replace(/\$\{[^}]*\}/g, '{}')}`);
  }
  const ops: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (op?.operationId && calls.has(`${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`)) ops.push(op.operationId);
    }
  }
  return ops.sort();
}

/**
 * Schemas of the TypeScript SDK: the property names of `components['schemas']` in its generated
 * types (the types every SDK module takes its names from), inline objects as `Parent.field`.
 */
export function typescriptSchemas(generatedSource: string): Record<string, string[]> {
  const file = ts.createSourceFile('openapi.ts', generatedSource, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Record<string, string[]> = {};
  const literalOf = (t: ts.TypeNode | undefined): ts.TypeLiteralNode[] => {
    if (!t) return [];
    if (ts.isTypeLiteralNode(t)) return [t];
    if (ts.isArrayTypeNode(t)) return literalOf(t.elementType);
    if (ts.isParenthesizedTypeNode(t)) return literalOf(t.type);
    if (ts.isUnionTypeNode(t) || ts.isIntersectionTypeNode(t)) return t.types.flatMap(literalOf);
    return [];
  };
  const nameOf = (n: ts.PropertyName) => (ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : n.getText(file));
  function record(name: string, lit: ts.TypeLiteralNode) {
    const fields: string[] = [];
    for (const m of lit.members) {
      if (!ts.isPropertySignature(m) || !m.name) continue;
      const field = nameOf(m.name);
      fields.push(field);
      for (const inner of literalOf(m.type)) record(`${name}.${field}`, inner);
    }
    out[name] = [...new Set([...(out[name] ?? []), ...fields])];
  }
  ts.forEachChild(file, (node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'components') return;
    const schemas = node.members.find((m): m is ts.PropertySignature => ts.isPropertySignature(m) && nameOf(m.name) === 'schemas');
    for (const lit of literalOf(schemas?.type)) {
      for (const m of lit.members) {
        if (!ts.isPropertySignature(m)) continue;
        for (const inner of literalOf(m.type)) record(nameOf(m.name), inner);
      }
    }
  });
  return out;
}

export function typescriptSurface(root: string, doc: any): Surface {
  return {
    operations: typescriptOperations(readFileSync(join(root, 'packages/sdk/src/client.ts'), 'utf8'), doc),
    schemas: typescriptSchemas(readFileSync(join(root, 'packages/sdk/src/generated/openapi.ts'), 'utf8')),
  };
}

/** Runs an SDK's own dump (`python3 …/surface.py`, `php …/surface.php`) and parses its JSON. */
export function dumpedSurface(command: string, args: string[], cwd: string): Surface {
  if (!existsSync(join(cwd, args[args.length - 1]))) throw new Error(`${args[args.length - 1]} does not exist: the SDK gives no surface dump`);
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const parsed = JSON.parse(r.stdout) as Surface;
  if (!Array.isArray(parsed.operations) || typeof parsed.schemas !== 'object') throw new Error(`${command} ${args.join(' ')}: not {operations, schemas}`);
  return parsed;
}

/** Whether a command runs here (`python3 --version`, `php --version`). */
export function hasCommand(command: string): boolean {
  const r = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}
