import type { AttemptView, EndpointView } from '../../services/webhookEndpoints.js';
import { html, type Html } from '../html.js';
import { snippet } from './homeView.js';
import { deskLabel } from './desksView.js';
import { cabinetPage, copyable, csrfInput, listTable, mayChange, utc } from './layout.js';
import type { DeskName } from './ordersView.js';
import type { CabinetRequest } from './session.js';

/**
 * Webhook endpoints (Standard Webhooks) in the cabinet: the list with the new-endpoint form, the
 * secret shown once, one endpoint with its actions, its settings form and its attempt log.
 */

/** The endpoint form as shown: stored values, or what was typed when it was refused. */
export interface EndpointFormValues {
  url: string;
  /** Event kinds ticked; `*` for every kind. */
  events: string[];
  allDesks: boolean;
  desks: string[];
  description: string;
}
export const EMPTY_ENDPOINT_FORM: EndpointFormValues = { url: '', events: ['*'], allDesks: true, desks: [], description: '' };

/** What each event kind reports, beside its check box. */
const KIND_HINT: Record<string, string> = {
  'order.completed': 'an order is paid and credited',
  'order.cancelled': 'an order is cancelled or expires unpaid',
  'order.appealed': 'an appeal on an order is opened or decided',
  'order.updated': 'any other change of an order',
};

/** A page of the attempt log. */
export interface AttemptsPage {
  attempts: readonly AttemptView[];
  next: string | null;
  /** The `before` this page was read with (null: the newest). */
  before: string | null;
}

/** The refusal of one of the detail page's forms, shown inside that form. */
export interface DetailProblem {
  form: 'settings' | 'rotate' | 'recover';
  text: string;
}

export function endpointState(e: Pick<EndpointView, 'enabled' | 'disabledReason'>): Html {
  return e.enabled ? html`<span class="badge ok">Enabled</span>` : html`<span class="badge bad">Disabled</span>`;
}

function eventsText(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ');
}

function desksText(e: Pick<EndpointView, 'desks'>, desks: ReadonlyMap<string, DeskName>): Html | string {
  if (e.desks === null) return 'Every desk';
  return html`<ul class="plain">${e.desks.map((id) => html`<li>${deskLabel(desks.get(id), id)}</li>`)}</ul>`;
}

/** How a receiver checks a delivery: in words, and as a few lines of Node.js. */
function verifyHelp(): Html {
  return html`<section class="card" aria-labelledby="verify-h"><h2 id="verify-h">How your server checks a delivery</h2>
<p>Every delivery is a POST with a JSON body and three headers: <code>webhook-id</code> (the event id, the same on every attempt: process each id once), <code>webhook-timestamp</code> (Unix seconds of this attempt) and <code>webhook-signature</code>.</p>
<p>The signature is <code>v1,</code> followed by the base64 of an HMAC-SHA256 over <code>webhook-id</code>, a dot, <code>webhook-timestamp</code>, a dot and the body exactly as received, keyed with the secret’s part after <code>whsec_</code>, base64-decoded. After a rotation the header carries two signatures separated by a space for 24 hours: accept the delivery when any of them matches. Refuse a timestamp more than five minutes from your clock.</p>
<p>Any Standard Webhooks library does all of this, for example the <code>standardwebhooks</code> package for Node.js:</p>
${snippet(VERIFY_SNIPPET, 'verification example')}
<p class="hint">Answer any 2xx once the event is stored. Paygate’s webhook documentation has the same check in Python and PHP, the body of each event kind and the retry schedule.</p>
</section>`;
}

const VERIFY_SNIPPET = `import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.PAYGATE_WEBHOOK_SECRET); // whsec_…
// rawBody: the request body as received, before any JSON parsing
const event = wh.verify(rawBody, {
  'webhook-id': req.headers['webhook-id'],
  'webhook-timestamp': req.headers['webhook-timestamp'],
  'webhook-signature': req.headers['webhook-signature'],
}); // throws when the signature or the time is wrong
console.log(event.type, event.data);`;

/**
 * The endpoint form: a new endpoint, or the settings of endpoint `editId`. A refusal is shown
 * inside the form, above its fields, with what was typed kept.
 */
function endpointForm(c: CabinetRequest, desks: readonly DeskName[], v: EndpointFormValues, editId: string | null, error: string | null): Html {
  const all = v.events.includes('*');
  const prefix = editId ? 'edit' : 'new';
  const errorId = `${prefix}-endpoint-error`;
  return html`<form class="card stack" method="post" action="${editId ? `/cabinet/webhooks/${editId}/settings` : '/cabinet/webhooks'}" id="${prefix}-endpoint"${error ? html` aria-describedby="${errorId}"` : ''}>${csrfInput(c.csrf)}
<h2>${editId ? 'Change the endpoint' : 'New endpoint'}</h2>
${editId ? '' : html`<p class="hint">An endpoint is a URL of yours that receives your desks’ order events, signed with a secret of its own (the Standard Webhooks format). Desk callbacks keep working beside it.</p>`}
${error ? html`<p class="notice bad" role="alert" id="${errorId}"><strong>Nothing was ${editId ? 'saved' : 'created'}.</strong> ${error}</p>` : ''}
<label>URL <span class="hint">https, a public address; checked again before every delivery.</span>
<input type="url" name="url" required maxlength="2048" value="${v.url}" placeholder="https://erp.example.com/paygate/webhooks" autocomplete="off"></label>
<fieldset class="one-per-line" aria-describedby="${prefix}-events-hint"><legend>Events</legend>
<p class="hint" id="${prefix}-events-hint">“All events” takes every kind, kinds added later included; with it ticked the others are not needed.</p>
<label><input type="checkbox" name="events" value="*"${all ? html` checked` : ''}> All events</label>
${Object.entries(KIND_HINT).map(([kind, hint]) => html`<label><input type="checkbox" name="events" value="${kind}"${!all && v.events.includes(kind) ? html` checked` : ''}> <span><code>${kind}</code> <span class="hint">(${hint})</span></span></label>`)}
</fieldset>
<fieldset class="one-per-line"><legend>Cash desks</legend>
<label><input type="radio" name="deskScope" value="all"${v.allDesks ? html` checked` : ''}> Every desk, desks created later included</label>
<label><input type="radio" name="deskScope" value="chosen"${!v.allDesks ? html` checked` : ''}> Only the desks ticked below</label>
${desks.length === 0
  ? html`<p class="hint">No cash desk yet.</p>`
  : desks.map((d) => html`<label><input type="checkbox" name="desks" value="${d.id}"${v.desks.includes(d.id) ? html` checked` : ''}> <span>${d.name} <span class="mono small">${d.id}</span></span></label>`)}
</fieldset>
<label>Description <span class="hint">Optional, for your own reference (at most 500 characters).</span>
<input type="text" name="description" maxlength="500" value="${v.description}" autocomplete="off"></label>
<div><button type="submit">${editId ? 'Save the endpoint' : 'Create endpoint'}</button></div>
</form>`;
}

export function webhooksPage(
  c: CabinetRequest,
  o: { endpoints: readonly EndpointView[]; desks: readonly DeskName[]; form: EndpointFormValues; error: string | null; notice: string | null },
): Html {
  const desks = new Map(o.desks.map((d) => [d.id, d]));
  return cabinetPage(
    c,
    'Webhooks',
    'webhooks',
    html`<h1>Webhooks</h1>
<p class="subtitle">Endpoints that receive your desks’ order events in the Standard Webhooks format, each with its own secret.</p>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${o.endpoints.length === 0
  ? html`<p class="card">No webhook endpoint yet. Your desks’ callbacks work without one; add an endpoint to send the same events to another system (an ERP, a chat bot, a data warehouse).</p>`
  : listTable<EndpointView>('Webhook endpoints, oldest first', [
      { label: 'URL', cell: (e) => html`<a class="wrap" href="/cabinet/webhooks/${e.id}">${e.url}</a>${e.description ? html`<br><span class="hint">${e.description}</span>` : ''}`, rowHeader: true },
      { label: 'Events', cell: (e) => eventsText(e.events) },
      { label: 'Desks', cell: (e) => desksText(e, desks) },
      { label: 'State', cell: (e) => html`${endpointState(e)}${e.disabledReason ? html`<br><span class="hint">${e.disabledReason}</span>` : ''}` },
      { label: 'Created (UTC)', cell: (e) => utc(e.createdAt) },
    ], o.endpoints, { wide: true, id: 'endpoints' })}
${mayChange(c) ? endpointForm(c, o.desks, o.form, null, o.error) : ''}`,
  );
}

/** The secret shown once: at creation, and after a rotation. */
function secretCard(e: EndpointView, secret: string, rotated: boolean): Html {
  return html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">${rotated ? 'The new secret' : 'The endpoint’s secret'}</h2>
<p class="notice warn" role="alert"><strong>Copy it now: it is not shown again.</strong> Store it on the server that receives the deliveries. If it is lost, rotate the secret from the endpoint’s page.</p>
${rotated ? html`<p class="notice info" id="rotation-note">The old secret keeps working for 24 hours: until then every delivery carries two signatures, one with each secret. Put the new secret on your server within that time.</p>` : ''}
<dl class="fields">
<dt>URL</dt><dd class="wrap mono">${e.url}</dd>
<dt>Endpoint id</dt><dd>${copyable(e.id, 'endpoint id', { id: 'endpoint-id' })}</dd>
<dt>Secret</dt><dd>${copyable(secret, 'secret', { id: 'endpoint-secret', secret: true })}</dd>
</dl></section>`;
}

export function endpointCreatedPage(c: CabinetRequest, e: EndpointView, secret: string): Html {
  return cabinetPage(
    c,
    'Webhook endpoint created',
    'webhooks',
    html`<h1>Webhook endpoint created</h1>
${secretCard(e, secret, false)}
${verifyHelp()}
<p><a href="/cabinet/webhooks/${e.id}">Go to the endpoint</a>: send it a test event, and follow every delivery in its attempt log.</p>`,
  );
}

export function secretRotatedPage(c: CabinetRequest, e: EndpointView, secret: string): Html {
  return cabinetPage(
    c,
    'New webhook secret',
    'webhooks',
    html`<h1>New secret for the endpoint</h1>
${secretCard(e, secret, true)}
${verifyHelp()}
<p><a href="/cabinet/webhooks/${e.id}">Back to the endpoint</a></p>`,
  );
}

const OUTCOME: Record<string, Html> = {
  delivered: html`<span class="badge ok">delivered</span>`,
  retry: html`<span class="badge warn">will retry</span>`,
  failed: html`<span class="badge bad">failed</span>`,
  interrupted: html`<span class="badge warn">interrupted</span>`,
};

function attemptsSection(e: EndpointView, page: AttemptsPage): Html {
  return html`<section class="card" aria-labelledby="attempts-h" id="attempts"><h2 id="attempts-h">Attempts</h2>
<p class="hint">Every attempt to deliver an event to this endpoint, newest first, kept 30 days. Failed attempts are retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; an answer of 410 Gone, or five days of nothing but failures, disables the endpoint.</p>
${page.attempts.length === 0
  ? html`<p class="muted">${page.before ? 'No older attempts.' : 'Nothing was sent to this endpoint yet. Send a test event to see one here.'}</p>`
  : listTable<AttemptView>('Delivery attempts, newest first', [
      { label: 'Time (UTC)', cell: (a) => utc(a.at) },
      { label: 'Event', cell: (a) => html`${a.type}<br><span class="mono small">${a.eventId}</span>` },
      { label: 'Attempt', cell: (a) => a.attempt, num: true },
      { label: 'Outcome', cell: (a) => OUTCOME[a.outcome] ?? a.outcome },
      { label: 'Status code', cell: (a) => a.statusCode ?? '—', num: true },
      { label: 'Duration', cell: (a) => (a.durationMs === null ? '—' : `${a.durationMs} ms`), num: true },
      { label: 'Error', cell: (a) => a.error ?? '—', className: 'wrap' },
      { label: 'Next attempt (UTC)', cell: (a) => utc(a.nextAttemptAt) },
    ], page.attempts, { wide: true, id: 'attempt-log' })}
${page.before || page.next
  ? html`<nav class="pager" aria-label="Pages of attempts">${page.before ? html`<a href="/cabinet/webhooks/${e.id}#attempts">Newest</a> ` : ''}${page.next ? html`<a href="/cabinet/webhooks/${e.id}?before=${page.next}#attempts" rel="next">Older attempts →</a>` : ''}</nav>`
  : ''}
</section>`;
}

/** `datetime-local` bounds and default: now and 30 days ago, to the minute, UTC. */
export interface RecoverBounds {
  min: string;
  max: string;
  value: string;
}

function actions(c: CabinetRequest, e: EndpointView, bounds: RecoverBounds, problem: DetailProblem | null): Html {
  const err = (form: DetailProblem['form']) =>
    problem?.form === form ? html`<p class="notice bad" role="alert" id="${form}-error"><strong>Nothing was done.</strong> ${problem.text}</p>` : '';
  const described = (form: DetailProblem['form']) => (problem?.form === form ? html` aria-describedby="${form}-error"` : '');
  return html`<section class="card" aria-labelledby="act-h"><h2 id="act-h">Actions</h2>
<div class="actions">
<form class="inline" method="post" action="/cabinet/webhooks/${e.id}/enabled">${csrfInput(c.csrf)}<input type="hidden" name="enabled" value="${e.enabled ? 'false' : 'true'}">
<button type="submit" class="${e.enabled ? 'danger' : ''}">${e.enabled ? 'Disable the endpoint' : 'Enable the endpoint'}</button></form>
<form class="inline" method="post" action="/cabinet/webhooks/${e.id}/test">${csrfInput(c.csrf)}<button type="submit" class="secondary">Send a test event</button></form>
</div>
<p class="hint">Disabled, the endpoint gets nothing, and events meanwhile are not queued for it: after enabling it, recover them below. A test event (<code>"type": "webhook.test"</code>) goes to this endpoint alone, signed like any delivery, even while it is disabled; its attempt shows in the log below.</p>
</section>
<form class="card stack" method="post" action="/cabinet/webhooks/${e.id}/recover" id="recover"${described('recover')}>${csrfInput(c.csrf)}
<h2>Recover missed events</h2>
<p class="hint" id="recover-hint">Sends again every event since this time that the endpoint takes and did not get: deliveries that failed for good, and events that came while it was disabled. Delivered events are not sent twice. At most 30 days back (as far as the log reaches), and not in the future.</p>
${err('recover')}
<div class="filters"><label>Since (UTC) <input type="datetime-local" name="since" value="${bounds.value}" min="${bounds.min}" max="${bounds.max}" step="60" required aria-describedby="recover-hint"></label>
<button type="submit">Recover</button></div>
</form>
<form class="card stack" method="post" action="/cabinet/webhooks/${e.id}/rotate-secret" id="rotate"${described('rotate')}>${csrfInput(c.csrf)}
<h2>Rotate the secret</h2>
<p class="hint">A new secret is made and shown once. The old one keeps working for 24 hours (each delivery carries both signatures meanwhile), so your server can switch without losing an event.</p>
${err('rotate')}
<fieldset class="one-per-line"><legend>Confirm</legend><label><input type="checkbox" name="confirm" value="yes" required> I will put the new secret on my server within 24 hours</label></fieldset>
<div><button type="submit" class="secondary">Rotate the secret</button></div>
</form>`;
}

export function endpointPage(
  c: CabinetRequest,
  e: EndpointView,
  o: { desks: readonly DeskName[]; attempts: AttemptsPage; notice: string | null; form: EndpointFormValues; problem: DetailProblem | null; recover: RecoverBounds },
): Html {
  const desks = new Map(o.desks.map((d) => [d.id, d]));
  const change = mayChange(c);
  return cabinetPage(
    c,
    `Webhook endpoint ${e.id}`,
    'webhooks',
    html`<h1>Webhook endpoint ${endpointState(e)}</h1>
<p class="subtitle">${copyable(e.id, 'endpoint id')}</p>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${!e.enabled ? html`<p class="notice warn" id="disabled-note"><strong>Disabled: ${e.disabledReason ?? 'no deliveries are sent'}.</strong> ${change ? 'Fix the receiver, enable the endpoint, then recover the events since it stopped.' : 'Ask an owner or a developer to enable it.'}</p>` : ''}
<section class="card" aria-labelledby="fields-h"><h2 id="fields-h">Endpoint</h2>
<dl class="fields">
<dt>URL</dt><dd class="wrap mono">${e.url}</dd>
<dt>Events</dt><dd>${eventsText(e.events)}</dd>
<dt>Cash desks</dt><dd>${desksText(e, desks)}</dd>
<dt>Description</dt><dd>${e.description ?? html`<span class="muted">—</span>`}</dd>
<dt>State</dt><dd>${e.enabled ? 'enabled' : `disabled: ${e.disabledReason ?? ''}`}</dd>
<dt>Created</dt><dd>${utc(e.createdAt)}</dd>
<dt>Changed</dt><dd>${utc(e.updatedAt)}</dd>
</dl>
</section>
<p><a href="/cabinet/webhooks">All endpoints</a></p>
${change ? actions(c, e, o.recover, o.problem) : ''}
${attemptsSection(e, o.attempts)}
${change ? endpointForm(c, o.desks, o.form, e.id, o.problem?.form === 'settings' ? o.problem.text : null) : ''}`,
  );
}
