/**
 * Device messages in the back office: the unread queue (`/office/messages`), from which a person
 * makes a template or enters the credit by hand, and the templates (`/office/message-templates`)
 * with a "try it on this text" preview that works as a plain form post.
 */
import { html, type Html } from '../../web/html.js';
import { csrfInput, isAdmin, notice, officePage, utc, type Shell } from '../../web/office/ui.js';
import type { DeviceView, messageView, templateView, tryTemplates } from '../messages.js';
import type { PoolProvider } from '../queue.js';
import { RECONCILIATION_PATH } from './poolsView.js';
import { list } from './ui.js';

export const MESSAGES_PATH = '/office/messages';
export const TEMPLATES_PATH = '/office/message-templates';

export type MessageView = ReturnType<typeof messageView>;
export type TemplateView = ReturnType<typeof templateView>;
export type TryResult = Awaited<ReturnType<typeof tryTemplates>>;

/** A template form as typed, every field a string. */
export type TemplateValues = Partial<Record<'name' | 'sender' | 'pattern' | 'kind' | 'currency' | 'providerId' | 'enabled' | 'sampleSender' | 'sampleText', string>>;

const KIND_LABEL: Record<string, string> = { credit: 'Credit: money in', debit: 'Debit: skipped', other: 'Neither (balance, code): skipped' };

export function unreadPage(s: Shell, messages: readonly MessageView[], done: string | null): Html {
  return officePage(
    s,
    'Unread messages',
    MESSAGES_PATH,
    html`<h1>Unread messages</h1>${notice(done)}
<p class="muted">Bank messages the phones forwarded that no template read, oldest first. Make a template so the next ones of their kind are read, or enter the money by hand; a message that is not money can be put aside.</p>
${messages.length === 0
  ? html`<p class="muted empty" id="messages-empty">No message waits: every message forwarded was read.</p>`
  : html`<ol class="cards" id="messages">${messages.map((m) => messageCard(s, m))}</ol>`}`,
  );
}

function messageCard(s: Shell, m: MessageView): Html {
  const id = m.id;
  return html`<li class="card" id="${id}">
<p><strong>${m.sender}</strong> · <span class="muted">${m.reason ?? 'unread'}</span></p>
<blockquote class="message-text" dir="auto">${m.text}</blockquote>
<p class="muted">Received ${utc(m.receivedAt)} by <span class="mono">${m.deviceId}</span>${m.deviceKnown ? '' : ' (no device of the pool has this id)'} · pool <a href="/office/pools/${m.providerId}">${m.providerId}</a> · <span class="mono">${m.id}</span></p>
${isAdmin(s.o)
  ? html`<p><a class="button secondary" href="${TEMPLATES_PATH}/new?from=${m.id}">Make a template from it</a></p>
<details><summary>Enter the credit by hand</summary>
<form class="stack rc-form msg-form" method="post" action="${MESSAGES_PATH}/${id}/credit">${csrfInput(s.o.csrf)}
<div><label for="${id}-account">Account it arrived on</label><input type="text" id="${id}-account" name="account" required maxlength="255" autocomplete="off"></div>
<div><label for="${id}-amount">Amount</label><input type="text" id="${id}-amount" name="amount" required maxlength="20" inputmode="decimal" autocomplete="off"></div>
<div><label for="${id}-currency">Currency</label><input type="text" id="${id}-currency" name="currency" required maxlength="3" autocomplete="off"></div>
<div><label for="${id}-payer">Payer (optional)</label><input type="text" id="${id}-payer" name="payer" maxlength="255" autocomplete="off"></div>
<button type="submit">Record the credit</button></form></details>
<form class="reason-form" method="post" action="${MESSAGES_PATH}/${id}/dismiss">${csrfInput(s.o.csrf)}
<label for="${id}-why">Not money: why</label><input type="text" id="${id}-why" name="reason" required maxlength="500"><button type="submit" class="secondary">Put aside</button></form>`
  : ''}
</li>`;
}

export function templatesPage(s: Shell, templates: readonly TemplateView[], st: { done?: string | null; tried?: TryResult | null; values?: TemplateValues; error?: string | null }): Html {
  const v = st.values ?? {};
  return officePage(
    s,
    'Message templates',
    TEMPLATES_PATH,
    html`<h1>Message templates</h1>${notice(st.done ?? null)}
<p class="muted">Templates read the bank messages the phones forward into credits. Operators' templates are read first, then the built-in ones; the first that matches a message decides what it becomes.</p>
${isAdmin(s.o) ? html`<p><a class="button" href="${TEMPLATES_PATH}/new">New template</a></p>` : ''}
<section aria-labelledby="try-head"><h2 id="try-head">Try it on this text</h2>
<form class="stack wide rc-form msg-form" method="post" action="${TEMPLATES_PATH}/try" id="try-form">${csrfInput(s.o.csrf)}
<div><label for="t-sender">Sender</label><input type="text" id="t-sender" name="sampleSender" value="${v.sampleSender ?? ''}" maxlength="255" autocomplete="off"></div>
<div><label for="t-text">Message text</label><textarea id="t-text" name="sampleText" rows="4" maxlength="2000" required dir="auto">${v.sampleText ?? ''}</textarea></div>
<button type="submit">Try</button></form>
${st.error ? html`<p class="error" role="alert">${st.error}</p>` : ''}
${st.tried ? tryResult(st.tried) : ''}</section>
<h2>Templates</h2>
${list(
  'Message templates, in reading order',
  [{ label: 'Template' }, { label: 'Kind' }, { label: 'Sender' }, { label: 'Currency' }, { label: 'State' }],
  templates.map((t) => [
    html`${t.builtIn || !isAdmin(s.o) ? html`${t.name}` : html`<a href="${TEMPLATES_PATH}/${t.id}">${t.name}</a>`}<br><span class="mono muted">${t.id}</span>`,
    t.kind,
    t.sender === null ? html`<span class="muted">any</span>` : html`<code>${t.sender}</code>`,
    t.currency ?? html`<span class="muted">from the text</span>`,
    t.builtIn ? 'built in' : t.enabled ? 'on' : 'off',
  ]),
  { fit: 'm', id: 'templates' },
)}`,
  );
}

/** What each template read of the text tried, and what the message would become. */
export function tryResult(r: TryResult): Html {
  const becomes = r.becomes === 'credit' ? 'a credit' : r.becomes === 'skipped' ? 'skipped (not money in)' : 'unread: no template reads it';
  return html`<div class="preview" id="try-result" role="status"><p>This message would be <strong>${becomes}</strong>.</p>
${r.readings.length === 0
  ? html`<p class="muted">No template matches it.</p>`
  : list(
      'What each template reads',
      [{ label: 'Template' }, { label: 'Kind' }, { label: 'Amount' }, { label: 'Account' }, { label: 'Payer' }, { label: 'Bank reference' }, { label: 'Problem' }],
      r.readings.map((x) => [x.name, x.kind, x.amount ? `${x.amount} ${x.currency ?? '?'}` : '—', x.account ?? '—', x.payer ?? '—', x.bankReference ?? '—', x.problem ?? '—']),
      { fit: 'l', id: 'readings' },
    )}</div>`;
}

export function templateFormPage(s: Shell, st: { existing: TemplateView | null; values: TemplateValues; error?: string | null; tried?: TryResult | null; done?: string | null }): Html {
  const v = st.values;
  const title = st.existing ? `Template ${st.existing.name}` : 'New message template';
  const action = st.existing ? `${TEMPLATES_PATH}/${st.existing.id}` : `${TEMPLATES_PATH}/new`;
  const input = (id: string, name: keyof TemplateValues, label: string, hint: string, o: { required?: boolean; max?: number } = {}) =>
    html`<div><label for="${id}">${label}</label><span class="muted" id="${id}-hint">${hint}</span><input type="text" id="${id}" name="${name}" value="${v[name] ?? ''}" maxlength="${o.max ?? 2000}"${o.required ? html` required` : ''} aria-describedby="${id}-hint" autocomplete="off" spellcheck="false"></div>`;
  return officePage(
    s,
    title,
    TEMPLATES_PATH,
    html`<p><a href="${TEMPLATES_PATH}">← Message templates</a></p>
<h1>${title}</h1>${notice(st.done ?? null)}
${st.error ? html`<p class="error" role="alert" id="form-error">${st.error}</p>` : ''}
<form class="stack wide rc-form msg-form" method="post" action="${action}" id="template-form">${csrfInput(s.o.csrf)}
${input('m-name', 'name', 'Name', 'How operators know it, such as "Bank X: SBP received".', { required: true, max: 100 })}
${input('m-sender', 'sender', 'Sender pattern', 'The sender must match it (such as ^900$); empty: any sender.')}
<div><label for="m-pattern">Text pattern</label><span class="muted" id="m-pattern-hint">Named fields: (?&lt;amount&gt;…), (?&lt;currency&gt;…), (?&lt;account&gt;…), (?&lt;payer&gt;…), (?&lt;reference&gt;…), (?&lt;bankReference&gt;…), (?&lt;balance&gt;…). Case is ignored; no lookarounds.</span>
<textarea id="m-pattern" name="pattern" rows="4" maxlength="2000" required aria-describedby="m-pattern-hint" spellcheck="false">${v.pattern ?? ''}</textarea></div>
<div><label for="m-kind">Kind</label><select id="m-kind" name="kind">${Object.entries(KIND_LABEL).map(([k, l]) => html`<option value="${k}"${(v.kind ?? 'credit') === k ? html` selected` : ''}>${l}</option>`)}</select></div>
${input('m-currency', 'currency', 'Currency', 'An ISO code (RUB, INR …) when the text does not say; empty: read from the text.', { max: 3 })}
${input('m-provider', 'providerId', 'Pool', 'A pool\u2019s prv_ id for its messages only; empty: every pool.', { max: 128 })}
${st.existing ? html`<div class="rc-buttons"><label><input type="checkbox" name="enabled" value="true"${v.enabled === 'true' ? html` checked` : ''}> Enabled</label></div>` : ''}
<fieldset><legend>Try it on this text</legend>
${input('m-sample-sender', 'sampleSender', 'Sender', 'The sender of the sample message.', { max: 255 })}
<div><label for="m-sample-text">Message text</label><textarea id="m-sample-text" name="sampleText" rows="4" maxlength="2000" dir="auto">${v.sampleText ?? ''}</textarea></div>
</fieldset>
<div class="rc-buttons"><button type="submit" name="intent" value="preview" class="secondary">Preview</button><button type="submit" name="intent" value="save">Save template</button></div>
</form>
<div id="preview-slot" aria-live="polite">${st.tried ? tryResult(st.tried) : ''}</div>`,
  );
}

/** A pool's phones: when each was last heard from, its messages today and those unread; silent ones pause their requisites. */
export function devicesPage(
  s: Shell,
  p: PoolProvider,
  devices: readonly DeviceView[],
  requisites: readonly { id: string; label: string | null }[],
  st: { done?: string | null; error?: string | null; silenceMinutes: number; publicUrl: string; key?: { deviceId: string; signingKey: string; isNew: boolean } },
): Html {
  const labelOf = (id: string) => requisites.find((r) => r.id === id)?.label ?? id;
  const appUrl = (id: string) => `${st.publicUrl.replace(/\/+$/, '')}/providers/v1/${p.id}/devices/${id}/sms-gateway`;
  const key = st.key;
  return officePage(
    s,
    `Devices of ${p.name}`,
    RECONCILIATION_PATH,
    html`<p><a href="/office/pools/${p.id}">← ${p.name}</a></p>
<h1>Devices of ${p.name}</h1>${notice(st.done ?? null)}
${key
  ? html`<section class="card" id="signing-key" role="status" aria-labelledby="signing-key-h"><h2 id="signing-key-h">${key.isNew ? 'Device added' : 'New signing key'}: <span class="mono">${key.deviceId}</span></h2>
<p>Its signing key, shown this once: type it into the phone's app (SMS Gateway for Android: Settings → Webhooks → Signing Key)${key.isNew ? '' : '; the old key no longer works'}.</p>
<p><code class="mono" id="signing-key-value">${key.signingKey}</code></p>
<p>The app's webhook URL, for the events <code>sms:received</code> and <code>system:ping</code>: <code class="mono rc-wrap">${appUrl(key.deviceId)}</code></p></section>`
  : ''}
<p class="muted">Phones that forward the bank's messages of the pool's requisites. A device not heard from for ${st.silenceMinutes} minutes (no heartbeat, no message) is silent: its requisites take no new order until it is heard from again.</p>
${devices.length === 0
  ? html`<p class="muted empty" id="devices-empty">No device yet: the pool's money is seen through the feed and statements only.</p>`
  : list(
      `Devices of ${p.name}`,
      [{ label: 'Device' }, { label: 'State' }, { label: 'Last seen' }, { label: 'Messages today' }, { label: 'Unread' }, { label: 'Requisites' }, { label: 'Signing key' }],
      devices.map((d) => [
        html`${d.name}<br><span class="mono muted">${d.id}</span>`,
        d.state === 'silent' ? html`<strong class="bad">silent: requisites paused</strong>` : 'active',
        d.lastSeenAt ? utc(d.lastSeenAt) : html`<span class="muted">never</span>`,
        String(d.messagesToday),
        d.unread > 0 ? html`<a href="${MESSAGES_PATH}">${d.unread}</a>` : '0',
        d.requisiteIds.map((id) => labelOf(id)).join(', ') || '—',
        isAdmin(s.o)
          ? html`<form method="post" action="/office/devices/${d.id}/signing-key">${csrfInput(s.o.csrf)}<button type="submit" class="secondary">New signing key</button></form>`
          : '',
      ]),
      { fit: 'l', id: 'devices' },
    )}
${isAdmin(s.o)
  ? html`<section class="card" aria-labelledby="new-device-h"><h2 id="new-device-h">Add a device</h2>
${st.error ? html`<p class="error" role="alert">${st.error}</p>` : ''}
<form class="stack rc-form msg-form" method="post" action="/office/pools/${p.id}/devices">${csrfInput(s.o.csrf)}
<div><label for="d-name">Name</label><input type="text" id="d-name" name="name" required maxlength="100" autocomplete="off"></div>
<fieldset><legend>Requisites whose messages it forwards</legend>${requisites.map((r) => html`<div class="rc-buttons"><label><input type="checkbox" name="requisiteIds" value="${r.id}"> ${r.label ?? r.id}</label></div>`)}</fieldset>
<button type="submit">Add device</button></form></section>`
  : ''}`,
  );
}
