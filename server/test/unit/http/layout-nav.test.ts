// The navigation (issue 27): the collector's six pages sit under one "Shelf" entry, with their own
// row while one of them is open, so the header stays one row elsewhere and two on the shelf's pages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NAV_LINKS, SHELF_LINKS, layout } from '../../../src/http/pages/layout.ts';
import { html } from '../../../src/http/pages/html.ts';

const page = (current: string): string =>
  layout({ title: 't', csrf: 'c', current, body: html`<p>x</p>`, assetUrl: (n) => `/assets/${n}` });

describe('layout navigation', () => {
  it('lists each shelf page once, in the shelf row only', () => {
    assert.deepEqual(
      SHELF_LINKS.map((l) => l.href),
      ['/binders', '/loans', '/wishes', '/rip-queue', '/upgrades', '/stats'],
    );
    assert.ok(NAV_LINKS.some((l) => l.id === 'shelf'));
    for (const l of SHELF_LINKS) assert.ok(!NAV_LINKS.some((n) => n.id === l.id), l.id);
  });

  for (const { current, shelfRow, pageLink, sectionLink } of [
    { current: 'rip-queue', shelfRow: true, pageLink: 'Rip queue', sectionLink: 'Shelf' },
    { current: 'stats', shelfRow: true, pageLink: 'Stats', sectionLink: 'Shelf' },
    { current: 'library', shelfRow: false, pageLink: 'Library', sectionLink: null },
    { current: 'history', shelfRow: false, pageLink: 'History', sectionLink: null },
  ]) {
    it(`${current}: the shelf row ${shelfRow ? 'shown' : 'absent'}, one page marked current`, () => {
      const doc = page(current);
      assert.equal(doc.includes('aria-label="Shelf"'), shelfRow);
      // One line a link, as the page tests and scripts read it: `<a href="/x" aria-current="page">X</a>`.
      const marked = [...doc.matchAll(/<a href="[^"]+" aria-current="page">([^<]+)<\/a>/g)].map((m) => m[1]);
      assert.deepEqual(marked, [pageLink]);
      const section = [...doc.matchAll(/aria-current="true"\s*>([^<]+)</g)].map((m) => m[1]);
      assert.deepEqual(section, sectionLink === null ? [] : [sectionLink]);
    });
  }
});
