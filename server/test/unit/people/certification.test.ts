import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  certificationFromReleases,
  type ReleaseCertification,
} from '../../../src/domain/people/certification.ts';
import { canonicalCertification, certificationNames } from '../../../src/domain/people/ratings.ts';
import {
  certificationFilter,
  type ContentLimit,
  isCertificationVisible,
} from '../../../src/domain/people/visibility.ts';

const r = (country: string, type: number, certification: string | null): ReleaseCertification => ({
  country,
  type,
  certification,
});

describe('certificationFromReleases', () => {
  const cases: [string, string, ReleaseCertification[], string | null][] = [
    ['the theatrical release', 'US', [r('US', 3, 'PG-13'), r('US', 5, 'PG-13')], 'PG-13'],
    ['theatrical before a disc listed first', 'US', [r('US', 5, 'R'), r('US', 3, 'PG-13')], 'PG-13'],
    ['limited theatrical before digital', 'US', [r('US', 4, 'R'), r('US', 2, 'PG')], 'PG'],
    ['the premiere when no wide release', 'US', [r('US', 6, 'TV-MA'), r('US', 1, 'R')], 'R'],
    ['an empty theatrical one is skipped', 'US', [r('US', 3, ''), r('US', 5, 'PG')], 'PG'],
    ['an unknown name is skipped (NR)', 'US', [r('US', 3, 'NR'), r('US', 5, 'G')], 'G'],
    ['only the configured country', 'US', [r('GB', 3, '12A'), r('DE', 3, '12')], null],
    ['another country', 'GB', [r('US', 3, 'PG-13'), r('GB', 3, '12A')], '12A'],
    ['case and spaces folded, written canonically', 'US', [r('US', 3, ' pg-13 ')], 'PG-13'],
    ['null certification', 'US', [r('US', 3, null)], null],
    ['the first of the same type', 'US', [r('US', 3, 'PG'), r('US', 3, 'R')], 'PG'],
    ['no releases', 'US', [], null],
    ['a country without a table', 'ZZ', [r('ZZ', 3, 'PG')], null],
  ];
  for (const [name, country, releases, expected] of cases) {
    it(name, () => assert.equal(certificationFromReleases(country, releases), expected));
  }
});

describe('certification names', () => {
  it('are written as the system writes them, lowest first', () => {
    const us = certificationNames('US');
    assert.equal(us[0] === 'Approved' || us[0] === 'G' || us[0] === 'TV-G' || us[0] === 'TV-Y', true);
    assert.ok(us.indexOf('PG') < us.indexOf('PG-13'));
    assert.ok(us.indexOf('PG-13') < us.indexOf('R'));
    assert.equal(canonicalCertification('us', 'tv-y7-fv'), 'TV-Y7-FV');
    assert.equal(canonicalCertification('US', 'XX'), null);
  });
});

describe('isCertificationVisible / certificationFilter', () => {
  const pg: ContentLimit = { maxCertification: 'PG', allowUnrated: false };
  const pgUnrated: ContentLimit = { maxCertification: 'PG', allowUnrated: true };
  const cases: [string, ContentLimit | null, string | null, boolean][] = [
    ['no limit sees R', null, 'R', true],
    ['no limit sees unrated', null, null, true],
    ['PG sees G', pg, 'G', true],
    ['PG sees PG', pg, 'PG', true],
    ['PG does not see PG-13', pg, 'PG-13', false],
    ['PG does not see R', pg, 'R', false],
    ['PG does not see unrated', pg, null, false],
    ['PG does not see an unknown name', pg, 'NR', false],
    ['PG + unrated sees unrated', pgUnrated, null, true],
    ['PG + unrated still not R', pgUnrated, 'R', false],
    ['a limit naming nothing sees no rated film', { maxCertification: '', allowUnrated: false }, 'G', false],
  ];
  for (const [name, limit, certification, expected] of cases) {
    it(name, () => {
      assert.equal(isCertificationVisible('US', limit, certification), expected);
      // The SQL form agrees with the function.
      const filter = certificationFilter('US', limit);
      const key = certification?.trim().toUpperCase() ?? null;
      const viaFilter =
        filter === null ||
        (key !== null && filter.allowed.includes(key)) ||
        (filter.allowUnrated && (key === null || !filter.known.includes(key)));
      assert.equal(viaFilter, expected);
    });
  }
});
