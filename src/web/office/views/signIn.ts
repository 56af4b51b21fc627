import { html, raw, type Html } from '../../html.js';
import { bareSignedIn, csrfInput, officePage, publicPage, type Shell } from '../ui.js';

/** Sign-in, the code step and two-factor enrolment of the back office. */

export function signInPage(o: { csrf: string; email: string; failed: boolean; notice?: string | null }): Html {
  return publicPage(
    'Sign in',
    html`<h1>Paygate back office</h1>
${o.notice ? html`<p class="notice ok" role="status">${o.notice}</p>` : ''}
${o.failed ? html`<p class="notice bad" role="alert" id="sign-in-error">Wrong email or password.</p>` : ''}
<form class="card stack" method="post" action="/office/sign-in">${csrfInput(o.csrf)}
<label for="email">Email</label><input type="email" id="email" name="email" autocomplete="username" required value="${o.email}"${o.failed ? html` aria-describedby="sign-in-error"` : ''}>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p><a href="/office/password-reset">Forgot password?</a></p>`,
  );
}

export function codePage(o: { csrf: string; challenge: string; failed: boolean }): Html {
  return publicPage(
    'Two-factor code',
    html`<h1>Enter your code</h1>
<p>Open your authenticator app and enter the 6-digit code for Paygate, or one of your recovery codes.</p>
${o.failed ? html`<p class="notice bad" role="alert" id="code-error">That code is not valid. Try the current one.</p>` : ''}
<form class="card stack" method="post" action="/office/sign-in/code">${csrfInput(o.csrf)}<input type="hidden" name="challenge" value="${o.challenge}">
<label for="code">Code</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="40"${o.failed ? html` aria-describedby="code-error"` : ''}>
<button type="submit">Continue</button>
</form>
<p><a href="/office/sign-in">Start again</a></p>`,
  );
}

export function enrolPage(s: Shell, e: { secret: string; uri: string; qrSvg: string; error: string | null; required: boolean }): Html {
  const body = html`<h1>Set up two-factor sign-in</h1>
${e.required ? html`<p class="notice warn">Operators sign in with a second factor. Set it up now: the back office opens once it is confirmed.</p>` : ''}
<ol class="steps">
<li>Scan this code with an authenticator app (any TOTP app), or type the secret.
<div class="qr">${rawSvg(e.qrSvg)}</div>
<p>Secret: <code class="secret ident" data-copy="authenticator secret" id="totp-secret">${e.secret}</code></p></li>
<li>Enter the 6-digit code the app shows.</li>
</ol>
${e.error ? html`<p class="notice bad" role="alert" id="enrol-error">${e.error}</p>` : ''}
<form class="card stack" method="post" action="/office/two-factor">${csrfInput(s.o.csrf)}
<label for="code">Code from the app</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8"${e.error ? html` aria-describedby="enrol-error"` : ''}>
<button type="submit">Confirm</button>
</form>`;
  return e.required ? bareSignedIn(s, 'Two-factor sign-in', body) : officePage(s, 'Two-factor sign-in', null, body);
}


const rawSvg = (svg: string) => raw(svg);

export function recoveryCodesPage(s: Shell, codes: readonly string[]): Html {
  return officePage(
    s,
    'Recovery codes',
    null,
    html`<h1>Two-factor sign-in is on</h1>
<p class="notice ok" role="status">Keep these recovery codes somewhere safe. Each signs you in once if you lose your phone. They are shown only now.</p>
<ul class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a class="button" href="/office">Continue to the back office</a></p>`,
  );
}

export function twoFactorStatusPage(s: Shell, st: { enabled: boolean; recoveryCodesLeft: number }): Html {
  return officePage(
    s,
    'Two-factor sign-in',
    null,
    html`<h1>Two-factor sign-in</h1>
${st.enabled ? html`<p><span class="badge ok">On</span> ${st.recoveryCodesLeft} recovery codes left.</p>` : html`<p><span class="badge warn">Off</span> <a href="/office/two-factor?setup=1">Set it up</a>.</p>`}`,
  );
}

