/* global document, setTimeout, Element, window */
// Movie page: the players (a conversion plays through HLS: hls.js, or the browser's own HLS; a direct
// file plays from its own URL; subtitles are the page's <track>s), "Prepare for TV" / "Create
// compatible audio" (POST prewarm-tv), live progress by polling GET, and Cancel (DELETE).
// Same-origin fetch sends the session cookie; state-changing calls carry the page's CSRF token.

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

// ---------------------------------------------------------------------------------------------
// Players. The page gives a conversion's <video> a `data-hls-url` (the HLS master playlist, signed
// like its `src`); a direct file has none and keeps playing from its own URL (its `src`).

const HLS_MIME = 'application/vnd.apple.mpegurl';

/**
 * How long to wait for, and how often to retry, a request of the HLS engine. After a seek the
 * engine restarts its conversion at that segment: the first bytes can take several seconds (the
 * server itself waits up to 15 s before answering 503 + Retry-After), so the deadlines are long and
 * a 503 is retried many times with a growing pause (1, 2, 4, then every 8 s; hls.js reads
 * Retry-After only for content steering, so the pause is its own).
 */
function patientPolicy(maxLoadTimeMs, errorRetries) {
  return {
    default: {
      maxTimeToFirstByteMs: 60_000,
      maxLoadTimeMs,
      timeoutRetry: { maxNumRetry: 2, retryDelayMs: 1000, maxRetryDelayMs: 4000 },
      errorRetry: {
        maxNumRetry: errorRetries,
        retryDelayMs: 1000,
        maxRetryDelayMs: 8000,
        // hls.js already retries 5xx and timeouts (not 4xx); a 503 ("busy, retry shortly") gets
        // every retry, any other failure three at most.
        shouldRetry: (config, count, isTimeout, response, retry) =>
          retry && (isTimeout || response?.code === 503 || count < 3),
      },
    },
  };
}

const HLS_CONFIG = {
  // Nothing but the playlists before the person presses play: segments start a conversion.
  autoStartLoad: false,
  // The page's CSP has no worker-src blob:; fMP4 needs no transmuxing worker anyway.
  enableWorker: false,
  manifestLoadPolicy: patientPolicy(60_000, 6),
  playlistLoadPolicy: patientPolicy(60_000, 6),
  fragLoadPolicy: patientPolicy(120_000, 15),
  // Subtitles are the page's own <track> elements (WebVTT at the film's times, one per text track):
  // hls.js would add the master's SUBTITLES renditions, the same tracks, a second time.
  enableWebVTT: false,
};

function setStatus(box, text, kind = 'info') {
  const status = box?.querySelector('.player-status');
  if (!status) return;
  status.textContent = text;
  status.dataset.kind = kind;
}

/** A language code (en, fre, pt-BR) as a name in the page's language, or null when unknown. */
function languageName(code) {
  if (!code || code === 'und') return null;
  try {
    const names = new Intl.DisplayNames([document.documentElement.lang || 'en'], { type: 'language' });
    const name = names.of(code);
    return name && name.toLowerCase() !== code.toLowerCase() ? name : null;
  } catch {
    return null;
  }
}

/**
 * "English · AAC stereo" for an audio rendition: the language by name, then the track's name
 * (its title, or the engine's "ENG AAC stereo", whose code is dropped when it names the same language).
 */
function audioLabel(track, i) {
  const name = (track.name || track.label || '').trim();
  const language = languageName(track.lang || track.language || '');
  if (language === null) return name || `Track ${i + 1}`;
  const [first = '', ...rest] = name.split(/\s+/);
  const detail = rest.length > 0 && languageName(first) === language ? rest.join(' ') : name;
  return detail === '' || detail === language ? language : `${language} · ${detail}`;
}

/** Fills the audio <select> (shown only for 2+ tracks) and calls `choose(index)` on a change. */
function fillAudioChoice(box, tracks, selected, choose) {
  const select = box?.querySelector('select[data-audio-tracks]');
  const row = box?.querySelector('.player-controls');
  if (!select || !row) return;
  select.replaceChildren(
    ...tracks.map((track, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = audioLabel(track, i);
      return option;
    }),
  );
  if (selected >= 0) select.value = String(selected);
  row.hidden = tracks.length < 2;
  select.onchange = () => choose(Number(select.value));
}

function hlsFailure(data) {
  const code = data.response?.code;
  const http = typeof code === 'number' && code > 0 ? `, HTTP ${code}` : '';
  const what =
    data.type === window.Hls.ErrorTypes.NETWORK_ERROR
      ? /Timeout/i.test(data.details ?? '')
        ? 'the server did not deliver the film in time'
        : 'the server did not deliver the film'
      : data.type === window.Hls.ErrorTypes.MEDIA_ERROR
        ? 'this browser could not decode the film'
        : 'the player failed';
  return `Playback stopped: ${what} (${data.details}${http}). Reload the page to try again.`;
}

/** A conversion through hls.js (Chrome, Firefox, Edge; Safari on macOS too when it has MSE). */
function playWithHlsJs(video, url) {
  const Hls = window.Hls;
  const box = video.closest('.player-box');
  const hls = new Hls(HLS_CONFIG);
  // For the console and the browser tests: the hls.js instance of this <video>.
  video.hls = hls;
  video.dataset.player = 'hls.js';
  let manifestParsed = false;
  let playRequested = false;
  let loading = false;
  let recoveredMedia = false;
  let failed = false;
  const startIfReady = () => {
    if (loading || !manifestParsed || !playRequested) return;
    loading = true;
    hls.startLoad(video.currentTime > 0 ? video.currentTime : -1);
  };

  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    manifestParsed = true;
    startIfReady();
  });
  hls.on(Hls.Events.AUDIO_TRACKS_UPDATED, () => {
    fillAudioChoice(box, hls.audioTracks, hls.audioTrack, (i) => {
      hls.audioTrack = i;
    });
  });
  hls.on(Hls.Events.AUDIO_TRACK_SWITCHED, (_event, data) => {
    const select = box?.querySelector('select[data-audio-tracks]');
    if (select) select.value = String(data.id);
  });
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recoveredMedia) {
      recoveredMedia = true;
      setStatus(box, 'The browser reported a decoding error; trying again…');
      hls.recoverMediaError();
      return;
    }
    failed = true;
    video.dataset.playerState = 'failed';
    setStatus(box, hlsFailure(data), 'error');
    hls.destroy();
  });

  // The first play starts the segments (and so the conversion); the playlists load now.
  video.addEventListener('play', () => {
    playRequested = true;
    startIfReady();
  });
  video.addEventListener('waiting', () => {
    if (!failed)
      setStatus(box, 'Converting… (the first picture after a start or a seek takes a few seconds)');
  });
  video.addEventListener('playing', () => {
    if (!failed) setStatus(box, '');
  });

  video.removeAttribute('src');
  hls.attachMedia(video);
  hls.loadSource(url);
}

/** A conversion through the browser's own HLS (Safari on iOS and iPadOS, and other native players). */
function playNatively(video, url) {
  const box = video.closest('.player-box');
  video.dataset.player = 'native';
  // The browser lists the master's SUBTITLES renditions itself: the page's <track>s would be the
  // same tracks twice in its menu.
  for (const track of video.querySelectorAll('track')) track.remove();
  video.src = url; // preload stays as the page set it: nothing is converted before play
  const tracks = video.audioTracks;
  if (tracks) {
    const refresh = () => {
      const list = Array.from(tracks);
      fillAudioChoice(
        box,
        list,
        list.findIndex((t) => t.enabled),
        (i) => list.forEach((t, j) => (t.enabled = i === j)),
      );
    };
    tracks.addEventListener('addtrack', refresh);
    tracks.addEventListener('removetrack', refresh);
  }
  video.addEventListener('error', () => {
    const code = video.error?.code ?? 0;
    setStatus(
      box,
      `Playback stopped: the browser could not play this conversion (media error ${code}).`,
      'error',
    );
  });
}

for (const video of document.querySelectorAll('video[data-hls-url]')) {
  const url = video.dataset.hlsUrl;
  if (!url) continue;
  if (window.Hls?.isSupported()) playWithHlsJs(video, url);
  else if (video.canPlayType(HLS_MIME) !== '') playNatively(video, url);
  else video.dataset.player = 'file'; // neither: the progressive stream in `src` follows the conversion
}
