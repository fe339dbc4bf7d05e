import type { LibraryRootView, ScanReport } from '@reelshelf/contract';
import { type Html, html } from './html.ts';

export interface ScanPageData {
  roots: LibraryRootView[];
  csrf: string;
  /** A scan to show (after a scan started without JavaScript: `/scan?scan=ID`). */
  scan: ScanReport | null;
  /** The add-root form's error and the values to put back. */
  addError?: string | null;
  addValues?: { path: string; name: string; collection: string };
}

/** One line for a scan: "Scanning: 3 of 10 files" or the final counts. */
export function scanSummary(report: ScanReport): string {
  const c = report.counts;
  if (report.status === 'running') {
    const { done, total } = report.progress;
    return total === 0
      ? 'Scanning: looking for files…'
      : `Scanning: ${done} of ${total} files (${Math.floor((done / total) * 100)}%).`;
  }
  const counts = `found ${c.found}, new ${c.new}, changed ${c.changed}, moved ${c.moved}, unchanged ${c.unchanged}, missing ${c.missing}, errors ${c.errors}`;
  if (report.status === 'committed') return `Scan finished: ${counts}.`;
  if (report.status === 'cancelled') return 'Scan cancelled; nothing was changed.';
  return `Scan failed${report.message === undefined ? '' : `: ${report.message}`}.`;
}

/** The bar of a scan: moving while it runs, full once committed, hidden otherwise (as scan.js does). */
function scanBar(scan: ScanReport | null): { max: number; value: number; shown: boolean } {
  if (scan === null) return { max: 1, value: 0, shown: false };
  const max = Math.max(1, scan.progress.total);
  if (scan.status === 'committed') return { max, value: max, shown: true };
  return { max, value: Math.min(scan.progress.done, max), shown: scan.status === 'running' };
}

function scanStatus(rootId: number, scan: ScanReport | null): Html {
  const mine = scan !== null && scan.root_id === rootId ? scan : null;
  const bar = scanBar(mine);
  return html`<div
    class="scan-progress"
    data-root-id="${rootId}"
    ${mine === null ? null : html`data-scan-id="${mine.id}" data-scan-status="${mine.status}"`}
  >
    <progress
      max="${bar.max}"
      value="${bar.value}"
      ${bar.shown ? null : html`hidden`}
      aria-label="Scan progress"
    ></progress>
    <p role="status" aria-live="polite">${mine === null ? '' : scanSummary(mine)}</p>
    ${
      mine === null || mine.errors.length === 0
        ? null
        : html`<ul class="scan-errors">
            ${mine.errors.slice(0, 20).map((e) => html`<li><code>${e.path}</code>: ${e.error}</li>`)}
          </ul>`
    }
  </div>`;
}

function root(r: LibraryRootView, csrf: string, scan: ScanReport | null): Html {
  const headingId = `root-${r.id}`;
  return html`<li class="root">
    <h3 id="${headingId}">${r.name}</h3>
    <p class="root-path"><code>${r.path}</code></p>
    <p>
      ${r.file_count.toLocaleString('en')}
      files${r.collection === null ? '' : ` · collection ${r.collection}`} ·
      ${r.last_scan_at === null ? 'never scanned' : `last scanned ${r.last_scan_at.replace('T', ' ').slice(0, 16)} UTC`}
    </p>
    <form method="post" action="/scan/roots/${r.id}/scan" data-scan-form data-root-id="${r.id}">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <button type="submit">Scan ${r.name} now</button>
    </form>
    ${scanStatus(r.id, scan)}
  </li>`;
}

/** GET /scan: library roots, scans with live progress, and a form to add a root. */
export function scanPage(data: ScanPageData): Html {
  const v = data.addValues ?? { path: '', name: '', collection: '' };
  const error = data.addError ?? null;
  return html`<h1>Scan folders</h1>
    <section aria-labelledby="roots-heading">
      <h2 id="roots-heading">Library roots</h2>
      ${
        data.roots.length === 0
          ? html`<p>No folders yet. Add the folder that holds your movie files below.</p>`
          : html`<ul class="roots">
              ${data.roots.map((r) => root(r, data.csrf, data.scan))}
            </ul>`
      }
    </section>
    <section aria-labelledby="add-heading">
      <h2 id="add-heading">Add a folder</h2>
      <form method="post" action="/scan/roots" id="add-root" class="stacked" novalidate>
        <input type="hidden" name="_csrf" value="${data.csrf}" />
        <div class="field">
          <label for="root-path">Folder path (absolute, on the server)</label>
          <input
            id="root-path"
            name="path"
            type="text"
            required
            value="${v.path}"
            placeholder="/srv/media/movies"
            autocomplete="off"
            spellcheck="false"
            ${error === null ? null : html`aria-invalid="true" aria-describedby="add-root-error"`}
          />
        </div>
        <div class="field">
          <label for="root-name">Name (optional)</label>
          <input id="root-name" name="name" type="text" value="${v.name}" autocomplete="off" />
        </div>
        <div class="field">
          <label for="root-collection">Collection (optional)</label>
          <input
            id="root-collection"
            name="collection"
            type="text"
            value="${v.collection}"
            autocomplete="off"
          />
        </div>
        <p id="add-root-error" class="error" role="alert">${error ?? ''}</p>
        <button type="submit">Add folder</button>
      </form>
    </section>
    <section aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      <p><a href="/import">Import a CSV or JSON list of movies</a>, or export the library.</p>
    </section>`;
}
