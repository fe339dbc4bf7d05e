import type { DlnaStatus } from '../../services/dlna/dlna-services.ts';
import { type Html, html } from './html.ts';

/**
 * The people page's DLNA section (admins): whether the MediaServer is on and for whom — TVs see that
 * person's view, since DLNA has no sign-in — and the TVs that asked lately (kept in memory).
 */
export function dlnaSection(status: DlnaStatus): Html {
  if (!status.enabled) {
    return html`<h2 id="dlna">DLNA (TVs without an app)</h2>
      <p>
        DLNA is off. Set <code>REELSHELF_DLNA</code> to a person’s name to let TVs on this network browse that
        person’s view.
      </p>`;
  }
  return html`<h2 id="dlna">DLNA (TVs without an app)</h2>
    <p>
      DLNA is on for <strong>${status.person ?? ''}</strong> as “${status.friendlyName}”
      <span class="help">${status.udn}</span>.
    </p>
    ${status.personFound ? null : html`<p class="error" role="alert">${status.hint ?? ''}</p>`}
    ${
      status.recentTvs.length === 0
        ? html`<p class="help">No TV has asked since the server started.</p>`
        : html`<table class="dlna-tvs">
            <thead>
              <tr>
                <th scope="col">TV (User-Agent)</th>
                <th scope="col">Address</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
                <th scope="col">Last action</th>
              </tr>
            </thead>
            <tbody>
              ${status.recentTvs.map(
                (tv) =>
                  html`<tr>
                    <th scope="row">${tv.userAgent === '' ? '(none sent)' : tv.userAgent}</th>
                    <td>${tv.address}</td>
                    <td>${tv.firstSeen.toISOString()}</td>
                    <td>${tv.lastSeen.toISOString()}</td>
                    <td>${tv.lastAction}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
