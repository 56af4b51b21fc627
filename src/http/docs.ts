import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { dereference } from './openapiComponents.js';

type Json = Record<string, any>;

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `code` spans and line breaks of the descriptions, escaped first. */
const prose = (v: unknown): string =>
  esc(v)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\n\n/g, '</p><p>')
    .replace(/\n/g, '<br>');

function typeOf(s: Json): string {
  if (!s) return '';
  if (s.const !== undefined) return `"${s.const}"`;
  if (s.enum) return s.enum.map((v: unknown) => (v === null ? 'null' : `"${v}"`)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  const t = ([] as string[]).concat(s.type ?? 'any');
  return t.map((x) => (x === 'array' ? `array of ${typeOf(s.items) || 'any'}` : x)).join(' | ');
}

/** A schema as a table of fields, nested objects indented by their path. */
function fields(s: Json, prefix = '', rows: string[] = []): string[] {
  const props = s?.properties ?? (s?.type === 'array' || (Array.isArray(s?.type) && s.type.includes('array')) ? s.items?.properties : null);
  if (!props) return rows;
  const required = new Set<string>(s.required ?? s.items?.required ?? []);
  for (const [name, sub] of Object.entries<Json>(props)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const extra = [sub.format ? `format ${sub.format}` : '', sub.pattern ? `pattern \`${sub.pattern}\`` : '', sub.minLength !== undefined ? `min length ${sub.minLength}` : '', sub.maxLength !== undefined ? `max length ${sub.maxLength}` : '', sub.minimum !== undefined ? `min ${sub.minimum}` : '', sub.maximum !== undefined ? `max ${sub.maximum}` : '']
      .filter(Boolean)
      .join(', ');
    rows.push(
      `<tr><td><code>${esc(path)}</code>${required.has(name) ? '' : ' <small>optional</small>'}</td><td>${esc(typeOf(sub))}</td><td>${prose(sub.description ?? '')}${extra ? ` <small>${prose(extra)}</small>` : ''}</td></tr>`,
    );
    const inner = sub.type === 'object' || sub.properties ? sub : sub.items?.properties ? sub.items : null;
    if (inner) fields(inner, sub.items?.properties ? `${path}[]` : path, rows);
  }
  return rows;
}

const table = (rows: string[]) => (rows.length ? `<table><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : '');

function operation(method: string, path: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries<Json>(op.responses ?? {});
  const anchor = op.operationId ?? `${method}-${path}`;
  return `<section class="op" id="${esc(anchor)}">
<h3><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${prose(op.summary)}</p>${op.description ? `<p>${prose(op.description)}</p>` : ''}
${op.security ? `<p class="sec">Auth: ${op.security.length ? esc(op.security.map((s: Json) => Object.keys(s).join(' + ')).join(' or ')) : 'none'}</p>` : ''}
${params.length ? `<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th>notes</th></tr></thead><tbody>${params
    .map((p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? '' : ' <small>optional</small>'}</td><td>${esc(p.in)}</td><td>${esc(typeOf(p.schema))}</td><td>${prose(p.description ?? p.schema?.description ?? '')}</td></tr>`)
    .join('')}</tbody></table>` : ''}
${body ? `<h4>Request body</h4>${body.description ? `<p>${prose(body.description)}</p>` : ''}${table(fields(body))}` : ''}
<h4>Responses</h4>
${responses
  .map(([status, r]) => {
    const schema = r.content?.['application/json']?.schema;
    const result = schema?.properties?.result;
    return `<div class="resp"><p><strong>${esc(status)}</strong> ${prose(r.description)}</p>${status.startsWith('2') && result ? table(fields(result.type === 'array' ? result : result)) : ''}</div>`;
  })
  .join('\n')}
</section>`;
}

export function renderReference(named: Json): string {
  // Every `$ref` replaced by what it names: each operation shows its fields in place.
  const doc = dereference(named);
  const ops: string[] = [];
  const toc: string[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      ops.push(operation(method, path, op));
      toc.push(`<li><a href="#${esc(op.operationId ?? `${method}-${path}`)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`);
    }
  }
  const webhook = doc.webhooks?.orderEvent?.post;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info?.title)} reference</title><link rel="stylesheet" href="/docs/reference.css"></head><body>
<header><h1>${esc(doc.info?.title)} <small>${esc(doc.info?.version)}</small></h1><p><a href="/openapi.json">openapi.json</a></p></header>
<main><section><p>${prose(doc.info?.description)}</p></section>
<nav aria-label="Operations"><h2>Operations</h2><ul>${toc.join('')}</ul></nav>
<h2>Operations</h2>${ops.join('\n')}
${webhook ? `<h2>Callbacks</h2><section class="op" id="callbacks"><h3>POST <code>your callback URL</code></h3><p>${prose(webhook.description)}</p><h4>Headers</h4><table><tbody>${(webhook.parameters as Json[]).map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${prose(p.description ?? typeOf(p.schema))}</td></tr>`).join('')}</tbody></table><h4>Body</h4>${table(fields(Object.values<Json>(webhook.requestBody.content)[0].schema))}</section>` : ''}
</main></body></html>`;
}

const CSS = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}header,main{max-width:64rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid #ddd}h1 small{color:#666;font-weight:400}code{font:13px ui-monospace,monospace;background:#eef;padding:0 .2em;border-radius:3px}
.op{background:#fff;border:1px solid #ddd;border-radius:6px;padding:0 1rem 1rem;margin:1rem 0}table{border-collapse:collapse;width:100%;font-size:14px}
td,th{border-top:1px solid #eee;padding:.3rem .5rem;text-align:left;vertical-align:top}.m{display:inline-block;min-width:4.5em;font-size:13px;color:#fff;background:#555;border-radius:3px;padding:0 .4em;text-align:center}
.m-get{background:#1f6feb}.m-post{background:#1a7f37}.m-put,.m-patch{background:#9a6700}.m-delete{background:#cf222e}.sec{color:#555;font-size:14px}nav ul{columns:2;font-size:14px}a{color:#0550ae}`;

/** `GET /openapi.json` and `GET /docs`: the API description and its reference, from this server, nothing from elsewhere. */
export function docsRoutes(_version: string): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    let html: string | null = null;
    app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => reply.header('Cache-Control', 'no-cache').send(app.swagger()));
    app.get('/docs', { schema: { hide: true } }, async (_req, reply) => {
      html ??= renderReference(app.swagger() as Json);
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        .send(html);
    });
    app.get('/docs/reference.css', { schema: { hide: true } }, async (_req, reply) => reply.header('Content-Type', 'text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(CSS));
  };
}
