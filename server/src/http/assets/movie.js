/* global document, setTimeout, Element */
// Movie page: "Prepare for TV" / "Create compatible audio" (POST prewarm-tv), live progress by
// polling GET, and Cancel (DELETE). Same-origin fetch sends the session cookie; state-changing
// calls carry the page's CSRF token.

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
const POLL_MS = 1000;

async function call(method, url) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(url, { method, headers, credentials: 'same-origin' });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return { status: res.status, body };
}

function percentOf(message) {
  const match = /(\d+(?:\.\d+)?)\s*%/.exec(message ?? '');
  return match === null ? null : Math.min(100, Number(match[1]));
}

/** Shows one PrewarmResponse (or an ApiError) in a widget. */
function show(widget, state) {
  const status = widget.querySelector('.prewarm-status');
  const progress = widget.querySelector('.prewarm-progress');
  const starters = widget.querySelectorAll('[data-prewarm-action="start"], [data-prewarm-action="audio"]');
  const cancel = widget.querySelector('[data-prewarm-action="cancel"]');
  const kind = state.status ?? (state.error === undefined ? 'unknown' : 'error');
  widget.dataset.state = kind;
  let text = '';
  switch (kind) {
    case 'ready':
      text = 'Ready for the TV.';
      break;
    case 'not_needed':
      text = `Not needed: ${state.reason}`;
      break;
    case 'not_ready':
      text = state.reason ?? 'Not prepared yet.';
      break;
    case 'building':
      text = state.message ?? 'Preparing for the TV…';
      break;
    case 'cancelled':
      text = 'Cancelled.';
      break;
    case 'not_building':
      text = state.message ?? 'Nothing is being prepared.';
      break;
    case 'error':
      text = [state.message ?? state.error, state.hint].filter(Boolean).join(' ');
      break;
    default:
      text = '';
  }
  status.textContent = text;
  const building = kind === 'building';
  const pct = building ? percentOf(state.message) : null;
  progress.hidden = !building;
  if (pct === null) progress.removeAttribute('value');
  else progress.value = pct;
  cancel.hidden = !building;
  for (const b of starters) {
    b.disabled = building;
    b.hidden = kind === 'ready' || kind === 'not_needed';
  }
}

async function poll(widget) {
  if (widget.dataset.polling === 'true') return;
  widget.dataset.polling = 'true';
  const url = `/api/media-file/${widget.dataset.prewarmFileId}/prewarm-tv`;
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const { body } = await call('GET', url);
      if (body === null) break;
      show(widget, body);
      if (body.status !== 'building') break;
    }
  } finally {
    widget.dataset.polling = 'false';
  }
}

async function act(widget, action) {
  const url = `/api/media-file/${widget.dataset.prewarmFileId}/prewarm-tv`;
  const { body } = await call(action === 'cancel' ? 'DELETE' : 'POST', url);
  if (body === null) {
    show(widget, { error: 'network', message: 'The server did not answer.' });
    return;
  }
  show(widget, body);
  if (body.status === 'building') void poll(widget);
}

for (const widget of document.querySelectorAll('[data-prewarm-file-id]')) {
  widget.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-prewarm-action]') : null;
    if (button === null || button.disabled) return;
    void act(widget, button.dataset.prewarmAction);
  });
  // The current state, so a build started elsewhere (or before a reload) shows its progress.
  void call('GET', `/api/media-file/${widget.dataset.prewarmFileId}/prewarm-tv`).then(({ body }) => {
    if (body === null) return;
    show(widget, body);
    if (body.status === 'building') void poll(widget);
  });
}
