/**
 * Content negotiation for the routes that are both an API and a page (`GET /library`): HTML only
 * when the client ranks text/html above application/json (a browser's navigation does; fetch's
 * default `*\/*`, curl and the typed client do not). A tie goes to JSON, the API's default.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    const [type, subtype] = range.toLowerCase().split('/');
    if (type === undefined || type === '' || subtype === undefined || subtype === '') continue;
    let q = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/i.exec(p);
      if (m?.[1] !== undefined) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    out.push({ type, subtype, q });
  }
  return out;
}

/** The quality the Accept ranges give one media type: the most specific matching range wins. */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : 0;
    const matches = s > 0 || (r.type === '*' && r.subtype === '*');
    if (matches && s > specificity) {
      specificity = s;
      best = r.q;
    }
  }
  return best < 0 ? 0 : best;
}

/** True when the Accept header prefers text/html to application/json. */
export function prefersHtml(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (header === undefined || header.trim() === '') return false;
  const ranges = parseAccept(header);
  const htmlQ = qualityOf(ranges, 'text', 'html');
  return htmlQ > 0 && htmlQ > qualityOf(ranges, 'application', 'json');
}
