import { type Html, html } from './html.ts';

/** A text field of a posted form (urlencoded or JSON); '' when absent or not text. */
export function formField(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** The hidden CSRF field every page form posts (checked by the pages' CSRF hook). */
export function csrfInput(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}" />`;
}
