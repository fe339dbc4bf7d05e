/** The content codings the listing is kept in. */
export type ListingCoding = 'br' | 'gzip' | 'identity';

/**
 * The coding to answer in (RFC 9110 §12.5.3): the client's highest-q coding among those offered,
 * `*` standing for any coding it did not name; ties go to the order of `offered` (smaller first), and
 * identity wins only when the client ranks it above them.
 * Identity is acceptable unless excluded (`identity;q=0`, or `*;q=0` without naming it); even then it
 * is what the client gets when nothing else is acceptable (a body it may refuse beats a 406).
 */
export function preferredCoding(
  header: string | readonly string[] | undefined,
  offered: readonly Exclude<ListingCoding, 'identity'>[] = ['br', 'gzip'],
): ListingCoding {
  const text = header === undefined ? '' : typeof header === 'string' ? header : header.join(',');
  if (text.trim() === '') return 'identity';
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (name === '') continue;
    let weight = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/.exec(p);
      if (m?.[1] !== undefined) weight = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    // x-gzip is gzip (RFC 9110 §8.4.1.3).
    const coding = name === 'x-gzip' ? 'gzip' : name;
    q.set(coding, Math.max(q.get(coding) ?? 0, weight));
  }
  const star = q.get('*');
  let best: ListingCoding = 'identity';
  let bestQ = 0;
  for (const coding of offered) {
    const weight = q.get(coding) ?? star ?? 0;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  // A client that names identity above every offered coding gets identity.
  const identity = q.get('identity');
  return identity !== undefined && identity > bestQ ? 'identity' : best;
}
