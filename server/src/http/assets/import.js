/* global document, XMLHttpRequest, setInterval, clearInterval */
// Import page: checks the chosen file with a dry run (POST /api/import?dry_run=true), shows every row
// to fix, and imports it when it is good. Text is set with textContent only: file content never runs.

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
const form = document.getElementById('import-form');
const input = document.getElementById('import-file');
const runButton = document.getElementById('import-run');
const status = document.getElementById('import-status');
const problems = document.getElementById('import-problems');
const warnings = document.getElementById('import-warnings');
const bar = document.getElementById('import-progress');
const intoWishes = document.getElementById('import-into-wishes');

function contentType(file) {
  return /\.json$/i.test(file.name) || file.type === 'application/json' ? 'application/json' : 'text/csv';
}

/**
 * Sends the file with XMLHttpRequest, whose upload events give the bar a real percentage while the
 * bytes go up; once they are all sent the server checks (and writes) the file in one go, shown as an
 * indeterminate bar until it answers.
 */
function send(file, dryRun, label) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    const query = [dryRun ? 'dry_run=true' : '', intoWishes?.checked ? 'into=wishes' : ''].filter(Boolean);
    xhr.open('POST', `/api/import${query.length > 0 ? `?${query.join('&')}` : ''}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', contentType(file));
    xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.responseType = 'text';
    bar.hidden = false;
    bar.max = 100;
    bar.value = 0;
    xhr.upload.addEventListener('progress', (event) => {
      if (!event.lengthComputable || event.total === 0) return;
      const percent = Math.floor((event.loaded / event.total) * 100);
      bar.value = percent;
      status.textContent = `${label}: sending ${file.name} (${percent}%)…`;
    });
    // Once the bytes are up the server plans and writes; a real import is an `import` job whose
    // progress (writes done of total) moves the bar until the answer comes.
    let polling = null;
    let pollOut = false;
    let answered = false;
    xhr.upload.addEventListener('load', () => {
      bar.removeAttribute('value');
      status.textContent = `${label}: the server is reading ${file.name}…`;
      if (dryRun) return;
      polling = setInterval(() => {
        // One poll at a time: while the import's transaction holds the database, a poll waits too.
        if (pollOut) return;
        pollOut = true;
        void pollImportJob(label, file.name, () => !answered).finally(() => (pollOut = false));
      }, 400);
    });
    const done = (code, text) => {
      answered = true;
      if (polling !== null) clearInterval(polling);
      let body = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      const ok = code >= 200 && code < 300;
      if (ok) bar.value = bar.max;
      else bar.hidden = true;
      resolve({ ok, status: code, body });
    };
    xhr.addEventListener('load', () => done(xhr.status, xhr.responseText));
    xhr.addEventListener('error', () => done(0, ''));
    xhr.addEventListener('abort', () => done(0, ''));
    xhr.send(file);
  });
}

/**
 * Moves the bar with the running import job's progress (GET /api/jobs?kind=import&status=running).
 * `importing()` says whether the import still waits for its answer: a poll travels on another
 * connection than the upload, so the server's "running, 100%" sent just before the import's own
 * answer can arrive after it, and must not put "writing…" back over "Imported".
 */
async function pollImportJob(label, name, importing) {
  try {
    const res = await fetch('/api/jobs?kind=import&status=running&limit=1', {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    if (!res.ok) return;
    const jobs = await res.json();
    if (!importing()) return;
    const job = Array.isArray(jobs) ? jobs[0] : jobs?.items?.[0];
    if (!job || job.progress.total === 0) return;
    bar.max = job.progress.total;
    bar.value = job.progress.done;
    status.textContent = `${label}: writing ${name} (${Math.floor((job.progress.done / job.progress.total) * 100)}%)…`;
  } catch {
    // The bar stays indeterminate; the import's own answer ends it.
  }
}

function counts(r) {
  const c = r.created;
  const w = r.wishes;
  const wishes = w
    ? `; wishes: ${w.created} new, ${w.unchanged} already wished, ${w.owned} owned, ${w.fulfilled} fulfilled`
    : '';
  return `${c.movies} new movies, ${c.editions} editions, ${c.copies} copies; ${r.updated.movies} movies updated, ${r.unchanged.movies} unchanged${wishes}`;
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
  bar.hidden = true;
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
  const { ok, status: code, body } = await send(file, dryRun, dryRun ? 'Checking' : 'Importing');
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
  status.textContent = [
    body?.message ?? (code === 0 ? 'The server could not be reached.' : `The server answered ${code}.`),
    body?.hint,
  ]
    .filter(Boolean)
    .join(' ');
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run(true);
});
runButton.addEventListener('click', () => void run(false));
input.addEventListener('change', reset);
