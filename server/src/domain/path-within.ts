import { sep } from 'node:path';

/** True when `inner` is `outer` or lies inside it (paths already real and normalised). */
export function isWithin(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  const prefix = outer.endsWith(sep) ? outer : `${outer}${sep}`;
  return inner.startsWith(prefix);
}
