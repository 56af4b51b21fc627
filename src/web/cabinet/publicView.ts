import { html, type Html } from '../html.js';
import { csrfInput, publicPage } from './layout.js';

/** The pages in front of the session: sign-in and sign-up. */

export function signInPage(o: { csrf: string; email: string; failed: boolean; signupOpen: boolean; notice?: string | null }): Html {
  return publicPage(
    'Sign in',
    html`<h1>Sign in to your cabinet</h1>
${o.notice ? html`<p class="notice info" role="status">${o.notice}</p>` : ''}
${o.failed ? html`<p class="notice bad" role="alert" id="sign-in-error">Wrong email or password.</p>` : ''}
<form class="card stack" method="post" action="/cabinet/sign-in">${csrfInput(o.csrf)}
<label>Email <input type="email" name="email" autocomplete="username" required value="${o.email}"${o.failed ? html` aria-describedby="sign-in-error"` : ''}></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<p><a href="/cabinet/password-reset">Forgot password?</a></p>
${o.signupOpen ? html`<p>New to Paygate? <a href="/cabinet/sign-up">Create an account</a>: you can integrate in the sandbox at once.</p>` : ''}`,
  );
}

export function signUpPage(o: { csrf: string; company: string; email: string; error: string | null }): Html {
  return publicPage(
    'Create an account',
    html`<h1>Create a merchant account</h1>
<p>Your account starts in the sandbox: create a cash desk and send test orders right away. Live payments open once we have reviewed your business.</p>
${o.error ? html`<p class="notice bad" role="alert" id="sign-up-error">${o.error}</p>` : ''}
<form class="card stack" method="post" action="/cabinet/sign-up">${csrfInput(o.csrf)}
<label>Company name <input type="text" name="company" autocomplete="organization" required minlength="2" maxlength="100" value="${o.company}"></label>
<label>Work email <input type="email" name="email" autocomplete="email" required value="${o.email}"></label>
<label>Password <span class="hint">At least 10 characters; not a common password.</span>
<input type="password" name="password" autocomplete="new-password" required minlength="10" maxlength="200"></label>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/cabinet/sign-in">Sign in</a>.</p>`,
  );
}

