import { type Html, html } from './html.ts';

/**
 * GET /sign-in (and the form again after a refused attempt): a name and a password. The first admin
 * may sign in with the admin token as the password (an empty name means the first admin).
 */
export function signInPage(next: string, error: string | null, name = ''): Html {
  const described = `password-help${error === null ? '' : ' sign-in-error'}`;
  return html`<div class="sign-in">
    <h1>Sign in to reelshelf</h1>
    <form method="post" action="/sign-in" class="stacked">
      <input type="hidden" name="next" value="${next}" />
      <div class="field">
        <label for="name">Name</label>
        <input
          id="name"
          name="name"
          type="text"
          value="${name}"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          maxlength="64"
        />
      </div>
      <div class="field">
        <label for="password">Password or admin token</label>
        <input
          id="password"
          name="password"
          type="password"
          required
          autofocus
          autocomplete="current-password"
          spellcheck="false"
          aria-describedby="${described}"
          ${error === null ? null : html`aria-invalid="true"`}
        />
        <p id="password-help" class="help">
          The first admin (<code>admin</code>, or an empty name) may use the admin token, printed when the
          server first starts and kept in the data folder in the file <code>api-token</code>.
        </p>
        ${error === null ? null : html`<p id="sign-in-error" class="error" role="alert">${error}</p>`}
      </div>
      <button type="submit">Sign in</button>
    </form>
  </div>`;
}

/**
 * Where to go after signing in: a path on this server only (never `//host` or a full URL, so the
 * sign-in page cannot be used to send someone elsewhere).
 */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/library';
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/library';
  if (value.startsWith('/sign-in') || value.startsWith('/sign-out')) return '/library';
  return /[\u0000-\u001f\u007f]/.test(value) ? '/library' : value;
}
