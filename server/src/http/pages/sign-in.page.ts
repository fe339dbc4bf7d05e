import { type Html, html } from './html.ts';

/** GET /sign-in (and the form again after a wrong token). */
export function signInPage(next: string, error: string | null): Html {
  return html`<div class="sign-in">
    <h1>Sign in to reelshelf</h1>
    <form method="post" action="/sign-in" class="stacked">
      <input type="hidden" name="next" value="${next}" />
      <div class="field">
        <label for="token">Admin token</label>
        <input
          id="token"
          name="token"
          type="password"
          required
          autofocus
          autocomplete="current-password"
          spellcheck="false"
          aria-describedby="token-help${error === null ? '' : ' token-error'}"
          ${error === null ? null : html`aria-invalid="true"`}
        />
        <p id="token-help" class="help">
          The token is printed when the server first starts and kept in the data folder, in the file
          <code>api-token</code>.
        </p>
        ${error === null ? null : html`<p id="token-error" class="error" role="alert">${error}</p>`}
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
