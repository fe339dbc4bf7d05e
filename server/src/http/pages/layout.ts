import type { PhysicalCopyInfo } from '@reelshelf/contract';
import { type Html, html, raw } from './html.ts';

type NavLink = { href: string; label: string; id: string };

/**
 * The collector's pages (issue 27): one entry, "Shelf", in the main navigation, and their own row
 * under it while one of them is open. Thirteen links in one row wrapped the header onto three
 * lines at 1920 px.
 */
export const SHELF_LINKS: readonly NavLink[] = [
  { href: '/binders', label: 'Binders', id: 'binders' },
  { href: '/loans', label: 'Loans', id: 'loans' },
  { href: '/wishes', label: 'Wish list', id: 'wishes' },
  { href: '/rip-queue', label: 'Rip queue', id: 'rip-queue' },
  { href: '/upgrades', label: 'Upgrades', id: 'upgrades' },
  { href: '/stats', label: 'Stats', id: 'stats' },
];

/** The navigation of every signed-in page. Another page (e.g. Import) adds its entry here. */
export const NAV_LINKS: readonly NavLink[] = [
  { href: '/library', label: 'Library', id: 'library' },
  { href: '/scan', label: 'Scan folders', id: 'scan' },
  { href: '/import', label: 'Import', id: 'import' },
  { href: '/binders', label: 'Shelf', id: 'shelf' },
  { href: '/history', label: 'History', id: 'history' },
  { href: '/now-playing', label: 'Now playing', id: 'now-playing' },
];

/** One navigation row; `page` is the open page's link, `section` the link of its section. */
function navList(links: readonly NavLink[], page: string | undefined, section: string | null): Html {
  const current = (id: string): Html | null =>
    id === page ? raw('aria-current="page"') : id === section ? raw('aria-current="true"') : null;
  return html`<ul>
    ${links.map((l) => html`<li><a href="${l.href}" ${current(l.id)}>${l.label}</a></li>`)}
  </ul>`;
}

export interface LayoutOptions {
  title: string;
  /** The session's CSRF token; null on the sign-in page (no navigation, no sign-out). */
  csrf: string | null;
  /** The signed-in person: named in the header; an admin gets the People page in the navigation. */
  person?: { name: string; admin: boolean };
  /** Which NAV_LINKS entry is the current page. */
  current?: string;
  body: Html;
  /** Asset names (under /assets/) loaded as module scripts. */
  scripts?: string[];
  /** Extra elements for <head> (e.g. a <noscript> refresh). */
  head?: Html;
  assetUrl: (name: string) => string;
}

/** The HTML document around every page: language, viewport, CSRF meta tag, navigation. */
export function layout(options: LayoutOptions): string {
  const { csrf, person } = options;
  const inShelf = SHELF_LINKS.some((l) => l.id === options.current);
  const links = [
    ...NAV_LINKS,
    { href: '/who', label: 'Who’s watching', id: 'who' },
    ...(person?.admin === true ? [{ href: '/people', label: 'People', id: 'people' }] : []),
  ];
  const nav =
    csrf === null
      ? null
      : html`<header class="site-header">
          <a class="brand" href="/library">reelshelf</a>
          <nav aria-label="Main">${navList(links, options.current, inShelf ? 'shelf' : null)}</nav>
          ${person === undefined ? null : html`<span class="person">${person.name}</span>`}
          <form class="sign-out" method="post" action="/sign-out">
            <input type="hidden" name="_csrf" value="${csrf}" />
            <button type="submit" class="button-secondary">Sign out</button>
          </form>
          ${inShelf ? html`<nav class="sub-nav" aria-label="Shelf">${navList(SHELF_LINKS, options.current, null)}</nav>` : null}
        </header>`;
  const doc = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="dark" />
        ${csrf === null ? null : html`<meta name="csrf-token" content="${csrf}" />`}
        <title>${options.title} · reelshelf</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${options.assetUrl('app.css')}" />
        ${(options.scripts ?? []).map(
          (s) => html`<script type="module" src="${options.assetUrl(s)}"></script>`,
        )}
        ${options.head ?? null}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        ${nav}
        <main id="main" tabindex="-1">${options.body}</main>
      </body>
    </html>`;
  return doc.value;
}

const BADGE_LABELS: Record<string, string> = {
  playable: 'Playable',
  on_disc: 'On disc',
  not_analyzed: 'Not analyzed',
  analysis_failed: 'Analysis failed',
  integrity_flagged: 'Check file',
  not_supported: 'Not supported',
  missing: 'Missing',
};

/** The word a badge shows (it always carries a word, never colour alone). */
export function badgeLabel(badge: string): string {
  return BADGE_LABELS[badge] ?? 'Unknown';
}

/** A badge as colour and word. */
export function badge(value: string): Html {
  const known = value in BADGE_LABELS ? value : 'unknown';
  return html`<span class="badge badge-${known}">${badgeLabel(value)}</span>`;
}

/** "Binder A · slot 12 · Blu-ray" (empty parts left out). */
export function copyLocation(copy: PhysicalCopyInfo): string {
  const parts = [
    copy.binder,
    copy.slot === '' ? '' : `slot ${copy.slot}`,
    copy.format === null || copy.format === undefined ? '' : copy.format,
  ];
  return parts.filter((p) => p !== '').join(' · ') || 'Location not recorded';
}
