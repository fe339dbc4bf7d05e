import { formatDuration } from '../../domain/format-duration.ts';
import type { ActivePlay, ContinueItem, HistoryItem } from '@reelshelf/contract';
import { type Html, html } from './html.ts';

/** "12:34 of 1:45:00" (the position alone when the length is not known). */
function howFar(position: number, duration: number | null): string {
  const at = formatDuration(position) ?? '0:00';
  const of = formatDuration(duration);
  return of === null ? at : `${at} of ${of}`;
}

function when(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function filmLink(movieId: number | null, title: string): Html {
  return movieId === null ? html`${title}` : html`<a href="/movie/${movieId}">${title}</a>`;
}

/** The "continue watching" row on top of the library page (nothing when there is nothing to resume). */
export function continueRow(items: readonly ContinueItem[]): Html | null {
  if (items.length === 0) return null;
  return html`<section class="continue" aria-labelledby="continue-heading">
    <h2 id="continue-heading">Continue watching</h2>
    <ul class="continue-list">
      ${items.map(
        (i) =>
          html`<li>
            ${filmLink(i.movie_id, i.title)}
            <span class="continue-at">at ${formatDuration(i.position_seconds) ?? '0:00'}</span>
          </li>`,
      )}
    </ul>
  </section>`;
}

export interface HistoryPageData {
  items: readonly HistoryItem[];
  total: number;
  offset: number;
  limit: number;
}

/** GET /history: the signed-in person's plays, newest first. */
export function historyPage(data: HistoryPageData): Html {
  const { items, total, offset, limit } = data;
  const rows = items.map(
    (i) =>
      html`<tr>
        <td>${filmLink(i.movie_id, i.title)}</td>
        <td>${when(i.started_at)}</td>
        <td>${when(i.updated_at)}</td>
        <td>${howFar(i.position_seconds, i.duration_seconds)}</td>
        <td>${i.device}</td>
        <td>${i.mode}</td>
      </tr>`,
  );
  const older = offset + items.length < total;
  return html`<h1>Your history</h1>
    ${
      total === 0
        ? html`<p>Nothing played yet.</p>`
        : html`<table class="history">
            <caption class="visually-hidden">
              Your plays, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Film</th>
                <th scope="col">Started</th>
                <th scope="col">Last seen</th>
                <th scope="col">How far</th>
                <th scope="col">Device</th>
                <th scope="col">Played</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
    <nav class="pager" aria-label="Pages">
      <ul>
        ${offset > 0 ? html`<li><a href="/history?offset=${Math.max(0, offset - limit)}" rel="prev">Newer</a></li>` : null}
        ${older ? html`<li><a href="/history?offset=${offset + limit}" rel="next">Older</a></li>` : null}
      </ul>
    </nav>`;
}

/** GET /now-playing (admins): every play going on, each with a stop button (a plain form). */
export function nowPlayingPage(plays: readonly ActivePlay[], csrf: string, stopped: string | null): Html {
  return html`<h1>Now playing</h1>
    ${stopped === null ? null : html`<p role="status">Stopped: ${stopped}.</p>`}
    ${
      plays.length === 0
        ? html`<p>Nobody is playing anything.</p>`
        : html`<table class="now-playing">
            <thead>
              <tr>
                <th scope="col">Who</th>
                <th scope="col">Film</th>
                <th scope="col">Device</th>
                <th scope="col">Played</th>
                <th scope="col">Position</th>
                <th scope="col"><span class="visually-hidden">Stop</span></th>
              </tr>
            </thead>
            <tbody>
              ${plays.map(
                (p) =>
                  html`<tr>
                    <td>${p.user_name}</td>
                    <td>${filmLink(p.movie_id, p.title)}</td>
                    <td>${p.device}</td>
                    <td>
                      ${p.mode === 'direct' ? 'direct' : 'converted'}${
                        p.conversion_speed === null
                          ? null
                          : html` (${p.conversion_speed.toFixed(2)}× real time)`
                      }
                    </td>
                    <td>${howFar(p.position_seconds, p.duration_seconds)}</td>
                    <td>
                      <form method="post" action="/now-playing/${p.id}/stop">
                        <input type="hidden" name="_csrf" value="${csrf}" />
                        <button type="submit" aria-label="Stop ${p.title} for ${p.user_name}">Stop</button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
