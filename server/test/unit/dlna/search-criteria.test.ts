import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  matchesCriteria,
  MAX_CRITERIA_DEPTH,
  MAX_CRITERIA_LENGTH,
  parseSearchCriteria,
  type SearchSubject,
} from '../../../src/domain/dlna/search-criteria.ts';

const movie = (title: string, isReference = false): SearchSubject => ({
  upnpClass: 'object.item.videoItem.movie',
  title,
  isReference,
});
const HEAT = movie('Heat');
const HEAT_REF = movie('Heat', true);
const AMELIE = movie('Le Fabuleux Destin d’Amélie Poulain');
const QUOTED = movie('Say "Cheese" \\ Smile');

describe('parseSearchCriteria + matchesCriteria: what TVs send', () => {
  const cases: [string, SearchSubject, boolean][] = [
    ['*', HEAT, true],
    ['  *  ', HEAT, true],
    ['', HEAT, true],
    ['upnp:class derivedfrom "object.item.videoItem"', HEAT, true],
    ['upnp:class derivedfrom "object.item"', HEAT, true],
    ['upnp:class derivedFrom "object.item.videoItem"', HEAT, true],
    ['upnp:class derivedfrom "object.item.video"', HEAT, false],
    ['upnp:class derivedfrom "object.item.audioItem"', HEAT, false],
    ['upnp:class derivedfrom "object.container"', HEAT, false],
    ['upnp:class = "object.item.videoItem.movie"', HEAT, true],
    ['upnp:class = "object.item.videoItem"', HEAT, false],
    ['upnp:class != "object.item.videoItem"', HEAT, true],
    ['upnp:class="object.item.videoItem.movie"', HEAT, true],
    ['dc:title contains "hea"', HEAT, true],
    ['dc:title contains "HEA"', HEAT, true],
    ['dc:title contains "amélie"', AMELIE, true],
    ['dc:title contains "x"', HEAT, false],
    ['dc:title doesNotContain "x"', HEAT, true],
    ['dc:title = "heat"', HEAT, true],
    ['dc:title != "heat"', HEAT, false],
    ['dc:title contains ""', HEAT, true],
    ['dc:title contains "\\"Cheese\\""', QUOTED, true],
    ['dc:title contains "\\\\ Smile"', QUOTED, true],
    ['upnp:class derivedfrom "object.item.videoItem" and dc:title contains "heat"', HEAT, true],
    ['upnp:class derivedfrom "object.item.videoItem" and dc:title contains "zz"', HEAT, false],
    ['upnp:class derivedfrom "object.item.audioItem" or dc:title contains "heat"', HEAT, true],
    ['(upnp:class derivedfrom "object.item.videoItem") and (dc:title contains "heat")', HEAT, true],
    ['((dc:title contains "heat"))', HEAT, true],
    ['dc:title contains "x" AND dc:title contains "heat"', HEAT, false],
    // and binds tighter than or: a or (b and c)
    ['dc:title contains "heat" or dc:title contains "x" and dc:title contains "y"', HEAT, true],
    ['(dc:title contains "heat" or dc:title contains "x") and dc:title contains "y"', HEAT, false],
    ['upnp:class derivedfrom "object.item.videoItem" and @refID exists false', HEAT, true],
    ['upnp:class derivedfrom "object.item.videoItem" and @refID exists false', HEAT_REF, false],
    ['@refID exists true', HEAT_REF, true],
    ['dc:title exists true', HEAT, true],
    ['dc:title exists "false"', HEAT, false],
    ['\tdc:title\r\ncontains\n"heat"', HEAT, true],
  ];
  for (const [criteria, subject, expected] of cases) {
    it(`${JSON.stringify(criteria)} on ${JSON.stringify(subject.title)}${subject.isReference ? ' (ref)' : ''} → ${expected}`, () => {
      const parsed = parseSearchCriteria(criteria);
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
      assert.equal(matchesCriteria(parsed.criteria, subject), expected);
    });
  }
});

describe('parseSearchCriteria: refused, with a reason (the service answers 708)', () => {
  const refused: [string, string, RegExp][] = [
    ['unknown property', 'dc:creator contains "x"', /dc:creator is not supported/],
    ['unsupported operator on title', 'dc:title derivedfrom "x"', /not supported/],
    ['relational operator', 'dc:title < "x"', /operator/],
    ['contains on class', 'upnp:class contains "video"', /not supported/],
    ['refID compared', '@refID = "x"', /not supported/],
    ['unquoted value', 'dc:title contains heat', /quoted value/],
    ['unclosed quote', 'dc:title contains "heat', /not closed/],
    ['bad escape', 'dc:title contains "a\\nb"', /escape/],
    ['unclosed parenthesis', '(dc:title contains "heat"', /parenthesis/],
    ['stray closing parenthesis', 'dc:title contains "heat")', /unexpected/],
    ['empty parentheses', '()', /property/],
    ['dangling and', 'dc:title contains "heat" and', /end too early/],
    ['leading or', 'or dc:title contains "heat"', /not supported/],
    ['two relations without operator', 'dc:title contains "a" dc:title contains "b"', /unexpected/],
    ['exists without boolean', 'dc:title exists maybe', /true or false/],
    ['missing operator', 'dc:title', /operator/],
    ['a star inside', 'dc:title contains "a" or *', /unexpected character/],
    ['SQL-looking injection', `dc:title contains "x"; DROP TABLE movies; --`, /unexpected character/],
    ['markup', '<x/>', /unexpected character/],
    ['NUL byte', 'dc:title contains "a"\u0000', /unexpected character/],
    ['too long', `dc:title contains "${'a'.repeat(MAX_CRITERIA_LENGTH)}"`, /longer than/],
    [
      'too deep',
      `${'('.repeat(MAX_CRITERIA_DEPTH + 1)}dc:title contains "a"${')'.repeat(MAX_CRITERIA_DEPTH + 1)}`,
      /deeper/,
    ],
  ];
  for (const [name, criteria, reason] of refused) {
    it(name, () => {
      const parsed = parseSearchCriteria(criteria);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.reason, reason);
    });
  }

  it('nesting at the limit is still read', () => {
    const depth = MAX_CRITERIA_DEPTH;
    const parsed = parseSearchCriteria(`${'('.repeat(depth)}dc:title contains "heat"${')'.repeat(depth)}`);
    assert.ok(parsed.ok);
  });

  it('a long chain of and/or within the length limit is read without deep recursion', () => {
    const chain = Array.from({ length: 150 }, (_, i) => `dc:title contains "${i % 10}"`).join(' or ');
    assert.ok(chain.length < MAX_CRITERIA_LENGTH);
    const parsed = parseSearchCriteria(chain);
    assert.ok(parsed.ok);
    assert.equal(matchesCriteria(parsed.criteria, movie('Room 7')), true);
    assert.equal(matchesCriteria(parsed.criteria, movie('Heat')), false);
  });
});
