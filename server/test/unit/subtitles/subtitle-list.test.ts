import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultSubtitleIndex,
  languageName,
  subtitleLabel,
} from '../../../src/domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack } from '../../../src/domain/subtitles/subtitle-track.ts';

function track(index: number, over: Partial<SubtitleTrack> = {}): SubtitleTrack {
  return {
    index,
    source: { kind: 'embedded', stream: index },
    format: 'srt',
    kind: 'text',
    language: 'eng',
    title: null,
    forced: false,
    default: false,
    sdh: false,
    ...over,
  };
}

describe('languageName', () => {
  for (const [code, name] of [
    ['eng', 'English'],
    ['en', 'English'],
    ['fre', 'French'],
    ['fra', 'French'],
    ['ger', 'German'],
    ['deu', 'German'],
    ['spa', 'Spanish'],
    ['xyz', null],
    [null, null],
  ] as const) {
    it(`${code} → ${name}`, () => assert.equal(languageName(code), name));
  }
});

describe('subtitleLabel', () => {
  const cases: [Partial<SubtitleTrack>, string][] = [
    [{}, 'English'],
    [{ forced: true, language: 'fre' }, 'French (forced)'],
    [{ sdh: true }, 'English SDH'],
    [{ title: 'Commentary' }, 'English · Commentary'],
    [{ title: 'English' }, 'English'],
    [{ title: 'SDH', sdh: true }, 'English SDH'],
    [{ language: null, title: 'Signs' }, 'Signs'],
    [{ language: null }, 'Track 3'],
  ];
  for (const [over, label] of cases) {
    it(`${JSON.stringify(over)} → ${label}`, () => assert.equal(subtitleLabel(track(2, over)), label));
  }
});

describe('defaultSubtitleIndex', () => {
  it('a forced track in the audio language first', () => {
    const tracks = [
      track(0, { default: true }),
      track(1, { forced: true, language: 'fre' }),
      track(2, { forced: true }),
    ];
    assert.equal(defaultSubtitleIndex(tracks, 'eng'), 2);
  });
  it('else the default-flagged one', () => {
    assert.equal(defaultSubtitleIndex([track(0), track(1, { default: true, language: 'fre' })], 'eng'), 1);
  });
  it('else none: no subtitles is a valid default', () => {
    assert.equal(defaultSubtitleIndex([track(0), track(1, { forced: true, language: 'fre' })], 'eng'), null);
  });
  it('a forced track without a language counts as the audio language', () => {
    assert.equal(defaultSubtitleIndex([track(0, { forced: true, language: null })], 'eng'), 0);
  });
  it('an image sidecar is never the default', () => {
    const sidecar: SubtitleTrack['source'] = {
      kind: 'sidecar',
      relativePath: 'a.sup',
      sizeBytes: 1,
      mtimeMs: 1,
    };
    assert.equal(
      defaultSubtitleIndex(
        [track(0, { forced: true, kind: 'image', format: 'pgs', source: sidecar })],
        'eng',
      ),
      null,
    );
  });
});
