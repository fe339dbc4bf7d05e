/** Small readers for untrusted JSON: they never throw, they answer null/[] when a value is unusable. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string (trimmed); numbers are accepted as their decimal text. */
export function str(obj: JsonObject, key: string): string | null {
  const v = obj[key];
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
}

/** A finite number; numeric strings are accepted. */
export function num(obj: JsonObject, key: string): number | null {
  const v = obj[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** A positive integer id. */
export function id(obj: JsonObject, key: string): number | null {
  const v = obj[key];
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null;
}

export function arr(obj: JsonObject, key: string): unknown[] {
  const v = obj[key];
  return Array.isArray(v) ? v : [];
}

export function objects(obj: JsonObject, key: string): JsonObject[] {
  return arr(obj, key).filter(isObject);
}

export function obj(value: JsonObject, key: string): JsonObject | null {
  const v = value[key];
  return isObject(v) ? v : null;
}

/** The year of an ISO date ("1999-03-31" or a full timestamp); null for "" or junk. */
export function yearOf(date: string | null): number | null {
  if (date === null) return null;
  const m = /^(\d{4})-\d{2}-\d{2}/.exec(date);
  return m === null ? null : Number(m[1]);
}

export function strings(value: JsonObject, key: string): string[] {
  return arr(value, key).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}
