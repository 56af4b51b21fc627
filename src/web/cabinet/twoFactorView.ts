import { html, raw, type Html } from '../html.js';
import { cabinetPage, csrfInput, publicPage } from './layout.js';
import type { CabinetRequest } from './session.js';

/** Two-factor sign-in pages: the code step of sign-in, the account page's card, enrolment, recovery codes. */

export function signInCodePage(o: { csrf: string; challenge: string; failed: boolean }): Html {
  return publicPage(
    'Sign-in code',
    html`<h1>Enter your sign-in code</h1>
${o.failed ? html`<p class="notice bad" role="alert" id="code-error">That code is not right, or was already used. Try the current one.</p>` : ''}
<form class="card stack" method="post" action="/cabinet/sign-in/code">${csrfInput(o.csrf)}
<input type="hidden" name="challenge" value="${o.challenge}">
<label>Code from your authenticator app <span class="hint">Six digits; or one of your recovery codes.</span>
<input type="text" name="code" autocomplete="one-time-code" required maxlength="40" autofocus${o.failed ? html` aria-describedby="code-error"` : ''}></label>
<button type="submit">Sign in</button>
</form>
<p><a href="/cabinet/sign-in">Start again</a></p>`,
  );
}

export interface TwoFactorCard {
  enabled: boolean;
  pending: boolean;
  recoveryCodesLeft: number;
}

/** The account page's card: turn on, finish enrolling, or (when on) new recovery codes and turn off. */
export function twoFactorCard(c: CabinetRequest, tf: TwoFactorCard, error: string | null): Html {
  const body = tf.enabled
    ? html`<p><span class="badge ok">On</span> Sign-in asks for a code from your authenticator app after the password.</p>
<p>${tf.recoveryCodesLeft} of 10 recovery codes left.</p>
<form class="stack" method="post" action="/cabinet/account/two-factor/recovery-codes">${csrfInput(c.csrf)}
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<div class="actions"><button type="submit" class="secondary">New recovery codes</button>
<button type="submit" class="danger" formaction="/cabinet/account/two-factor/disable">Turn off</button></div>
<p class="hint">New codes replace every old one. Both actions ask for your password.</p>
</form>`
    : tf.pending
      ? html`<p><span class="badge warn">Not finished</span> Scan the code and enter the first six digits to turn it on.</p><p><a class="button" href="/cabinet/account/two-factor">Continue</a></p>`
      : html`<p>Off. With it on, a stolen password is not enough to sign in.</p>
<form method="post" action="/cabinet/account/two-factor">${csrfInput(c.csrf)}<button type="submit">Turn on two-factor sign-in</button></form>`;
  return html`<section class="card" aria-labelledby="tf-h"><h2 id="tf-h">Two-factor sign-in</h2>
${error ? html`<p class="notice bad" role="alert">${error}</p>` : ''}
${body}</section>`;
}

/** Enrolment: the secret as a QR code and as text, and the form for the first code. */
export function enrolPage(c: CabinetRequest, e: { secret: string; uri: string; qrSvg: string }, error: string | null): Html {
  const grouped = e.secret.replace(/(.{4})(?=.)/g, '$1 ');
  return cabinetPage(
    c,
    'Turn on two-factor sign-in',
    'account',
    html`<h1>Turn on two-factor sign-in</h1>
<div class="grid two">
<section class="card" aria-labelledby="scan-h"><h2 id="scan-h">1. Add Paygate to your authenticator app</h2>
<figure class="qr" role="img" aria-label="QR code of the two-factor secret for ${c.user.email}">${raw(e.qrSvg)}</figure>
<p>Or type the key: <code class="secret" data-copy="two-factor key">${grouped}</code></p>
<p class="hint">Time-based, 6 digits, every 30 seconds (any TOTP app: 1Password, Google Authenticator, Aegis…).</p>
</section>
<form class="card stack" method="post" action="/cabinet/account/two-factor/confirm">${csrfInput(c.csrf)}
<h2>2. Enter the code it shows</h2>
${error ? html`<p class="notice bad" role="alert" id="enrol-error">${error}</p>` : ''}
<label>Code <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required${error ? html` aria-describedby="enrol-error"` : ''}></label>
<div><button type="submit">Turn on</button></div>
</form></div>`,
  );
}

/** The recovery codes, shown once. */
export function recoveryCodesPage(c: CabinetRequest, codes: readonly string[], fresh: boolean): Html {
  return cabinetPage(
    c,
    'Recovery codes',
    'account',
    html`<h1>${fresh ? 'Two-factor sign-in is on' : 'New recovery codes'}</h1>
<section class="card" aria-labelledby="rc-h"><h2 id="rc-h">Your recovery codes</h2>
<p class="notice warn">Save them now: they are shown only this once. Each one signs you in once when your phone is not at hand.</p>
<ul class="codes" data-copy="recovery codes">${codes.map((code) => html`<li>${code}</li>`)}</ul>
<p><a class="button" href="/cabinet/account">Done</a></p>
</section>`,
  );
}
