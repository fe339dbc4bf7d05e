// The Jellyfin image URL read into what reelshelf serves (domain/jellyfin/image-request.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImageRequest } from '../../../src/domain/jellyfin/image-request.ts';

describe('jellyfin: image requests', () => {
  const cases: [string, string, string | undefined, Record<string, unknown>, unknown][] = [
    [
      'the SDK’s poster URL',
      'Primary',
      undefined,
      { tag: 'ab12' },
      { kind: 'Primary', width: undefined, tag: 'ab12' },
    ],
    [
      'path lower-cased on arrival',
      'primary',
      undefined,
      {},
      { kind: 'Primary', width: undefined, tag: null },
    ],
    ['backdrop 0', 'backdrop', '0', { TAG: 'cd' }, { kind: 'Backdrop', width: undefined, tag: 'cd' }],
    [
      'maxWidth, any key case',
      'Primary',
      undefined,
      { MAXWIDTH: '300' },
      { kind: 'Primary', width: 300, tag: null },
    ],
    [
      'fillWidth before maxWidth',
      'Primary',
      undefined,
      { fillWidth: '200', maxWidth: '900' },
      { kind: 'Primary', width: 200, tag: null },
    ],
    [
      'width first',
      'Primary',
      undefined,
      { width: '120', fillWidth: '200' },
      { kind: 'Primary', width: 120, tag: null },
    ],
    [
      'a height alone: by the poster aspect',
      'Primary',
      undefined,
      { fillHeight: '450' },
      { kind: 'Primary', width: 300, tag: null },
    ],
    [
      'a height alone: by the backdrop aspect',
      'Backdrop',
      undefined,
      { maxHeight: '720' },
      { kind: 'Backdrop', width: 1280, tag: null },
    ],
    [
      'quality, format, blur ignored',
      'Primary',
      undefined,
      { quality: '90', format: 'webp', blur: '5' },
      { kind: 'Primary', width: undefined, tag: null },
    ],
    [
      'nonsense sizes ignored',
      'Primary',
      undefined,
      { maxWidth: 'big', width: '-3', height: '99999' },
      { kind: 'Primary', width: undefined, tag: null },
    ],
  ];
  for (const [name, type, index, query, expected] of cases) {
    it(name, () => assert.deepEqual(parseImageRequest(type, index, query), { ok: true, request: expected }));
  }
  for (const [type, index] of [
    ['Thumb', undefined],
    ['Logo', undefined],
    ['Banner', '0'],
    ['Backdrop', '1'],
    ['Primary', 'x'],
  ] as const) {
    it(`${type}${index === undefined ? '' : `/${index}`}: no such image`, () =>
      assert.deepEqual(parseImageRequest(type, index, {}), { ok: false, reason: 'no-such-image' }));
  }
});
