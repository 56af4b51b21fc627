import { html, type Html } from '../../html.js';
import { columnChart, rateTone } from '../charts.js';
import { METHODS } from '../../../domain/catalogue.js';
import { ALL_RAILS } from '../../../services/office.js';
import { CAPABILITY_ROWS, REQUISITE_KEYS, rowField } from '../forms.js';
import { action, auditSection, rowLabel, csrfInput, ident, isAdmin, money, notice, officePage, statusBadge, table, type Fn, type Shell } from '../ui.js';

/** Providers and routing health: the live methods picture, each provider's circuits, pauses and success rate. */

export type ProviderItem = Fn<'providerHealth'>['provider'];
type Capabilities = { method: string; rail: string | null; currency: string; min: string; max: string }[];

export function providersPage(
  s: Shell,
  list: readonly (ProviderItem & { series: Fn<'providerDailySuccess'> })[],
  o: { done: string | null; form?: ProviderFormValues; error?: string | null },
): Html {
  return officePage(
    s,
    'Providers',
    'providers',
    html`<h1>Providers and routing health</h1>${notice(o.done)}
<p class="muted">The cascade asks providers by priority (lower first) and skips paused ones and open circuits.</p>
${methodsPicture(list)}
<p class="list-tools"><a class="button secondary" href="/office/providers.csv" download>Export CSV</a></p>
<ul class="queue">${list.map((p) => html`<li class="card">${providerSummary(s, p)}
${successChart(`chart-${p.id}`, p.name, p.series)}</li>`)}</ul>
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="new-provider-h"><h2 id="new-provider-h">Add a provider</h2>
${o.error ? html`<p class="notice bad" role="alert" id="provider-error">${o.error}</p>` : ''}
${providerForm(s, o.form ?? EMPTY_PROVIDER)}</section>`
  : ''}`,
  );
}

/** What the new-provider form holds as typed, for showing it again with a refusal. */
export interface ProviderFormValues {
  name: string;
  kind: string;
  priority: string;
  capabilities: { method: string; rail: string; currency: string; min: string; max: string }[];
  baseUrl: string;
  key: string;
  requisite: Record<string, string>;
}

export const EMPTY_PROVIDER: ProviderFormValues = { name: '', kind: 'pool', priority: '100', capabilities: [], baseUrl: '', key: '', requisite: {} };

const REQUISITE_LABELS: Record<string, string> = {
  phone: 'Phone (E.164)',
  card: 'Card number',
  account: 'Account number',
  iban: 'IBAN',
  upiId: 'UPI id',
  url: 'Payment link',
  holder: 'Holder name',
  bank: 'Bank',
};

/** The new-provider form: the fields of `POST /admin/v1/providers`, capabilities as rows, a pool's first requisite. */
function providerForm(s: Shell, v: ProviderFormValues): Html {
  const rows = Array.from({ length: CAPABILITY_ROWS }, (_, i) => v.capabilities[i] ?? { method: '', rail: '', currency: '', min: '', max: '' });
  const shown = Math.min(CAPABILITY_ROWS, Math.max(v.capabilities.length + 2, 3));
  const opt = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<form class="stack wide" method="post" action="/office/providers" id="new-provider">${csrfInput(s.o.csrf)}
<label for="provider-name">Name</label><input type="text" id="provider-name" name="name" required maxlength="200" value="${v.name}">
<fieldset class="checks"><legend>Kind</legend>
<label class="check"><input type="radio" name="kind" value="pool"${v.kind !== 'http' ? html` checked` : ''}> pool: the platform's own requisites, payments confirmed by operators or a credit feed</label>
<label class="check"><input type="radio" name="kind" value="http"${v.kind === 'http' ? html` checked` : ''}> http: an external provider through the generic connector</label></fieldset>
<label for="provider-priority">Priority (lower is tried first)</label><input type="text" id="provider-priority" name="priority" inputmode="numeric" size="8" maxlength="7" value="${v.priority}">
<fieldset class="bands"><legend>Capabilities: what it serves (rail "none" for methods without rails; min and max in the customer's currency, 0 = unbounded)</legend>
${rows.slice(0, shown).map((c, i) => {
  const n = i + 1;
  return html`<div class="band" role="group" aria-label="Capability ${n}"><span class="band-no" aria-hidden="true">${n}</span>
<div><label for="cap-method-${n}">${rowLabel('Capability', n)}Method</label><select id="cap-method-${n}" name="${rowField('method', n)}">${opt('', '—', c.method)}${METHODS.map((m) => opt(m, m, c.method))}</select></div>
<div><label for="cap-rail-${n}">${rowLabel('Capability', n)}Rail</label><select id="cap-rail-${n}" name="${rowField('rail', n)}">${opt('', 'none', c.rail)}${ALL_RAILS.map((r) => opt(r, r, c.rail))}</select></div>
<div><label for="cap-currency-${n}">${rowLabel('Capability', n)}Currency</label><input type="text" id="cap-currency-${n}" name="${rowField('currency', n)}" size="4" maxlength="3" value="${c.currency}" placeholder="RUB"></div>
<div><label for="cap-min-${n}">${rowLabel('Capability', n)}Min</label><input type="text" id="cap-min-${n}" name="${rowField('min', n)}" inputmode="decimal" size="8" value="${c.min}" placeholder="0"></div>
<div><label for="cap-max-${n}">${rowLabel('Capability', n)}Max</label><input type="text" id="cap-max-${n}" name="${rowField('max', n)}" inputmode="decimal" size="8" value="${c.max}" placeholder="0"></div></div>`;
})}</fieldset>
<fieldset class="checks" data-kind="http"><legend>http: the connector</legend>
<label for="provider-base">Base URL (absolute http(s))</label><input type="url" id="provider-base" name="baseUrl" maxlength="2048" value="${v.baseUrl}" placeholder="https://provider.example/api">
<label for="provider-key">Key (http: required; pool: the credit feed's key, generated when empty)</label><input type="text" id="provider-key" name="key" maxlength="256" value="${v.key}" autocomplete="off">
<label for="provider-secret">Secret (http: required; pool: generated when empty and shown once)</label><input type="password" id="provider-secret" name="secret" maxlength="512" autocomplete="new-password"></fieldset>
<fieldset class="checks" data-kind="pool"><legend>pool: its first requisite (optional; more on the requisite pages)</legend>
<div class="filters">${REQUISITE_KEYS.map((k) => html`<div><label for="req-${k}">${REQUISITE_LABELS[k] ?? k}</label><input type="text" id="req-${k}" name="requisite_${k}" maxlength="255" value="${v.requisite[k] ?? ''}"></div>`)}</div></fieldset>
<button type="submit">Add the provider</button></form>`;
}

/** The answer to a new provider: its id and key, and a pool's generated secret, shown this once. */
export function providerCreatedPage(s: Shell, p: { id: string; name: string; key: string | null; secret?: string }): Html {
  return officePage(
    s,
    `Provider ${p.name} added`,
    'providers',
    html`<h1>Provider added</h1>
<p class="notice ok" role="status">${p.name} is in the cascade from now on.${p.secret ? ' Its credit feed signs with the key and secret below: the secret is shown only now.' : ''}</p>
<section class="card"><dl class="fields"><dt>Provider id</dt><dd><code class="ident" id="provider-id" data-copy="provider id">${p.id}</code></dd>
${p.key ? html`<dt>Key</dt><dd><code class="ident" id="provider-key" data-copy="provider key">${p.key}</code></dd>` : ''}
${p.secret ? html`<dt>Secret</dt><dd><code class="ident secret" id="provider-secret" data-copy="provider secret">${p.secret}</code></dd>` : ''}</dl>
<p><a href="/office/providers/${p.id}">Open the provider</a> · <a href="/office/providers">All providers</a></p></section>`,
  );
}

/** The answer to a new secret of a provider: shown this once; the old one fails from now on. */
export function providerSecretPage(s: Shell, p: { id: string; name: string }, c: { key: string; secret: string }): Html {
  return officePage(
    s,
    `New secret of ${p.name}`,
    'providers',
    html`<h1>New secret of ${p.name}</h1>
<p class="notice ok" role="status">The old secret fails from now on. Give the new one to whoever signs for ${p.name}: it is shown only now.</p>
<section class="card"><dl class="fields"><dt>Key</dt><dd><code class="ident" id="provider-key" data-copy="provider key">${c.key}</code></dd>
<dt>Secret</dt><dd><code class="ident secret" id="provider-secret" data-copy="provider secret">${c.secret}</code></dd></dl>
<p><a href="/office/providers/${p.id}">Back to the provider</a></p></section>`,
  );
}

/** Live methods across providers: each capability (method, rail, currency) and who serves it right now. */
function methodsPicture(list: readonly ProviderItem[]): Html {
  const live = list.filter((p) => typeof p.capabilities !== 'string');
  const rows = new Map<string, { method: string; rail: string | null; currency: string }>();
  for (const p of live) for (const c of p.capabilities as Exclude<ProviderItem['capabilities'], string>) rows.set(`${c.method}|${c.rail ?? ''}|${c.currency}`, c);
  const cell = (p: ProviderItem, c: { method: string; rail: string | null; currency: string }): { text: string; tone: 'ok' | 'warn' | 'bad' } | null => {
    const caps = p.capabilities as Exclude<ProviderItem['capabilities'], string>;
    if (!caps.some((x) => x.method === c.method && x.rail === c.rail && x.currency === c.currency)) return null;
    if (p.paused) return { text: 'paused', tone: 'bad' };
    const state = p.circuits.find((x) => x.method === c.method && x.rail === c.rail)?.state ?? 'closed';
    return state === 'closed' ? { text: 'serving', tone: 'ok' } : { text: `circuit ${state}`, tone: state === 'open' ? 'bad' : 'warn' };
  };
  const sorted = [...rows.values()].sort((x, y) => `${x.method}${x.rail}${x.currency}`.localeCompare(`${y.method}${y.rail}${y.currency}`));
  return html`<section class="card" aria-labelledby="picture-h"><h2 id="picture-h">Live methods picture</h2>
${table(
  'Live methods across providers',
  ['Method', 'Rail', 'Currency', 'Live now', ...live.map((p) => p.name)],
  sorted.map((c) => {
    const cells = live.map((p) => cell(p, c));
    const serving = cells.some((x) => x?.tone === 'ok' || x?.tone === 'warn');
    return [
      c.method,
      c.rail ?? '—',
      c.currency,
      serving ? html`<span class="badge ok">yes</span>` : html`<span class="badge bad">no</span>`,
      ...cells.map((x) => (x ? html`<span class="badge ${x.tone}">${x.text}</span>` : html`<span class="muted">—</span>`)),
    ];
  }),
  'No live provider yet: only sandbox orders are served.',
)}
<p class="muted">Sandbox orders go to the sandbox provider, whatever the method.</p></section>`;
}

function successChart(id: string, name: string, series: Fn<'providerDailySuccess'>): Html {
  return columnChart({
    id,
    title: `${name}: completed of served orders per day, last 14 days`,
    unit: 'Success rate',
    max: 100,
    bars: series.map((d) => ({ label: d.day.slice(8), full: d.day, value: d.percent, text: `${d.percent} % (${d.completed}/${d.placed})`, tone: rateTone(d.percent) })),
  });
}

function providerSummary(s: Shell, p: ProviderItem): Html {
  return html`<h2><a href="/office/providers/${p.id}">${p.name}</a> ${p.paused ? html`<span class="badge bad">Paused</span>` : html`<span class="badge ok">Serving</span>`}</h2>
<dl class="fields"><dt>Id</dt><dd>${ident(p.id, 'provider id')}</dd><dt>Kind, priority</dt><dd>${p.kind}, ${p.priority}</dd>
${p.key ? html`<dt>Key</dt><dd>${ident(p.key, 'provider key')}</dd>` : ''}${p.baseUrl ? html`<dt>Base URL</dt><dd class="mono">${p.baseUrl}</dd>` : ''}
<dt>Pause reasons</dt><dd>${p.pauseReasons.length === 0 ? 'none' : p.pauseReasons.map((r) => (r === 'appeals' ? html`<span class="badge bad">appeal guard: ${p.openAppeals} open appeals</span> ` : html`<span class="badge warn">paused by an operator</span> `))}</dd>
<dt>Open appeals</dt><dd>${p.openAppeals}</dd>
<dt>Circuits</dt><dd>${p.circuits.length === 0 ? html`<span class="muted">all closed (no failures recorded)</span>` : html`<ul class="plain">${p.circuits.map((c) => html`<li>${c.method}${c.rail ? html` · ${c.rail}` : ''}: ${statusBadge(c.state)}</li>`)}</ul>`}</dd></dl>
${isAdmin(s.o) ? html`<div class="actions">${p.pauseReasons.includes('manual') ? action(s.o, `/office/providers/${p.id}/resume`, 'Resume', { kind: 'secondary' }) : action(s.o, `/office/providers/${p.id}/pause`, 'Pause', { kind: 'danger' })}
${p.kind !== 'sandbox' ? action(s.o, `/office/providers/${p.id}/secret`, 'Issue a new secret', { kind: 'danger' }) : ''}</div>` : ''}`;
}

export function providerPage(s: Shell, h: Fn<'providerHealth'>, done: string | null): Html {
  const p = h.provider;
  return officePage(
    s,
    p.name,
    'providers',
    html`<h1>Provider ${p.name}</h1>${notice(done)}
<section class="card">${providerSummary(s, p)}</section>
<section class="card" aria-labelledby="rate-h"><h2 id="rate-h">Success rate over time</h2>
${successChart('chart-provider-days', p.name, h.series)}</section>
${p.kind === 'pool' ? html`<section class="card" aria-labelledby="pool-h"><h2 id="pool-h">Requisites and reconciliation</h2>
<p>The pool's requisites, the money they received, its unmatched credits, statement uploads and day reports: <a href="/office/pools/${p.id}">open the pool</a>.</p></section>` : ''}
<section class="card" aria-labelledby="methods-h"><h2 id="methods-h">What it serves</h2>
${typeof p.capabilities === 'string'
  ? html`<p>Every method and rail (sandbox).</p>`
  : table(
      `Capabilities of ${p.name}`,
      ['Method', 'Rail', 'Currency', { label: 'Min', kind: 'num' }, { label: 'Max', kind: 'num' }],
      (p.capabilities as Capabilities).map((c) => [c.method, c.rail ?? '—', c.currency, c.min === '0' ? 'unbounded' : money(c.min, c.currency), c.max === '0' ? 'unbounded' : money(c.max, c.currency)]),
      'Nothing.',
    )}</section>
${auditSection(h.audit, p.id)}`,
  );
}

