import { html } from '../html.js';
import type { ResetPages } from '../passwordReset.js';
import { csrfInput, publicPage } from './layout.js';

/** The cabinet's forgotten-password pages, in front of the session (routes: web/passwordReset.ts). */
export const cabinetResetPages: ResetPages = {
  request: (o) =>
    publicPage(
      'Forgot password',
      html`<h1>Forgot your password?</h1>
<p>Enter the email you sign in with. We mail you a link to choose a new password; it works once, for 30 minutes.</p>
${o.error ? html`<p class="notice bad" role="alert" id="reset-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/cabinet/password-reset">${csrfInput(o.csrf)}
<label>Email <input type="email" name="email" autocomplete="username" required maxlength="320" value="${o.email}"${o.error ? html` aria-describedby="reset-error"` : ''}></label>
<button type="submit">Mail me a link</button>
</form>
<p><a href="/cabinet/sign-in">Back to sign-in</a></p>`,
    ),

  sent: () =>
    publicPage(
      'Check your mail',
      html`<h1>Check your mail</h1>
<p class="notice info" role="status" id="reset-sent">If an account uses that address, a mail with a link to choose a new password is on its way.</p>
<p>The link works once, for 30 minutes. Nothing arrived within a few minutes? Look in the spam folder, check the address you typed, and <a href="/cabinet/password-reset">ask again</a>.</p>
<p><a href="/cabinet/sign-in">Back to sign-in</a></p>`,
    ),

  form: (o) =>
    publicPage(
      'Choose a new password',
      html`<h1>Choose a new password</h1>
<p>For ${o.email}. Saving it signs you out everywhere, on every device; then sign in with the new password.</p>
${o.error ? html`<p class="notice bad" role="alert" id="reset-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/cabinet/password-reset/${o.token}">${csrfInput(o.csrf)}
<input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
<label>New password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"${o.error ? html` aria-describedby="reset-error"` : ''}></label>
${o.needsCode ? html`<label>Two-factor code <span class="hint">From your authenticator app, or a recovery code.</span>
<input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="40"></label>` : ''}
<button type="submit">Save the new password</button>
</form>`,
    ),

  gone: (why) =>
    publicPage(
      'Link no longer valid',
      html`<h1>This link is no longer valid</h1>
<p class="notice bad" role="alert">${why === 'void' ? 'Too many wrong codes were tried with it.' : 'It was used already, is older than 30 minutes, or the password was changed through another link since.'} Nothing was changed with it.</p>
<p><a href="/cabinet/password-reset">Ask for a new link</a> · <a href="/cabinet/sign-in">Sign in</a></p>`,
    ),

  expired: () =>
    publicPage(
      'Form expired',
      html`<h1>Form expired</h1><p>Reload the page and try again.</p><p><a href="/cabinet/password-reset">Forgot password</a> · <a href="/cabinet/sign-in">Sign in</a></p>`,
    ),
};
