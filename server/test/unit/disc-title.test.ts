import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CleanDiscTitle, cleanDiscTitle } from '../../src/domain/disc-title.ts';

const MOVIES = 'Media > DVDs & Videos';

type Expect = Partial<CleanDiscTitle> & { title: string };

/** [product title, expected (unlisted fields: year null, format null, is3d false, edition null, no digital)]. */
const table: [string, Expect][] = [
  // metadata.md §3.4 examples
  ['Inception (Blu-ray) [Blu-ray]', { title: 'Inception', format: 'Blu-ray' }],
  [
    'Blade Runner: The Final Cut (Director’s Version) [Blu-ray]',
    { title: 'Blade Runner: The Final Cut', format: 'Blu-ray', edition: 'Director’s Version' },
  ],
  ['The Collector [DVD]', { title: 'The Collector', format: 'DVD' }],
  ["1408 (Two-Disc Collector's Edition)", { title: '1408', edition: "Two-Disc Collector's Edition" }],
  ["1408 [2 Discs] [Collector's Edition]", { title: '1408', edition: "Collector's Edition" }],
  ['1408 - DVD', { title: '1408', format: 'DVD' }],
  ['Akira (Widescreen) [DVD] NEW', { title: 'Akira', format: 'DVD', edition: 'Widescreen' }],
  ['30 Days of Night DVD', { title: '30 Days of Night', format: 'DVD' }],
  ['Scanner Darkly A', { title: 'A Scanner Darkly' }],
  [
    'The Matrix (Blu-ray + DVD + Digital Copy)',
    { title: 'The Matrix', format: 'Blu-ray', hasDigitalCopy: true },
  ],
  ['Dune (4K Ultra HD + Blu-ray + Digital)', { title: 'Dune', format: '4K UHD', hasDigitalCopy: true }],
  ['Joker [4K UHD]', { title: 'Joker', format: '4K UHD' }],
  ['Mad Max: Fury Road (Steelbook)', { title: 'Mad Max: Fury Road', edition: 'Steelbook' }],
  ['Gladiator (Widescreen Edition)', { title: 'Gladiator', edition: 'Widescreen Edition' }],
  // combos and the brief's cases
  ['Avatar 3D (Blu-ray 3D + Blu-ray)', { title: 'Avatar', format: 'Blu-ray', is3d: true }],
  ['Alien (Special Edition) [DVD]', { title: 'Alien', format: 'DVD', edition: 'Special Edition' }],
  ['The Matrix (1999) [Blu-ray]', { title: 'The Matrix', year: 1999, format: 'Blu-ray' }],
  [
    'The Dark Knight (2008) (4K Ultra HD Blu-ray + Digital Code)',
    { title: 'The Dark Knight', year: 2008, format: '4K UHD', hasDigitalCopy: true },
  ],
  ['Casablanca (Blu-ray) [1942]', { title: 'Casablanca', year: 1942, format: 'Blu-ray' }],
  ['Matrix, The [DVD]', { title: 'The Matrix', format: 'DVD' }],
  ['Heat (BD) [Blu-ray]', { title: 'Heat', format: 'Blu-ray' }],
  ['Toy Story (Blu-ray/DVD Combo Pack)', { title: 'Toy Story', format: 'Blu-ray' }],
  [
    'Interstellar (Limited Edition Steelbook) [4K UHD + Blu-ray]',
    { title: 'Interstellar', format: '4K UHD', edition: 'Limited Edition Steelbook' },
  ],
  [
    'Spider-Man (Blu-ray Steelbook) [Blu-ray]',
    { title: 'Spider-Man', format: 'Blu-ray', edition: 'Steelbook' },
  ],
  ["Alien - Director's Cut - Blu-ray", { title: 'Alien', format: 'Blu-ray', edition: "Director's Cut" }],
  ['Mission: Impossible - Fallout [Blu-ray]', { title: 'Mission: Impossible - Fallout', format: 'Blu-ray' }],
  ['(500) Days of Summer [Blu-ray]', { title: '(500) Days of Summer', format: 'Blu-ray' }],
  ['Up (Single-Disc Edition) [DVD]', { title: 'Up', format: 'DVD', edition: 'Single-Disc Edition' }],
  [
    'Jaws (Universal 100th Anniversary) [Blu-ray]',
    { title: 'Jaws', format: 'Blu-ray', edition: 'Universal 100th Anniversary' },
  ],
  [
    "Halloween (Unrated Director's Cut) (DVD) Used",
    { title: 'Halloween', format: 'DVD', edition: "Unrated Director's Cut" },
  ],
  ['Something New [DVD] SEALED', { title: 'Something New', format: 'DVD' }],
  ['Something New', { title: 'Something New' }],
  ['Piranha 3D [Blu-ray]', { title: 'Piranha 3D', format: 'Blu-ray' }],
  ["Amélie (Le Fabuleux Destin d'Amélie Poulain) [DVD]", { title: 'Amélie', format: 'DVD' }],
  ['Heat [Region 2] [DVD]', { title: 'Heat', format: 'DVD' }],
  [
    '  The   Thing  (Collector’s Edition)  [Blu-ray]  ',
    { title: 'The Thing', format: 'Blu-ray', edition: 'Collector’s Edition' },
  ],
  ['Inception Blu-ray + DVD', { title: 'Inception', format: 'Blu-ray' }],
];

describe('cleanDiscTitle (metadata.md §3.4)', () => {
  for (const [input, expected] of table) {
    it(JSON.stringify(input), () => {
      const full: CleanDiscTitle = {
        year: null,
        format: null,
        is3d: false,
        edition: null,
        hasDigitalCopy: false,
        looksLikeMovie: true,
        ...expected,
      };
      assert.deepEqual(cleanDiscTitle(input, MOVIES), full);
    });
  }

  it('has at least 25 table rows', () => assert.ok(table.length >= 25));

  it('is stable: cleaning a cleaned title changes nothing', () => {
    for (const [input] of table) {
      const once = cleanDiscTitle(input).title;
      if (once.startsWith('(')) continue; // "(500) Days of Summer" keeps its opening group
      assert.equal(cleanDiscTitle(once).title, once, input);
    }
  });
});

describe('looksLikeMovie', () => {
  it('a movie category is enough', () => {
    assert.equal(cleanDiscTitle('Toy Story', 'Media > DVDs & Videos').looksLikeMovie, true);
    assert.equal(cleanDiscTitle('Toy Story', 'Media > DVDs & Videos > Sports Videos').looksLikeMovie, true);
  });
  it('a format token is enough, whatever the category says', () => {
    const r = cleanDiscTitle(
      'Inception [Blu-ray]',
      'Electronics > Video > Video Players & Recorders > DVD & Blu-ray Players',
    );
    assert.equal(r.looksLikeMovie, true);
    assert.equal(r.format, 'Blu-ray');
  });
  it('the category never sets the format', () => {
    const r = cleanDiscTitle(
      'USB Cable',
      'Electronics > Video > Video Players & Recorders > DVD & Blu-ray Players',
    );
    assert.equal(r.format, null);
    assert.equal(r.looksLikeMovie, false);
  });
  it('no category and no format: not a movie', () => {
    assert.equal(cleanDiscTitle('Toy Story').looksLikeMovie, false);
  });
});

describe('edge cases', () => {
  it('a title that is only a group keeps the group text', () => {
    assert.equal(cleanDiscTitle('(Untitled)').title, 'Untitled');
  });
  it('a format word alone is kept rather than emptied', () => {
    assert.equal(cleanDiscTitle('DVD').title, 'DVD');
  });
  it('"Collector" in the title body is not an edition', () => {
    const r = cleanDiscTitle('The Collector (2009) [Blu-ray]');
    assert.deepEqual([r.title, r.year, r.edition], ['The Collector', 2009, null]);
  });
});
