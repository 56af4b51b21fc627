/**
 * Alerts in the back office: `/office/alerts` lists them (open first by default, or resolved, as
 * `GET /admin/v1/alerts` filters them) with the channels they are sent to, and admins add,
 * disable, enable and re-key channels there: each action the operator API's service with the
 * operator as actor. A webhook's secret is shown on the page that answers its creation (or a new
 * secret) and never again, so that page is answered directly rather than redirected to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { AppError } from '../domain/errors.js';
import { MAIL_LANGUAGES } from '../mail/templates.js';
import { ButtonForm, choice, formOf, formWithProblem, sessionForm, text } from '../web/forms.js';
import { html, type Html } from '../web/html.js';
import { param, query, str, type Kit, type OfficeNavEntry } from '../web/office/kit.js';
import { action, csrfInput, isAdmin, notice, officePage, utc, type Shell } from '../web/office/ui.js';
import { seeOther } from '../web/session.js';
import { list, noticeOf, withQuery } from '../reconciliation/pages/ui.js';
import { ALERTS_PATH, createChannel, listAlertViews, listChannelViews, openAlertCount, patchChannel, type AlertView, type ChannelView, type ChannelWithSecret } from './alerts.js';

/** Alerts on one page of the list. */
export const ALERTS_PAGE = 50;

const KIND_LABEL: Record<string, string> = {
  'unmatched-credits': 'Unmatched credits',
  statement: 'Bank statement',
  'circuit-open': 'Provider circuit',
  'requisite-limit': 'Requisite near its daily limit',
  'device-silent': 'Silent device',
  'unread-messages': 'Unread messages',
};

const LANG_LABEL: Record<string, string> = { en: 'English', ru: 'Русский', hi: 'हिन्दी', tr: 'Türkçe', ko: '한국어', kk: 'Қазақша', uz: 'Oʻzbekcha', az: 'Azərbaycanca' };

const NOTICES = {
  disabled: 'Channel disabled: it is told nothing new. Deliveries already queued still go.',
  enabled: 'Channel enabled: it is told of the next alerts raised and resolved.',
};

/** `POST /office/alerts/channels`: as `POST /admin/v1/alert-channels` takes it. */
export const ChannelForm = sessionForm({
  kind: choice(['email', 'webhook'] as const),
  name: text({ maxLength: 100 }),
  target: text({ maxLength: 2048 }),
  lang: choice(MAIL_LANGUAGES),
});
type ChannelValues = Partial<Record<'kind' | 'name' | 'target' | 'lang', string>>;

/** The navigation entry: under the queues, with the open alerts counted. */
export const alertsNav: OfficeNavEntry = { label: 'Alerts', path: ALERTS_PATH, group: 'queues', count: openAlertCount };

type State = 'open' | 'resolved';

interface AlertsPageState {
  state: State;
  alerts: { items: AlertView[]; next: string | null };
  channels: ChannelView[];
  continued: boolean;
  done?: string | null;
  /** A webhook channel just made or re-keyed: its secret, shown this once. */
  secret?: ChannelWithSecret | null;
  form?: { values: ChannelValues; error: string } | null;
}

function alertRows(items: readonly AlertView[], state: State): Html {
  if (items.length === 0) {
    return html`<p class="muted empty" id="alerts-empty">${state === 'open' ? 'No open alerts: evidence is arriving and no money is waiting.' : 'No alert has been resolved yet.'}</p>`;
  }
  return list(
    state === 'open' ? 'Open alerts, newest first' : 'Resolved alerts, newest first',
    [{ label: 'Alert' }, { label: 'What holds' }, { label: 'Raised' }, { label: state === 'open' ? 'State' : 'Resolved' }],
    items.map((a) => [
      html`<strong>${KIND_LABEL[a.kind] ?? a.kind}</strong><br><code class="ident">${a.subjectId}</code>`,
      html`<span dir="auto">${a.summary}</span>`,
      utc(a.raisedAt),
      a.resolvedAt ? utc(a.resolvedAt) : html`<span class="badge bad">open</span>`,
    ]),
    { fit: 'm', id: 'alerts' },
  );
}

function channelRows(s: Shell, channels: readonly ChannelView[]): Html {
  if (channels.length === 0) return html`<p class="muted empty" id="channels-empty">No channel yet: alerts are listed here and sent nowhere.${isAdmin(s.o) ? ' Add an email address or a webhook below.' : ''}</p>`;
  return list(
    'Alert channels',
    [{ label: 'Channel' }, { label: 'Sends to' }, { label: 'State' }, ...(isAdmin(s.o) ? [{ label: 'Actions' }] : [])],
    channels.map((c) => [
      html`<strong>${c.name}</strong><br><span class="muted">${c.kind === 'email' ? `Email, ${LANG_LABEL[c.lang ?? 'en'] ?? c.lang}` : 'Webhook (signed JSON)'}</span>`,
      html`<span class="mono">${c.target}</span>`,
      c.enabled ? html`<span class="badge ok">enabled</span>` : html`<span class="badge">disabled</span>`,
      ...(isAdmin(s.o)
        ? [
            html`${c.enabled
              ? action(s.o, `${ALERTS_PATH}/channels/${c.id}/disable`, 'Disable', { kind: 'secondary', id: `disable-${c.id}` })
              : action(s.o, `${ALERTS_PATH}/channels/${c.id}/enable`, 'Enable', { kind: 'secondary', id: `enable-${c.id}` })}
${c.kind === 'webhook' ? action(s.o, `${ALERTS_PATH}/channels/${c.id}/rotate`, 'New secret', { kind: 'secondary', id: `rotate-${c.id}` }) : ''}`,
          ]
        : []),
    ]),
    { fit: 'm', id: 'channels' },
  );
}

function channelForm(s: Shell, f: { values: ChannelValues; error: string } | null | undefined): Html {
  const v = f?.values ?? {};
  const kind = v.kind ?? 'email';
  const lang = v.lang ?? 'en';
  return html`<section aria-labelledby="add-channel"><h2 id="add-channel">Add a channel</h2>
${f?.error ? html`<p class="notice bad" role="alert" id="channel-error">${f.error}</p>` : ''}
<form method="post" action="${ALERTS_PATH}/channels" class="stack" id="channel-form">${csrfInput(s.o.csrf)}
<fieldset><legend>Kind</legend>
<div><label><input type="radio" name="kind" value="email"${kind === 'email' ? html` checked` : ''}> Email: an alert mail to one address</label></div>
<div><label><input type="radio" name="kind" value="webhook"${kind === 'webhook' ? html` checked` : ''}> Webhook: signed JSON to a URL (a chat bot, an incident tool)</label></div>
</fieldset>
<label for="ch-name">Name</label><input type="text" id="ch-name" name="name" required maxlength="100" value="${v.name ?? ''}">
<label for="ch-target">Email address or webhook URL</label><input type="text" id="ch-target" name="target" required maxlength="2048" spellcheck="false" autocomplete="off" value="${v.target ?? ''}" aria-describedby="ch-target-hint">
<p class="muted" id="ch-target-hint">A webhook URL must reach a public address; private and local addresses are refused.</p>
<label for="ch-lang">Language of the mails</label><select id="ch-lang" name="lang">${MAIL_LANGUAGES.map((l) => html`<option value="${l}"${l === lang ? html` selected` : ''}>${LANG_LABEL[l]}</option>`)}</select>
<button type="submit">Add channel</button>
</form></section>`;
}

function secretNotice(c: ChannelWithSecret): Html {
  return html`<div class="notice ok" role="status" id="channel-secret"><p>The signing secret of <strong>${c.name}</strong>, shown this once: keep it where the receiver checks signatures.</p>
<p class="secret"><code id="secret-value">${c.secret}</code></p>
<p class="muted">Each post carries <code>X-Gate-Ts</code>, <code>X-Gate-Event-Id</code> and <code>X-Gate-Sign</code>, the HMAC-SHA256 (hex) of <code>{ts}.{event id}.{body}</code> under this secret, as merchants' callbacks do.</p></div>`;
}

export function alertsPage(s: Shell, st: AlertsPageState): Html {
  const tab = (state: State, label: string) => html`<li><a href="${withQuery(ALERTS_PATH, { state: state === 'open' ? null : state })}"${state === st.state ? html` aria-current="true"` : ''}>${label}</a></li>`;
  return officePage(
    s,
    'Alerts',
    ALERTS_PATH,
    html`<h1>Alerts</h1>
<p class="muted">Told when evidence stops or money waits: credits unmatched for long, a statement that does not add up or leaves a gap, a provider's circuit open, a requisite near its daily limit, a silent phone, unread messages. Each is raised once and resolved once when it ends, and both are sent to the channels below.</p>
${notice(st.done ?? null)}
${st.secret?.secret ? secretNotice(st.secret) : ''}
<nav class="mode-switch" aria-label="Open or resolved alerts"><ul>${tab('open', 'Open')}${tab('resolved', 'Resolved')}</ul></nav>
${alertRows(st.alerts.items, st.state)}
${st.alerts.next ? html`<p class="pager"><a href="${withQuery(ALERTS_PATH, { state: st.state === 'open' ? null : st.state, before: st.alerts.next })}" rel="next">Older alerts</a></p>` : ''}
<section aria-labelledby="channels-head"><h2 id="channels-head">Channels</h2>
${channelRows(s, st.channels)}</section>
${isAdmin(s.o) ? channelForm(s, st.form) : ''}`,
  );
}

export function alertPages(app: FastifyInstance, kit: Kit): void {
  const { ctx, page, act, adminPost } = kit;

  const show = async (req: FastifyRequest, reply: FastifyReply, extra: Partial<AlertsPageState> = {}, status = 200) => {
    const q = query(req);
    const state: State = str(q.state, 20) === 'resolved' ? 'resolved' : 'open';
    const before = str(q.before, 64);
    let alerts;
    try {
      alerts = await listAlertViews(ctx, { state, before: before || undefined, limit: ALERTS_PAGE });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'VALIDATION_ERROR')) throw err;
      alerts = await listAlertViews(ctx, { state, limit: ALERTS_PAGE });
    }
    const channels = await listChannelViews(ctx);
    return page(req, reply, (s) => alertsPage(s, { state, alerts, channels, continued: before !== '', done: noticeOf(q.done, NOTICES), ...extra }), status);
  };

  app.get(ALERTS_PATH, (req, reply) => show(req, reply));

  adminPost(
    `${ALERTS_PATH}/channels`,
    ChannelForm,
    async (req, reply) => {
      const { form, problem } = formWithProblem(req, ChannelForm);
      const values: ChannelValues = { kind: form.kind, name: form.name, target: form.target, lang: form.lang };
      const refuse = (error: string) => show(req, reply, { form: { values, error } }, 400);
      if (problem) return refuse(problem);
      try {
        const c = await act(req, 'alert-channel.create', null, (x) => createChannel(x, { kind: form.kind ?? 'email', name: form.name ?? '', target: form.target ?? '', lang: form.lang }), (r) => r.id);
        return show(req, reply, { secret: c, done: `Channel ${c.name} added: it is told of the next alerts raised and resolved.` });
      } catch (err) {
        if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'INVALID_CALLBACK_URL')) return refuse(sentenceOf(err.detail));
        throw err;
      }
    },
    { invalid: 'route' },
  );

  for (const [verb, enabled] of [['disable', false], ['enable', true]] as const) {
    adminPost(`${ALERTS_PATH}/channels/:id/${verb}`, ButtonForm, async (req, reply) => {
      const id = param(req, 'id');
      formOf(req, ButtonForm);
      await act(req, 'alert-channel.update', id, (c) => patchChannel(c, id, { enabled }));
      return seeOther(reply, `${ALERTS_PATH}?done=${verb}d#channels`);
    });
  }

  adminPost(`${ALERTS_PATH}/channels/:id/rotate`, ButtonForm, async (req, reply) => {
    const id = param(req, 'id');
    formOf(req, ButtonForm);
    const c = await act(req, 'alert-channel.update', id, (x) => patchChannel(x, id, { rotateSecret: true }));
    return show(req, reply, { secret: c, done: `A new secret signs the webhooks of ${c.name} from now on; the old one no longer does.` });
  });
}

function sentenceOf(detail: string | null): string {
  const d = (detail ?? 'that channel cannot be added').replace(/^target: /, 'The address: ').replace(/^name: /, 'The name: ');
  return /[.!?]$/.test(d) ? d : `${d}.`;
}

export type ChannelFormValues = Static<typeof ChannelForm>;
