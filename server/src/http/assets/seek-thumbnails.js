/* global document, Image, window */
// The /movie page's seek bar (under each player; the <video>'s native controls stay, but the page
// never sees the pointer over them) and its seek thumbnails: while the pointer moves over the bar or
// drags it, the thumbnail of that moment and its time show above it. The set comes from
// GET /api/media-file/{id}/trickplay (any error or a set not made yet: the time alone, silently);
// a sheet is fetched the first time a thumbnail on it is shown and kept. The thumbnail is one cell
// of its sheet: a fixed-size box with the sheet as background-image and the cell's background-
// position, set through the CSSOM (the page's CSP forbids inline style attributes, not this).
// Dragging seeks on release (an HLS conversion restarts at the target: once, not on every move).
// Works the same for direct files and HLS conversions: it only reads and sets the <video>'s times.
import { clockText, readTrickplayInfo, thumbnailCell, timeAtPointer } from './seek-thumbnail-cell.js';

/** Keyboard steps (s): arrows, and Page Up / Page Down. */
const ARROW_STEP_S = 5;
const PAGE_STEP_S = 60;

/**
 * The file's seek thumbnails, or null (none, an ApiError, the network): never an error shown. The
 * sheet URLs come signed for the page's device, like the player's own stream URLs.
 */
async function loadTrickplay(fileId, device) {
  const query = device ? `?device=${encodeURIComponent(device)}` : '';
  try {
    const res = await fetch(`/api/media-file/${encodeURIComponent(fileId)}/trickplay${query}`, {
      headers: { accept: 'application/json' },
      credentials: 'same-origin',
    });
    if (!res.ok) return null;
    return readTrickplayInfo(await res.json());
  } catch {
    return null;
  }
}

/** A sheet's URL made absolute and parsed: quotes and spaces come out percent-encoded, safe in url(""). */
function absoluteUrl(url) {
  try {
    return new URL(url, window.location.href).href;
  } catch {
    return null;
  }
}

function attach(video, seek) {
  const bar = seek.querySelector('.seek-bar');
  const played = seek.querySelector('.seek-played');
  const preview = seek.querySelector('.seek-preview');
  const thumb = seek.querySelector('.seek-thumb');
  const time = seek.querySelector('.seek-time');
  if (!bar || !played || !preview || !thumb || !time) return;
  const given = Number(video.dataset.durationSeconds);
  const duration = () =>
    Number.isFinite(video.duration) && video.duration > 0 ? video.duration : given > 0 ? given : NaN;

  let trickplay = null;
  /** Sheets asked for so far, by index: kept (the browser's cache holds them, the Image keeps them decoded). */
  const sheets = new Map();
  let dragging = false;
  let dragTime = null;
  let lastPointerX = null;

  const showProgress = (seconds) => {
    const d = duration();
    const fraction = d > 0 ? Math.min(1, Math.max(0, seconds / d)) : 0;
    played.style.width = `${(fraction * 100).toFixed(3)}%`;
    bar.setAttribute('aria-valuemax', String(d > 0 ? Math.floor(d) : 0));
    bar.setAttribute('aria-valuenow', String(Math.floor(seconds)));
    bar.setAttribute(
      'aria-valuetext',
      d > 0 ? `${clockText(seconds)} of ${clockText(d)}` : clockText(seconds),
    );
  };
  const refresh = () => {
    if (!dragging) showProgress(video.currentTime);
  };

  /** The sheet's state for the box: whether its picture is there yet (tests wait for `loaded`). */
  const sheetState = (index) => sheets.get(index)?.state ?? 'none';
  const useSheet = (index, url) => {
    if (sheets.has(index)) return;
    const image = new Image();
    const entry = { image, state: 'loading' };
    sheets.set(index, entry);
    const settle = (state) => {
      entry.state = state;
      if (thumb.dataset.sheet === String(index)) thumb.dataset.sheetState = state;
    };
    image.addEventListener('load', () => settle('loaded'));
    image.addEventListener('error', () => settle('failed'));
    image.src = url;
  };

  const showThumbnail = (seconds) => {
    if (trickplay === null) {
      thumb.hidden = true;
      return;
    }
    const cell = thumbnailCell(trickplay, seconds * 1000);
    const url = absoluteUrl(trickplay.sheets[cell.sheet] ?? '');
    if (url === null) {
      thumb.hidden = true;
      return;
    }
    useSheet(cell.sheet, url);
    thumb.style.width = `${cell.width}px`;
    thumb.style.height = `${cell.height}px`;
    thumb.style.backgroundImage = `url("${url}")`;
    thumb.style.backgroundPosition = `${-cell.x}px ${-cell.y}px`;
    thumb.dataset.thumbnail = String(cell.thumbnail);
    thumb.dataset.sheet = String(cell.sheet);
    thumb.dataset.sheetState = sheetState(cell.sheet);
    thumb.hidden = false;
  };

  /** Shows the preview for the pointer at `clientX`; returns the time there (null: no duration yet). */
  const previewAt = (clientX) => {
    lastPointerX = clientX;
    const d = duration();
    const rect = bar.getBoundingClientRect();
    if (!(d > 0) || !(rect.width > 0)) {
      preview.hidden = true;
      return null;
    }
    const seconds = timeAtPointer(clientX, rect.left, rect.width, d);
    showThumbnail(seconds);
    time.textContent = clockText(seconds);
    preview.hidden = false;
    // Centred on the pointer, kept inside the bar's width.
    const half = preview.offsetWidth / 2;
    const x = Math.min(Math.max(clientX - rect.left, half), Math.max(half, rect.width - half));
    preview.style.left = `${x}px`;
    return seconds;
  };
  const hidePreview = () => {
    lastPointerX = null;
    preview.hidden = true;
  };

  seek.addEventListener('pointerenter', (event) => previewAt(event.clientX));
  seek.addEventListener('pointermove', (event) => {
    const seconds = previewAt(event.clientX);
    if (dragging && seconds !== null) {
      dragTime = seconds;
      showProgress(seconds);
    }
  });
  seek.addEventListener('pointerleave', () => {
    if (!dragging) hidePreview();
  });
  seek.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    bar.focus({ preventScroll: true });
    // Captured: the drag goes on (and ends here) when the pointer leaves the bar.
    seek.setPointerCapture(event.pointerId);
    dragging = true;
    dragTime = previewAt(event.clientX);
    if (dragTime !== null) showProgress(dragTime);
  });
  const endDrag = (commit) => {
    if (!dragging) return;
    dragging = false;
    if (commit && dragTime !== null) video.currentTime = dragTime;
    dragTime = null;
    refresh();
    if (!seek.matches(':hover')) hidePreview();
  };
  seek.addEventListener('pointerup', () => endDrag(true));
  seek.addEventListener('pointercancel', () => endDrag(false));
  seek.addEventListener('lostpointercapture', () => endDrag(true));

  bar.addEventListener('keydown', (event) => {
    const d = duration();
    if (!(d > 0)) return;
    const steps = {
      ArrowLeft: -ARROW_STEP_S,
      ArrowDown: -ARROW_STEP_S,
      ArrowRight: ARROW_STEP_S,
      ArrowUp: ARROW_STEP_S,
      PageDown: -PAGE_STEP_S,
      PageUp: PAGE_STEP_S,
    };
    let target;
    if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = d;
    else if (event.key in steps) target = video.currentTime + steps[event.key];
    else return;
    event.preventDefault();
    video.currentTime = Math.min(d, Math.max(0, target));
    showProgress(video.currentTime);
  });

  for (const name of ['timeupdate', 'durationchange', 'loadedmetadata', 'seeking', 'emptied']) {
    video.addEventListener(name, refresh);
  }
  seek.hidden = false;
  refresh();

  void loadTrickplay(video.dataset.mediaFileId, video.dataset.device).then((info) => {
    trickplay = info;
    seek.dataset.trickplay = info === null ? 'none' : 'ready';
    // The pointer may already be over the bar.
    if (lastPointerX !== null) previewAt(lastPointerX);
  });
}

for (const video of document.querySelectorAll('video.player[data-media-file-id]')) {
  const seek = video.closest('.player-box')?.querySelector('[data-seek]');
  if (seek) attach(video, seek);
}
