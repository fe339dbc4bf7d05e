import { type Html, html } from './html.ts';

/**
 * GET /import: choose a CSV (or a JSON export), check it (a dry run lists every bad row), then import
 * it. The checking and importing is done by import.js against POST /api/import; the export links are
 * plain downloads.
 */
export function importPage(): Html {
  return html`<h1>Import and export</h1>
    <section aria-labelledby="import-heading">
      <h2 id="import-heading">Import a collection</h2>
      <p class="help">
        A CSV with a header row (Title is required; Year, Format, Edition, Barcode, Binder, Slot, Watched,
        TMDb ID, IMDb ID are read when present) — a CLZ Movies or Letterboxd export works as it is — or a
        reelshelf JSON export. The file is checked first; nothing is written unless every row is good, and
        importing the same file again adds nothing.
      </p>
      <noscript>
        <p class="warning">
          This page needs JavaScript. Without it, use <code>npx reelshelf import &lt;file&gt;</code> on the
          server.
        </p>
      </noscript>
      <form id="import-form" class="stacked" novalidate>
        <div class="field">
          <label for="import-file">File (CSV or JSON, up to 40 MiB)</label>
          <input
            id="import-file"
            name="file"
            type="file"
            accept=".csv,.tsv,.txt,.json,text/csv,application/json"
            required
            aria-describedby="import-status"
          />
        </div>
        <div class="field">
          <label
            ><input id="import-into-wishes" name="into_wishes" type="checkbox" /> Every row is a wish (a
            Letterboxd <code>watchlist.csv</code>); a CLZ row whose collection status is “Wish List” is one
            anyway</label
          >
        </div>
        <div class="field-actions">
          <button type="submit" id="import-check">Check file</button>
          <button type="button" id="import-run" disabled>Import</button>
        </div>
      </form>
      <progress id="import-progress" max="100" value="0" hidden aria-label="Import progress"></progress>
      <p id="import-status" role="status" aria-live="polite"></p>
      <div id="import-problems" hidden>
        <h3>Rows to fix</h3>
        <table class="import-problems">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Column</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </div>
      <ul id="import-warnings" class="note"></ul>
    </section>
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Export the library</h2>
      <p>
        <a href="/api/export?format=csv" download="reelshelf-export.csv">Collection as CSV</a> (one row per
        disc; opens in a spreadsheet) ·
        <a href="/api/export?format=json" download="reelshelf-export.json">Everything as JSON</a> (a backup
        that imports back into reelshelf, with the wish list) ·
        <a href="/api/export/letterboxd" download="reelshelf-letterboxd.csv"
          >What you watched, for Letterboxd</a
        >
      </p>
    </section>`;
}
