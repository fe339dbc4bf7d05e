import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  escapeFilterOptionValue,
  ffmpegPath,
  filterWithOptions,
  quoteFilterArguments,
} from '../../../src/domain/ffmpeg/filter-escape.ts';

describe('filtergraph escaping', () => {
  const values: [string, string][] = [
    ['/plain/path.mkv', '/plain/path.mkv'],
    ['C:\\films\\a.mkv', 'C\\:\\\\films\\\\a.mkv'],
    ["it's", "it\\'s"],
    ['a b', 'a\\ b'],
    [' lead', '\\ lead'],
    ['[x],y;z', '[x],y;z'],
  ];
  for (const [value, expected] of values) {
    it(`option value ${JSON.stringify(value)} → ${JSON.stringify(expected)}`, () =>
      assert.equal(escapeFilterOptionValue(value), expected));
  }

  it('quotes a filter argument string, turning each quote into close-escape-reopen', () => {
    assert.equal(quoteFilterArguments('a=[1],b;c'), "'a=[1],b;c'");
    assert.equal(quoteFilterArguments("x\\'y"), "'x\\'\\''y'");
  });

  it('builds name=options with both levels applied', () => {
    assert.equal(
      filterWithOptions('subtitles', [
        ['filename', '/m/x.mkv'],
        ['si', 2],
      ]),
      "subtitles='filename=/m/x.mkv:si=2'",
    );
    assert.equal(
      filterWithOptions('subtitles', [['filename', "/m/a'b:c.mkv"]]),
      "subtitles='filename=/m/a\\'\\''b\\:c.mkv'",
    );
  });

  it('gives ffmpeg absolute paths as they are and anything else as a file: URL', () => {
    assert.equal(ffmpegPath('/a/b:c.mkv'), '/a/b:c.mkv');
    assert.equal(ffmpegPath('rel/a.mkv'), 'file:rel/a.mkv');
    assert.equal(ffmpegPath('http://x/y'), 'file:http://x/y');
  });
});
