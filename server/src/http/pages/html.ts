/**
 * A tiny HTML builder for the server-rendered pages: every value put into the `html` template is
 * escaped unless it is already markup (an `Html` made by this module), so data can never become
 * markup by accident — a title `<script>…</script>` renders as text.
 */

/** Markup that is safe to insert as is (built by `html`, `raw` or `join`). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What may stand in a template slot: text is escaped, markup is kept, absent values vanish. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${title}</p>\`` escapes `title`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Trusted markup written in this code base (never data). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/**
 * A URL for an href/src attribute: server-relative paths and http(s) URLs pass, anything else
 * (`javascript:`, `data:`, protocol-relative `//host`) becomes null so it is left out.
 */
export function safeUrl(url: string | null | undefined): string | null {
  if (url === null || url === undefined || url === '') return null;
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  return /^https?:\/\//i.test(url) ? url : null;
}

/** A query string from parameters, leaving out empty values (`?a=1&b=x`, or '' when none). */
export function queryString(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') search.set(k, String(v));
  }
  const s = search.toString();
  return s === '' ? '' : `?${s}`;
}
