import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import {
  ftsMatchExpression,
  ftsMatchQuery,
  MAX_SEARCH_TERMS,
  searchTerms,
  tsQueryExpression,
  tsQueryText,
} from '../../src/domain/search-query.ts';

describe('ftsMatchQuery: what a person types → an FTS5 MATCH expression', () => {
  const cases: [string, string | null][] = [
    ['amelie', '"amelie"*'],
    ['Amélie', '"amélie"*'],
    // Decomposed (macOS) input is composed first; the index folds the accent either way.
    ['Ame\u0301lie', '"amélie"*'],
    ['  Léon   the  Professional ', '"léon"* "the"* "professional"*'],
    ['amel*', '"amel"*'],
    ['inc', '"inc"*'],
    ['AC/DC', '"ac"* "dc"*'],
    ['"quoted', '"quoted"*'],
    ['say "hi" there"', '"say"* "hi"* "there"*'],
    ['tom NOT hanks', '"tom"* "not"* "hanks"*'],
    ['a OR b AND c', '"a"* "or"* "b"* "and"* "c"*'],
    ['NEAR(a b, 3)', '"near"* "a"* "b"* "3"*'],
    ['-dicaprio', '"dicaprio"*'],
    ['spider-man', '"spider"* "man"*'],
    ['title:alien', '"title"* "alien"*'],
    ['{title}: x', '"title"* "x"*'],
    ['^start +plus (paren)', '"start"* "plus"* "paren"*'],
    ["d'Amélie", '"d"* "amélie"*'],
    ['Se7en 2049', '"se7en"* "2049"*'],
    ['WALL·E', '"wall"* "e"*'],
    ['千と千尋', '"千と千尋"*'],
    ['Крёстный отец', '"крёстный"* "отец"*'],
    ['heat heat HEAT', '"heat"*'],
    ['', null],
    ['   ', null],
    ['***', null],
    ['"', null],
    ['- : * " ( ) ^ + / \\ ; ,', null],
    ['\u0301', null],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected ?? 'null (list instead)'}`, () => {
      assert.equal(ftsMatchQuery(input), expected);
    });
  }

  it(`keeps at most ${MAX_SEARCH_TERMS} words and cuts very long ones`, () => {
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    assert.equal(searchTerms(many).length, MAX_SEARCH_TERMS);
    assert.equal(searchTerms('x'.repeat(500))[0]?.length, 64);
  });

  it('every expression it makes is valid FTS5 (nothing a person types is an error)', () => {
    const db = new BetterSqlite3(':memory:');
    db.exec(
      "CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1)",
    );
    db.prepare('INSERT INTO t (rowid, a, b) VALUES (1, ?, ?)').run(
      'AC/DC: Live at River Plate',
      'Angus Young',
    );
    const find = db.prepare('SELECT rowid FROM t WHERE t MATCH ?').pluck();
    const nasty = [
      ...cases.map(([input]) => input),
      'NOT',
      'AND OR',
      'a NEAR b',
      '"unterminated',
      'col:umn',
      '*',
      '*abc',
      'x*y',
      ')(',
      "'; DROP TABLE t; --",
      '\u0000nul',
      '😀 emoji',
    ];
    for (const input of nasty) {
      const match = ftsMatchQuery(input);
      if (match !== null) assert.doesNotThrow(() => find.all(match), input);
    }
    assert.deepEqual(find.all(ftsMatchQuery('ac/dc') ?? ''), [1]);
    assert.deepEqual(find.all(ftsMatchQuery('angus') ?? ''), [1]);
    db.close();
  });
});

describe('tsQueryText: what a person types → PostgreSQL to_tsquery text (the same words)', () => {
  const cases: [string, string | null][] = [
    ['amelie', "'amelie':*"],
    ['Amélie', "'amélie':*"],
    ['Ame\u0301lie', "'amélie':*"],
    ['  Léon   the  Professional ', "'léon':* & 'the':* & 'professional':*"],
    ['amel*', "'amel':*"],
    ['AC/DC', "'ac':* & 'dc':*"],
    ["d'Amélie", "'d':* & 'amélie':*"],
    ["rock 'n' roll", "'rock':* & 'n':* & 'roll':*"],
    ['tom & !hanks', "'tom':* & 'hanks':*"],
    ['a | b', "'a':* & 'b':*"],
    ['heat <-> pacino', "'heat':* & 'pacino':*"],
    ['heat:*A', "'heat':* & 'a':*"],
    ['(paren) -minus', "'paren':* & 'minus':*"],
    ['\\back\\slash', "'back':* & 'slash':*"],
    ['"quoted', "'quoted':*"],
    ['tom NOT hanks', "'tom':* & 'not':* & 'hanks':*"],
    ['Se7en 2049', "'se7en':* & '2049':*"],
    ['千と千尋', "'千と千尋':*"],
    ['Крёстный отец', "'крёстный':* & 'отец':*"],
    ['heat heat HEAT', "'heat':*"],
    ['', null],
    ['   ', null],
    ["'", null],
    ["''", null],
    ['- : * " ( ) ^ + / \\ ; , & | ! < >', null],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected ?? 'null (list instead)'}`, () => {
      assert.equal(tsQueryText(input), expected);
    });
  }

  it('has the same words as the FTS5 expression, in the same order', () => {
    for (const input of ['Léon the Professional', 'AC/DC: Let There Be Rock', "O'Brien", '千と千尋 の']) {
      const terms = searchTerms(input);
      assert.equal(ftsMatchQuery(input), ftsMatchExpression(terms));
      assert.equal(tsQueryText(input), tsQueryExpression(terms));
    }
  });

  it('quotes every word so that no character of it can end the quotes (words from elsewhere too)', () => {
    assert.equal(tsQueryExpression(["it's"]), "'it''s':*");
    assert.equal(tsQueryExpression(['a\\b']), "'a\\\\b':*");
    assert.equal(ftsMatchExpression(['say "hi"']), '"say ""hi"""*');
  });
});
