import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { ManualClock } from '../clock.js';
import { parseConfig } from '../config.js';
import type { Ctx } from '../context.js';
import { createMetrics } from '../metrics.js';
import { SecretBox } from '../secretbox.js';
import { createRateLimits } from '../services/rateLimits.js';
import type { Db } from '../store/db.js';
import { buildApp } from './buildApp.js';
import { parseAllowlist } from '../callbacks/urlGuard.js';
import { dereference } from '../http/openapiComponents.js';

type Json = Record<string, any>;

/** The OpenAPI document of an app that never touches a database: routes and schemas only. */
export async function generateOpenApi(): Promise<Json> {
  const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('no database while generating the document')) }) as unknown as Db;
  const config = parseConfig({ SEED_DEMO: 'false', LOG_LEVEL: 'silent' });
  const ctx: Ctx = {
    config,
    db: unused,
    readDb: unused,
    clock: new ManualClock(),
    box: new SecretBox(randomBytes(32)),
    nonces: { claim: async () => true, prune: async () => 0 } as unknown as Ctx['nonces'],
    limits: createRateLimits(null),
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    adminTokenHash: Buffer.alloc(32),
    callbackAllowlist: parseAllowlist(''),
  };
  const app = buildApp(ctx);
  await app.ready();
  const doc = JSON.parse(JSON.stringify(app.openapiDocument())) as Json;
  await app.close();
  return doc;
}

const code = (s: unknown) => `\`${String(s)}\``;

function typeOf(s: Json | undefined): string {
  if (!s) return '';
  if (s.const !== undefined) return `"${s.const}"`;
  if (s.enum) return s.enum.map((v: unknown) => (v === null ? 'null' : `"${v}"`)).join(' \\| ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  const type = ([] as string[]).concat(s.type ?? 'any').map((x) => (x === 'array' ? `array of ${typeOf(s.items) || 'any'}` : x)).join(' \\| ');
  return s.format ? `${type} (${s.format})` : type;
}

function fieldRows(s: Json | undefined, prefix = '', out: string[] = []): string[] {
  const props = s?.properties ?? s?.items?.properties;
  if (!props) return out;
  const required = new Set<string>(s?.required ?? s?.items?.required ?? []);
  for (const [name, sub] of Object.entries<Json>(props)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const desc = String(sub.description ?? '').replace(/\n/g, ' ').replace(/\|/g, '\\|');
    out.push(`| ${code(path)}${required.has(name) ? '' : ' (optional)'} | ${typeOf(sub)} | ${desc} |`);
    if (sub.properties) fieldRows(sub, path, out);
    else if (sub.items?.properties) fieldRows(sub.items, `${path}[]`, out);
  }
  return out;
}

const table = (rows: string[]) => (rows.length ? ['| field | type | notes |', '|---|---|---|', ...rows, ''] : []);

/** The same document as Markdown, committed under docs/ so the reference reads without a running server. */
export function renderMarkdownReference(named: Json): string {
  // Every `$ref` replaced by what it names: the reference shows each operation's fields in place.
  const doc = dereference(named);
  const out: string[] = [
    `# ${doc.info.title} reference (${doc.info.version})`,
    '',
    'Generated from the route schemas (`npm run openapi`); the same document is served at `GET /openapi.json` and rendered at `GET /docs`.',
    '',
    doc.info.description,
    '',
  ];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      out.push(`## ${method.toUpperCase()} ${path}`, '', op.summary, '');
      if (op.description) out.push(op.description, '');
      if (op.security) out.push(`Auth: ${op.security.length ? op.security.map((s: Json) => Object.keys(s).join(' + ')).join(' or ') : 'none'}`, '');
      const params = (op.parameters ?? []) as Json[];
      if (params.length) {
        out.push('| parameter | in | type | notes |', '|---|---|---|---|');
        for (const p of params) out.push(`| ${code(p.name)}${p.required ? '' : ' (optional)'} | ${p.in} | ${typeOf(p.schema)} | ${String(p.description ?? p.schema?.description ?? '').replace(/\|/g, '\\|')} |`);
        out.push('');
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) out.push('Request body:', '', ...table(fieldRows(body)));
      // A body that is a file, not JSON (a bank statement): its media types and what each holds.
      else if (op.requestBody?.content) out.push('Request body, one of:', '', ...Object.entries<Json>(op.requestBody.content).map(([type, m]) => `- ${code(type)}: ${m.schema?.description ?? typeOf(m.schema)}`), '');
      for (const [status, r] of Object.entries<Json>(op.responses)) {
        out.push(`- **${status}** ${r.description}`);
      }
      out.push('');
      const ok = Object.entries<Json>(op.responses).find(([s]) => s.startsWith('2'));
      const result = ok?.[1].content?.['application/json']?.schema?.properties?.result;
      if (result) out.push('`result`:', '', ...table(fieldRows(result)));
    }
  }
  const hook = doc.webhooks?.orderEvent?.post;
  if (hook) {
    out.push('## Callbacks', '', hook.description, '', '| header | notes |', '|---|---|');
    for (const p of hook.parameters) out.push(`| ${code(p.name)} | ${String(p.description ?? typeOf(p.schema)).replace(/\|/g, '\\|')} |`);
    out.push('', 'Body:', '', ...table(fieldRows((Object.values(hook.requestBody.content)[0] as Json).schema)));
  }
  return out.join('\n') + '\n';
}
