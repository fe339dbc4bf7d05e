import { type Html, html } from './html.ts';

/** A text field of a posted form (urlencoded or JSON); '' when absent or not text. */
export function formField(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * A row id from a form field, a path parameter or a query: 1 to 2^31 - 1 written as digits, else
 * null. Past that no id column holds it (PostgreSQL refuses the parameter: a 500, not a 404).
 */
export function positiveId(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= 2147483647 ? n : null;
}

/** The hidden CSRF field every page form posts (checked by the pages' CSRF hook). */
export function csrfInput(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}" />`;
}
