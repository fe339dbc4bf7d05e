/* global document */
// Import page: checks the chosen file with a dry run (POST /api/import?dry_run=true), shows every row
// to fix, and imports it when it is good. Text is set with textContent only: file content never runs.

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
const form = document.getElementById('import-form');
const input = document.getElementById('import-file');
const runButton = document.getElementById('import-run');
const status = document.getElementById('import-status');
const problems = document.getElementById('import-problems');
const warnings = document.getElementById('import-warnings');

function contentType(file) {
  return /\.json$/i.test(file.name) || file.type === 'application/json' ? 'application/json' : 'text/csv';
}

async function send(file, dryRun) {
  const res = await fetch(`/api/import${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': contentType(file), 'x-csrf-token': csrf },
    body: await file.arrayBuffer(),
  });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return { ok: res.ok, status: res.status, body };
}

function counts(r) {
  const c = r.created;
  return `${c.movies} new movies, ${c.editions} editions, ${c.copies} copies; ${r.updated.movies} movies updated, ${r.unchanged.movies} unchanged`;
}

function showWarnings(list) {
  warnings.replaceChildren(
    ...(list ?? []).slice(0, 50).map((w) => {
      const li = document.createElement('li');
      li.textContent = w;
      return li;
    }),
  );
}

function showProblems(rows, isJson) {
  const tbody = problems.querySelector('tbody');
  tbody.replaceChildren(
    ...rows.slice(0, 500).map((r) => {
      const tr = document.createElement('tr');
      const where = r.row === 0 ? 'whole file' : `${isJson ? 'movie' : 'line'} ${r.row}`;
      for (const text of [where, r.field, r.message]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }),
  );
  problems.hidden = rows.length === 0;
}

function reset() {
  runButton.disabled = true;
  status.textContent = '';
  showProblems([], false);
  showWarnings([]);
}

async function run(dryRun) {
  const file = input.files?.[0];
  if (!file) {
    status.textContent = 'Choose a file first.';
    return;
  }
  reset();
  status.textContent = dryRun ? `Checking ${file.name}…` : `Importing ${file.name}…`;
  const { ok, status: code, body } = await send(file, dryRun);
  showWarnings(body?.warnings);
  if (ok && body !== null) {
    status.textContent = dryRun
      ? `The file is good: importing it gives ${counts(body)}. Nothing has been written yet.`
      : `Imported: ${counts(body)}.`;
    runButton.disabled = !dryRun;
    return;
  }
  if (body?.error === 'import_invalid') {
    status.textContent = `${body.message} Fix these rows and check the file again.`;
    showProblems(body.rows ?? [], contentType(file) === 'application/json');
    return;
  }
  status.textContent = [body?.message ?? `The server answered ${code}.`, body?.hint]
    .filter(Boolean)
    .join(' ');
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run(true);
});
runButton.addEventListener('click', () => void run(false));
input.addEventListener('change', reset);
