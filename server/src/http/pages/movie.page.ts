import type {
  AudioTrackInfo,
  LibraryEdition,
  LibraryMovieItem,
  LoanView,
  MovieDetail,
} from '@reelshelf/contract';
import type { PlaybackInfo, PlaybackSubtitle } from '../../services/playback/playback.service.ts';
import { type Html, html, safeUrl } from './html.ts';
import { formatMinutes } from '../../domain/format-duration.ts';
import { hlsLanguageTag } from '../../domain/hls/playlists.ts';
import { subtitleCodecName } from '../../domain/playback/display-names.ts';
import { badge, copyLocation } from './layout.ts';
import { lendForm, loanPlace, loanSummary, returnForm } from './loans.page.ts';
import type { DeviceChoice } from './library.page.ts';

/** Devices whose editions this browser itself plays in a <video> element. */
export const BROWSER_DEVICES = new Set(['web', 'safari']);

export interface MoviePageData {
  movie: MovieDetail;
  /** The movie as GET /library shows it for `device` (editions, badge, names); null if absent. */
  item: LibraryMovieItem | null;
  device: string;
  devices: DeviceChoice[];
  /** Per media file id: which URL its player opens (GET …/playback); absent = the stream URL. */
  playback?: ReadonlyMap<number, PlaybackInfo>;
  /** The loans of the movie's discs, newest first, and whether the viewer may lend and take back. */
  loans?: { items: LoanView[]; admin: boolean; csrf: string };
}

/**
 * The movie's discs with who has them (issue 27 item 4): a lend form or a return button per disc
 * for admins, and the loans that ended.
 */
function loansSection(movie: MovieDetail, loans: NonNullable<MoviePageData['loans']>): Html {
  if (movie.physical_copies.length === 0) return html``;
  const back = `/movie/${movie.id}#loans-heading`;
  const returned = loans.items.filter((l) => l.returned_at !== null);
  return html`<section aria-labelledby="loans-heading" class="loans">
    <h2 id="loans-heading">Loans</h2>
    <ul class="loan-list">
      ${movie.physical_copies.map((c) => {
        const out = loans.items.find((l) => l.copy_id === c.id && l.returned_at === null);
        const place = [c.binder ?? '', c.slot === null ? '' : `slot ${c.slot}`, c.format ?? '']
          .filter((p) => p !== '')
          .join(' · ');
        return html`<li class="${out?.overdue === true ? 'loan loan-overdue' : 'loan'}" data-copy="${c.id}">
          <span>${place || 'Disc'}</span>
          ${
            out === undefined
              ? html`<span class="help">At home</span>
                  ${loans.admin ? lendForm(c.id, loans.csrf, back) : null}`
              : html`<span>On loan ${loanSummary(out)}</span>
                  ${out.overdue ? html`<strong class="overdue-label">Overdue</strong>` : null}
                  ${loans.admin ? returnForm(out, loans.csrf, back) : null}`
          }
        </li>`;
      })}
    </ul>
    ${
      returned.length === 0
        ? null
        : html`<h3>Lent before</h3>
            <ul class="loan-history">
              ${returned.map((l) => html`<li>${loanPlace(l)}: ${loanSummary(l)}</li>`)}
            </ul>`
    }
  </section>`;
}

function audioTrack(track: AudioTrackInfo): Html {
  const parts = [
    track.codec.toUpperCase(),
    track.channels === 1 ? 'mono' : track.channels === 2 ? 'stereo' : `${track.channels} channels`,
    track.language ?? null,
    track.title ?? null,
  ].filter((p): p is string => p !== null && p !== '');
  return html`<li>${parts.join(' · ')}</li>`;
}

/**
 * One `<track>` per text subtitle of the file (WebVTT, same token as the stream), the default one
 * marked `default` so the browser shows it. The same `<track>`s serve a direct file and hls.js
 * (movie.js keeps hls.js from adding the master's SUBTITLES renditions a second time). Without the
 * playback answer, the edition's `subtitle_url` alone.
 */
function subtitleTracks(edition: LibraryEdition, info: PlaybackInfo | null): Html[] {
  if (info === null) {
    const url = safeUrl(edition.subtitle_url);
    return url === null ? [] : [html`<track kind="subtitles" src="${url}" label="Subtitles" default />`];
  }
  return info.subtitles.flatMap((s) => {
    const url = s.kind === 'text' ? safeUrl(s.url) : null;
    if (url === null) return [];
    const language = hlsLanguageTag(s.language);
    return [
      html`<track
        kind="subtitles"
        src="${url}"
        label="${s.label}"
        ${language === null ? null : html`srclang="${language}"`}
        data-subtitle-index="${s.index}"
        ${s.default ? html`default` : null}
      />`,
    ];
  });
}

/**
 * Image tracks (PGS, VobSub, DVB) cannot be a `<track>`: the picture carries them. The track shown
 * by default is burned in when the edition is converted for it; any other is burned in on request.
 */
function imageSubtitleNote(edition: LibraryEdition, info: PlaybackInfo | null): Html | null {
  const images = (info?.subtitles ?? []).filter((s) => s.kind === 'image');
  if (images.length === 0) return null;
  const line = (s: PlaybackSubtitle) =>
    html`<li data-subtitle-index="${s.index}">
      ${s.label} ${subtitleCodecName(s.format)} —
      ${s.default && edition.playback_prediction === 'transcode' ? 'burned into the picture' : 'burned in on request'}
    </li>`;
  return html`<div class="note subtitle-images">
    <p>Picture subtitles (not in the player’s subtitle menu):</p>
    <ul>
      ${images.map(line)}
    </ul>
  </div>`;
}

/**
 * The page's own seek bar under the <video> (its native controls stay): pointer events over native
 * controls never reach the page, so the seek thumbnail needs a bar of its own. seek-thumbnails.js
 * shows it (without JavaScript it stays hidden), seeks the video, and shows the thumbnail and time
 * under the pointer while hovering and dragging when the file has seek thumbnails.
 */
function seekBar(): Html {
  return html`<div class="seek" data-seek hidden>
    <div class="seek-preview" aria-hidden="true" hidden>
      <div class="seek-thumb" hidden></div>
      <span class="seek-time"></span>
    </div>
    <div
      class="seek-bar"
      role="slider"
      tabindex="0"
      aria-label="Seek"
      aria-valuemin="0"
      aria-valuemax="0"
      aria-valuenow="0"
    >
      <div class="seek-played"></div>
    </div>
  </div>`;
}

function player(edition: LibraryEdition, device: string, title: string, info: PlaybackInfo | null): Html {
  if (!BROWSER_DEVICES.has(device)) {
    return html`<p class="note">Choose “Chrome/Firefox” or “Safari” above to play it in this browser.</p>`;
  }
  const src = safeUrl(edition.stream_url);
  if (!edition.is_playable || src === null) {
    return html`<p class="note">This browser cannot play this edition.</p>`;
  }
  const hls = safeUrl(info?.hls_url);
  // A file that needs converting is built on its first request: only direct files preload.
  const preload = edition.playback_prediction === 'direct' ? 'metadata' : 'none';
  // The seek bar's length before the <video> knows it (a conversion loads nothing before play).
  const seconds = info?.duration_seconds ?? null;
  const duration = seconds !== null && Number.isFinite(seconds) && seconds > 0 ? String(seconds) : null;
  // Without JavaScript the <video> opens the progressive stream (it follows a conversion as it is
  // written); movie.js switches a conversion to its HLS playlist, which can be seeked at once.
  return html`<div class="player-box">
    <video
      class="player"
      controls
      preload="${preload}"
      src="${src}"
      aria-label="${title} (${edition.display_label})"
      data-media-file-id="${edition.media_file_id}"
      data-device="${device}"
      ${hls === null ? null : html`data-hls-url="${hls}"`}
      ${duration === null ? null : html`data-duration-seconds="${duration}"`}
    >
      ${subtitleTracks(edition, info)}
      <p>This browser does not play HTML5 video.</p>
    </video>
    ${seekBar()}
    <p class="player-controls" hidden>
      <label
        >Audio
        <select class="audio-tracks" data-audio-tracks></select>
      </label>
    </p>
    ${imageSubtitleNote(edition, info)}
    <p class="player-status" role="status" aria-live="polite"></p>
    ${(info?.warnings ?? []).map((w) => html`<p class="note player-warning">${w}</p>`)}
  </div>`;
}

function prewarm(edition: LibraryEdition): Html {
  const id = edition.media_file_id;
  return html`<div class="prewarm" data-prewarm-file-id="${id}" data-state="unknown">
    <div class="prewarm-actions">
      <button type="button" data-prewarm-action="start">Prepare for TV</button>
      ${
        edition.has_adaptive_fallback
          ? html`<button type="button" data-prewarm-action="audio">Create compatible audio</button>`
          : null
      }
      <button type="button" class="button-secondary" data-prewarm-action="cancel" hidden>Cancel</button>
    </div>
    <progress class="prewarm-progress" max="100" hidden aria-label="Preparing for the TV"></progress>
    <p class="prewarm-status" role="status" aria-live="polite">
      <noscript>Preparing for the TV needs JavaScript.</noscript>
    </p>
  </div>`;
}

function definition(term: string, value: string | number | null | undefined): Html | null {
  if (value === null || value === undefined || value === '') return null;
  return html`<div>
    <dt>${term}</dt>
    <dd>${value}</dd>
  </div>`;
}

function edition(
  e: LibraryEdition,
  index: number,
  isDefault: boolean,
  device: string,
  title: string,
  info: PlaybackInfo | null,
): Html {
  const headingId = `edition-${index}`;
  return html`<article class="edition" aria-labelledby="${headingId}">
    <h3 id="${headingId}">${e.display_label}${isDefault ? html` <span class="tag">Default</span>` : null}</h3>
    <p class="playback playback-${e.playback_status_code}">
      <strong>${e.playback_status_primary_text}</strong>
      ${
        e.playback_status_secondary_text === null || e.playback_status_secondary_text === undefined
          ? null
          : html`<span class="secondary">${e.playback_status_secondary_text}</span>`
      }
    </p>
    <dl class="facts">
      ${definition('Runtime', e.runtime_text)} ${definition('Resolution', e.resolution_label)}
      ${definition('HDR', e.hdr_display_label)} ${definition('Audio', e.audio_display_label)}
      ${definition('On disc', e.physical_copy === null || e.physical_copy === undefined ? null : copyLocation(e.physical_copy))}
      ${e.watched === true ? definition('Watched', 'Yes') : null}
    </dl>
    ${
      (e.audio_tracks ?? []).length === 0
        ? null
        : html`<h4>Audio tracks</h4>
            <ul class="tracks">
              ${(e.audio_tracks ?? []).map(audioTrack)}
            </ul>`
    }
    ${player(e, device, title, info)} ${prewarm(e)}
  </article>`;
}

/** GET /movie/{id}: artwork, facts, people, every edition with its playback truth and actions. */
export function moviePage(data: MoviePageData): Html {
  const { movie, item, device } = data;
  const title = item?.title ?? movie.title;
  const poster = safeUrl(item?.poster_url);
  const backdrop = safeUrl(item?.backdrop_url);
  const runtime =
    formatMinutes(movie.runtime_minutes) ?? item?.editions[item.default_edition_index]?.runtime_text ?? null;
  const facts = [movie.year === null ? null : String(movie.year), runtime].filter((f) => f !== null);
  const cast = item?.cast_names ?? [];
  const directors = item?.director_names ?? [];
  const copies = item?.physical_copies ?? [];
  const editions = item?.editions ?? [];
  return html`${
      backdrop === null ? null : html`<img class="backdrop" src="${backdrop}" alt="" aria-hidden="true" />`
    }
    <div class="movie-head">
      ${
        poster === null
          ? html`<div class="poster poster-large poster-placeholder" aria-hidden="true">
              <span>${title}</span>
            </div>`
          : html`<img
              class="poster poster-large"
              src="${poster}"
              alt="Poster: ${title}"
              width="300"
              height="450"
            />`
      }
      <div class="movie-info">
        <p class="back"><a href="/library">← Library</a></p>
        <h1>${title}</h1>
        <p class="movie-facts">${facts.join(' · ')} ${item === null ? null : badge(item.badge)}</p>
        ${movie.overview === null ? null : html`<p class="overview">${movie.overview}</p>`}
        <dl class="people">
          ${directors.length === 0 ? null : definition(directors.length > 1 ? 'Directors' : 'Director', directors.join(', '))}
          ${cast.length === 0 ? null : definition('Cast', cast.join(', '))}
        </dl>
        <form method="get" action="/movie/${movie.id}" class="device-form">
          <label for="device">Playing on</label>
          <select id="device" name="device">
            ${data.devices.map(
              (d) =>
                html`<option value="${d.id}" ${d.id === device ? html`selected` : null}>${d.name}</option>`,
            )}
          </select>
          <button type="submit">Show</button>
        </form>
      </div>
    </div>
    <section aria-labelledby="editions-heading">
      <h2 id="editions-heading">Editions</h2>
      ${
        editions.length === 0
          ? html`<p>No media files yet${copies.length > 0 ? ': this movie is on disc only' : ''}.</p>`
          : editions.map((e, i) =>
              edition(
                e,
                i,
                i === item?.default_edition_index,
                device,
                title,
                data.playback?.get(e.media_file_id) ?? null,
              ),
            )
      }
    </section>
    ${
      copies.length === 0
        ? null
        : html`<section aria-labelledby="copies-heading">
            <h2 id="copies-heading">Physical copies</h2>
            <ul class="copies">
              ${copies.map((c) => html`<li>${copyLocation(c)}</li>`)}
            </ul>
          </section>`
    }
    ${data.loans === undefined ? null : loansSection(movie, data.loans)}`;
}
