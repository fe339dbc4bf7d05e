/* global document, setTimeout, location, FormData */
// Scan page: adds a root through the API and runs scans with live progress (GET /api/scans/{id}).
// Without JavaScript the same forms post to /scan/... and the page reloads itself.

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
const POLL_MS = 500;

async function call(method, url, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  let parsed = null;
  try {
    parsed = await res.json();
  } catch {
    parsed = null;
  }
  return { ok: res.ok, status: res.status, body: parsed };
}

function summary(report) {
  const c = report.counts;
  if (report.status === 'running') {
    const { done, total } = report.progress;
    return total === 0
      ? 'Scanning: looking for files…'
      : `Scanning: ${done} of ${total} files (${Math.floor((done / total) * 100)}%).`;
  }
  if (report.status === 'committed') {
    return `Scan finished: found ${c.found}, new ${c.new}, changed ${c.changed}, moved ${c.moved}, unchanged ${c.unchanged}, missing ${c.missing}, errors ${c.errors}.`;
  }
  if (report.status === 'cancelled') return 'Scan cancelled; nothing was changed.';
  return `Scan failed${report.message ? `: ${report.message}` : ''}.`;
}

function show(box, report) {
  const progress = box.querySelector('progress');
  const status = box.querySelector('[role="status"]');
  box.dataset.scanId = String(report.id);
  box.dataset.scanStatus = report.status;
  // The bar moves while the scan runs and stays full once it is committed; a failed or cancelled scan
  // hides it (its text says why).
  const committed = report.status === 'committed';
  progress.hidden = report.status !== 'running' && !committed;
  progress.max = Math.max(1, report.progress.total);
  progress.value = committed ? progress.max : Math.min(report.progress.done, progress.max);
  status.textContent = summary(report);
}

async function follow(box, scanId) {
  for (;;) {
    const { ok, body } = await call('GET', `/api/scans/${scanId}`);
    if (!ok || body === null) {
      box.querySelector('[role="status"]').textContent = body?.message ?? 'The scan could not be read.';
      return;
    }
    show(box, body);
    if (body.status !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

for (const form of document.querySelectorAll('form[data-scan-form]')) {
  const rootId = form.dataset.rootId;
  const box = document.querySelector(`.scan-progress[data-root-id="${rootId}"]`);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      const { ok, body } = await call('POST', `/api/library-roots/${rootId}/scan`);
      if (!ok || body === null) {
        box.querySelector('[role="status"]').textContent = body?.message ?? 'The scan did not start.';
        return;
      }
      await follow(box, body.scan_id);
    } finally {
      button.disabled = false;
    }
  });
  // A running scan shown by the server (e.g. after a reload) keeps updating.
  if (box?.dataset.scanStatus === 'running') void follow(box, box.dataset.scanId);
}

const addForm = document.getElementById('add-root');
if (addForm !== null) {
  addForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = document.getElementById('add-root-error');
    const data = new FormData(addForm);
    const body = { path: String(data.get('path') ?? '').trim() };
    for (const key of ['name', 'collection']) {
      const value = String(data.get(key) ?? '').trim();
      if (value !== '') body[key] = value;
    }
    if (body.path === '') {
      error.textContent = 'Enter the folder path.';
      return;
    }
    const res = await call('POST', '/api/library-roots', body);
    if (res.ok) {
      location.assign('/scan');
      return;
    }
    error.textContent = [res.body?.message ?? 'The folder could not be added.', res.body?.hint]
      .filter(Boolean)
      .join(' ');
    document.getElementById('root-path').setAttribute('aria-invalid', 'true');
  });
}
