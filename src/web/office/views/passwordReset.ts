import { html } from '../../html.js';
import type { ResetPages } from '../../passwordReset.js';
import { csrfInput, publicPage } from '../ui.js';

/** The back office's forgotten-password pages, in front of the session (routes: web/passwordReset.ts). */
export const officeResetPages: ResetPages = {
  request: (o) =>
    publicPage(
      'Forgot password',
      html`<h1>Forgot your password?</h1>
<p>Enter the email you sign in with. We mail you a link to choose a new password; it works once, for 30 minutes. With two-factor sign-in on, the new password also needs a code from your authenticator app.</p>
${o.error ? html`<p class="notice bad" role="alert" id="reset-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/office/password-reset">${csrfInput(o.csrf)}
<label for="email">Email</label><input type="email" id="email" name="email" autocomplete="username" required maxlength="320" value="${o.email}"${o.error ? html` aria-describedby="reset-error"` : ''}>
<button type="submit">Mail me a link</button>
</form>
<p><a href="/office/sign-in">Back to sign-in</a></p>`,
    ),

  sent: () =>
    publicPage(
      'Check your mail',
      html`<h1>Check your mail</h1>
<p class="notice ok" role="status" id="reset-sent">If an operator account uses that address, a mail with a link to choose a new password is on its way.</p>
<p>The link works once, for 30 minutes. Nothing arrived within a few minutes? Look in the spam folder, check the address you typed, and <a href="/office/password-reset">ask again</a>.</p>
<p><a href="/office/sign-in">Back to sign-in</a></p>`,
    ),

  form: (o) =>
    publicPage(
      'Choose a new password',
      html`<h1>Choose a new password</h1>
<p>For ${o.email}. Saving it signs you out everywhere; then sign in with the new password${o.needsCode ? ' and your code' : ''}.</p>
${o.error ? html`<p class="notice bad" role="alert" id="reset-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/office/password-reset/${o.token}">${csrfInput(o.csrf)}
<input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
<label for="password">New password (at least 10 characters, not a common one)</label><input type="password" id="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"${o.error ? html` aria-describedby="reset-error"` : ''}>
${o.needsCode ? html`<label for="code">Two-factor code (from your authenticator app, or a recovery code)</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="40">` : ''}
<button type="submit">Save the new password</button>
</form>`,
    ),

  gone: (why) =>
    publicPage(
      'Link no longer valid',
      html`<h1>This link is no longer valid</h1>
<p class="notice bad" role="alert">${why === 'void' ? 'Too many wrong codes were tried with it.' : 'It was used already, is older than 30 minutes, or the password was changed through another link since.'} Nothing was changed with it.</p>
<p><a href="/office/password-reset">Ask for a new link</a> · <a href="/office/sign-in">Sign in</a></p>`,
    ),

  expired: () =>
    publicPage('Form expired', html`<h1>Form expired</h1><p>Reload the page and try again.</p><p><a href="/office/password-reset">Forgot password</a> · <a href="/office/sign-in">Sign in</a></p>`),
};
