import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Capabilities } from '../../../../src/domain/media/capabilities.ts';
import type { PlaybackDecision, PlaybackPrediction } from '../../../../src/domain/playback/decision-types.ts';
import type { LibraryFileRow } from '../../../../src/repositories/library.repository.ts';
import { PlaybackService, usesHls } from '../../../../src/services/playback/playback.service.ts';
import { PlaybackTokenService } from '../../../../src/services/playback/playback-token.service.ts';
import { profileOf } from '../../playback/fixtures.ts';

const PREDICTIONS: PlaybackPrediction[] = ['direct', 'remux', 'adaptive', 'transcode', 'strict_incompatible'];

/** prediction × prefers_hls × playable → hls_url set? (issue 13 §3) */
const TABLE: [PlaybackPrediction, boolean, boolean, boolean][] = [
  // prediction, prefersHls, isPlayable, hls
  ['direct', false, true, false],
  ['direct', true, true, true],
  ['remux', false, true, true],
  ['remux', true, true, true],
  ['adaptive', false, true, true],
  ['adaptive', true, true, true],
  ['transcode', false, true, true],
  ['transcode', true, true, true],
  // Nothing that does not play gets an HLS URL, whatever the profile or the would-be step.
  ['strict_incompatible', false, false, false],
  ['strict_incompatible', true, false, false],
  ['direct', true, false, false],
  ['transcode', false, false, false],
];

describe('usesHls: which players get an HLS URL', () => {
  for (const [prediction, prefersHls, isPlayable, hls] of TABLE) {
    it(`${prediction}, prefers_hls ${prefersHls}, playable ${isPlayable} → ${hls ? 'HLS' : 'no HLS'}`, () => {
      assert.equal(usesHls({ prediction, isPlayable, prefersHls }), hls);
    });
  }
  it('covers every prediction', () => {
    assert.deepEqual([...new Set(TABLE.map(([p]) => p))].sort(), [...PREDICTIONS].sort());
  });
});

describe('PlaybackService.info', () => {
  const clock = { now: () => new Date('2030-01-01T10:20:00Z') };
  const tokens = new PlaybackTokenService('k'.repeat(43), clock);
  /** The URLs are signed for the person asking and the credential they used. */
  const holder = { userId: 3, credential: { kind: 'session', id: 9 } } as const;

  function serviceFor(
    device: string,
    decision: Pick<PlaybackDecision, 'prediction' | 'isPlayable'>,
    caps: Partial<Capabilities> | null,
    warnings: string[] = [],
  ) {
    const asked: string[] = [];
    const service = new PlaybackService(
      {
        needs: async (fileId, dev) => {
          asked.push(dev);
          return {
            file: { id: fileId } as LibraryFileRow,
            profile: profileOf(device),
            decision: decision as PlaybackDecision,
          };
        },
      },
      // A capability record with only what the test sets (no tracks unless given).
      {
        capabilitiesOf: () =>
          caps === null ? null : ({ audio: [], subtitles: [], ...caps } as Capabilities),
      },
      tokens,
      { warnings: (fileId, dev) => warnings.map((w) => `${w} (${fileId}, ${dev})`) },
    );
    return { service, asked };
  }

  it('a conversion on web: the progressive URL of /library plus the HLS master with the same token', async () => {
    const { service, asked } = serviceFor(
      'web',
      { prediction: 'adaptive', isPlayable: true },
      { duration_seconds: 600.04 },
      ['slow'],
    );
    const info = await service.info(7, undefined, holder);
    assert.deepEqual(asked, ['web'], 'no device means web');
    const token = tokens.sign(7, 'web', holder);
    assert.deepEqual(info, {
      prediction: 'adaptive',
      is_playable: true,
      stream_url: tokens.streamUrl(7, 'web', holder),
      hls_url: `/stream/media_file/7/master.m3u8?device=web&token=${encodeURIComponent(token)}`,
      duration_seconds: 600.04,
      warnings: ['slow (7, web)'],
      subtitles: [],
    });
    assert.equal(info.stream_url, `/stream/media_file/7?device=web&token=${encodeURIComponent(token)}`);
  });

  it('a direct file: no HLS on web, HLS on tv; unknown duration is null', async () => {
    const web = await serviceFor('web', { prediction: 'direct', isPlayable: true }, null).service.info(
      3,
      'web',
      holder,
    );
    assert.equal(web.hls_url, null);
    assert.equal(web.duration_seconds, null);
    const tv = await serviceFor('tv', { prediction: 'direct', isPlayable: true }, {}).service.info(
      3,
      'tv',
      holder,
    );
    assert.match(
      tv.hls_url ?? '',
      /^\/stream\/media_file\/3\/master\.m3u8\?device=tv&token=v2\.3\.s9\.\d+\.[\w-]{43}$/,
    );
    assert.equal(tv.duration_seconds, null);
  });

  it('not playable: no HLS URL and no warnings, the stream URL is still given', async () => {
    const { service } = serviceFor(
      'tv',
      { prediction: 'strict_incompatible', isPlayable: false },
      { duration_seconds: 12 },
      ['never asked'],
    );
    const info = await service.info(4, 'tv', holder);
    assert.equal(info.is_playable, false);
    assert.equal(info.hls_url, null);
    assert.deepEqual(info.warnings, []);
    assert.equal(info.stream_url, tokens.streamUrl(4, 'tv', holder));
  });
});
