/**
 * Invariants over a generated cross product: fixtures × every device (built-in and two user
 * profiles) × both policies × transcoding on/off × artifact ready or not × subtitle choices.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Capabilities } from '../../../src/domain/media/capabilities.ts';
import { INCOMPATIBILITY_CODES } from '../../../src/domain/playback/codes.ts';
import {
  type AnalysisState,
  decidePlayback,
  type PlaybackDecision,
  type PlaybackInput,
  statusCodeFor,
} from '../../../src/domain/playback/decide-playback.ts';
import { type DeviceProfile, listDeviceProfiles } from '../../../src/domain/playback/device-profiles.ts';
import {
  audio,
  dolbyVision,
  file,
  h264,
  hevc10,
  hi10p,
  subtitle,
  tizen4,
  video,
  webos23,
  webWithHevc,
  webWithoutMkv,
} from './fixtures.ts';

const FIXTURES: Record<string, Capabilities> = {
  'mp4 h264 aac': file('mp4', h264({ codec_tag: 'avc1' }), [audio('aac', 2, { default: true })]),
  'mp4 h264 aac 25mbps': file('mp4', h264(), [audio('aac', 2)], [], { bitrate_bps: 25_000_000 }),
  'mkv h264 dts': file('mkv', h264(), [audio('dts', 6, { default: true })]),
  'mkv h264 dts-hd + ac3': file('mkv', h264(), [audio('dts', 6, { profile: 'DTS-HD MA' }), audio('ac3', 6)]),
  'mkv h264 dts eng + aac fre': file('mkv', h264(), [audio('dts', 6), audio('aac', 2, { language: 'fre' })]),
  'mkv h264 flac srt': file('mkv', h264(), [audio('flac', 2)], [subtitle('srt', { default: true })]),
  'mkv h264 aac pgs forced': file('mkv', h264(), [audio('aac', 2)], [subtitle('pgs', { forced: true })]),
  'mkv h264 aac ass': file('mkv', h264(), [audio('aac', 2)], [subtitle('ass')]),
  'mkv h264 aac 33 streams': file('mkv', h264(), [audio('aac', 2)], [], { stream_count: 33 }),
  'mkv h264 aac 7.1': file('mkv', h264(), [audio('aac', 8)]),
  'mkv h264 he-aac': file('mkv', h264(), [audio('aac', 2, { profile: 'HE-AAC' })]),
  'mkv h264 no audio': file('mkv', h264(), []),
  'mkv hi10p aac': file('mkv', hi10p(), [audio('aac', 2)]),
  'mkv h264 level 5.2 4k': file('mkv', h264({ level: 5.2, width: 3840, height: 2160 }), [audio('aac', 2)]),
  'mkv h264 interlaced anamorphic': file('mkv', h264({ interlaced: true, anamorphic: true, sar: '32:27' }), [
    audio('ac3', 2),
  ]),
  'mp4 hevc hvc1 aac': file('mp4', hevc10({ codec_tag: 'hvc1' }), [audio('aac', 2)]),
  'mp4 hevc hev1 aac': file('mp4', hevc10({ codec_tag: 'hev1' }), [audio('aac', 2)]),
  'mp4 hevc 120fps': file('mp4', hevc10({ codec_tag: 'hvc1', frame_rate: 119.88 }), [audio('aac', 2)]),
  'mkv hevc hdr10 truehd atmos': file('mkv', hevc10({ hdr: 'hdr10' }), [
    audio('truehd', 8, { profile: 'TrueHD Atmos' }),
  ]),
  'mkv hevc hdr10+ eac3': file('mkv', hevc10({ hdr: 'hdr10plus' }), [audio('eac3', 6)]),
  'mkv hevc hlg aac': file('mkv', hevc10({ hdr: 'hlg' }), [audio('aac', 2)]),
  'mp4 dv p5 dvh1': file('mp4', dolbyVision(5, 0, { codec_tag: 'dvh1' }), [audio('eac3', 6)]),
  'mp4 dv p5 dvhe': file('mp4', dolbyVision(5, 0, { codec_tag: 'dvhe' }), [audio('eac3', 6)]),
  'mkv dv p7 fel': file('mkv', dolbyVision(7, 6, {}, { el_present: true }), [audio('truehd', 8)]),
  'mkv dv p8.1': file('mkv', dolbyVision(8, 1), [audio('eac3', 6)]),
  'mp4 dv p8.4': file('mp4', dolbyVision(8, 4, { codec_tag: 'hvc1' }), [audio('aac', 2)]),
  'mkv dv invalid': file('mkv', dolbyVision(8, 3), [audio('aac', 2)]),
  'mkv dv tag only': file(
    'mp4',
    dolbyVision(5, 0, { codec_tag: 'dvh1' }, { profile: null, compat_id: null }),
  ),
  'webm vp9 opus': file('webm', video('vp9', { profile: 'Profile 0' }), [audio('opus', 2)]),
  'mkv av1 opus 5.1': file('mkv', video('av1', { profile: 'Main', bit_depth: 10 }), [audio('opus', 6)]),
  'avi xvid mp3': file('avi', video('mpeg4', { profile: 'Advanced Simple Profile' }), [audio('mp3', 2)]),
  'ts mpeg2 1080i ac3': file('ts', video('mpeg2video', { interlaced: true }), [audio('ac3', 6)]),
  'mkv vc1 pcm': file('mkv', video('vc1'), [audio('pcm_s24le', 6)]),
  'mp4 h264 mp3': file('mp4', h264(), [audio('mp3', 2)]),
  'mkv vobsub dvbsub': file('mkv', h264(), [audio('ac3', 6)], [subtitle('vobsub'), subtitle('dvbsub')]),
  'mkv unknown audio codec': file('mkv', h264(), [audio('unknown', 2)]),
  'no video stream': file('mka', null, [audio('flac', 2)]),
  'unknown video codec': file('mkv', video('unknown'), [audio('aac', 2)]),
};

const DEVICES: DeviceProfile[] = [...listDeviceProfiles(), webWithHevc, webWithoutMkv, tizen4, webos23];

interface Case {
  label: string;
  input: PlaybackInput;
  decision: PlaybackDecision;
}

function generateCases(): Case[] {
  const cases: Case[] = [];
  const add = (label: string, input: PlaybackInput) =>
    cases.push({ label, input, decision: decidePlayback(input) });
  for (const profile of DEVICES) {
    for (const policy of ['adaptive', 'strict'] as const) {
      for (const transcodeAvailable of [true, false]) {
        for (const artifactReady of [false, true]) {
          const base = { profile, policy, transcodeAvailable, artifactReady };
          const tag = `${profile.id}/${policy}/transcode=${transcodeAvailable}/artifact=${artifactReady}`;
          for (const [name, capabilities] of Object.entries(FIXTURES)) {
            for (const subtitleTrack of [undefined, null, 0]) {
              add(`${name} @ ${tag} subs=${subtitleTrack}`, {
                ...base,
                capabilities,
                analysis: 'analyzed',
                subtitleTrack,
              });
            }
          }
          for (const analysis of ['not_analyzed', 'failed', 'missing'] as AnalysisState[]) {
            add(`${analysis} @ ${tag}`, { ...base, capabilities: null, analysis });
          }
        }
      }
    }
  }
  return cases;
}

const CASES = generateCases();

/** Asserts `check` for every case, reporting the first few failures with their labels. */
function forAll(check: (c: Case) => boolean) {
  const failures = CASES.filter((c) => !check(c)).slice(0, 5);
  assert.deepEqual(
    failures.map(
      (c) =>
        `${c.label}: ${c.decision.prediction} ${c.decision.statusCode} ${c.decision.incompatibility?.code}`,
    ),
    [],
  );
}

const STATES = ['direct', 'remux', 'adaptive', 'transcode', 'strict_incompatible'];
const PLAYABLE = new Set(['direct', 'remux', 'adaptive', 'transcode']);

describe(`playback invariants (${CASES.length} generated decisions)`, () => {
  it('generates a large cross product', () => assert.ok(CASES.length > 9000, `only ${CASES.length} cases`));
  it('every decision has exactly one known state', () =>
    forAll((c) => STATES.includes(c.decision.prediction)));
  it('isPlayable ⇔ not strict_incompatible', () =>
    forAll((c) => c.decision.isPlayable === (c.decision.prediction !== 'strict_incompatible')));
  it('isPlayable ⇔ prediction in direct/remux/adaptive/transcode', () =>
    forAll((c) => c.decision.isPlayable === PLAYABLE.has(c.decision.prediction)));
  it('compatibilityPlayable ⇔ direct', () =>
    forAll((c) => c.decision.compatibilityPlayable === (c.decision.prediction === 'direct')));
  it('status code follows the prediction, unknown exactly for unknown facts', () =>
    forAll((c) => {
      const { statusCode, prediction, incompatibility } = c.decision;
      if (incompatibility?.type === 'unknown')
        return statusCode === 'unknown' && prediction === 'strict_incompatible';
      return statusCode === statusCodeFor(prediction);
    }));
  it('not analysed / failed / missing are unknown with their code', () =>
    forAll((c) => {
      const expected = { not_analyzed: 'not_analyzed', failed: 'probe_failed', missing: 'file_missing' }[
        c.input.analysis as 'not_analyzed' | 'failed' | 'missing'
      ];
      return (
        expected === undefined ||
        (c.decision.statusCode === 'unknown' && c.decision.incompatibility?.code === expected)
      );
    }));
  it('incompatibility is null ⇔ direct', () =>
    forAll((c) => (c.decision.incompatibility === null) === (c.decision.prediction === 'direct')));
  it('hasAdaptiveFallback ⇒ strict_incompatible with a remux/adaptive would-be state', () =>
    forAll(
      (c) =>
        !c.decision.hasAdaptiveFallback ||
        (c.decision.prediction === 'strict_incompatible' &&
          ['remux', 'adaptive'].includes(c.decision.wouldBe)),
    ));
  it('strict policy with a remux/adaptive would-be state and no artifact has the fallback', () =>
    forAll((c) => {
      const { wouldBe, hasAdaptiveFallback } = c.decision;
      if (c.input.policy !== 'strict' || c.input.artifactReady === true) return true;
      return !['remux', 'adaptive'].includes(wouldBe) || hasAdaptiveFallback;
    }));
  it('strict policy plays only direct or a ready artifact', () =>
    forAll(
      (c) =>
        c.input.policy !== 'strict' ||
        c.input.artifactReady === true ||
        ['direct', 'strict_incompatible'].includes(c.decision.prediction),
    ));
  it('transcode is predicted only when transcoding is available or the artifact is ready', () =>
    forAll(
      (c) =>
        c.decision.prediction !== 'transcode' || c.input.transcodeAvailable || c.input.artifactReady === true,
    ));
  it('the prediction is the would-be state or strict_incompatible', () =>
    forAll(
      (c) => c.decision.prediction === c.decision.wouldBe || c.decision.prediction === 'strict_incompatible',
    ));
  it('plan exists ⇔ it plays through an artifact', () =>
    forAll((c) => {
      const throughArtifact = c.decision.isPlayable && c.decision.prediction !== 'direct';
      return (c.decision.plan !== null) === throughArtifact;
    }));
  it('the plan matches the state: remux copies both, adaptive converts audio only, transcode the video', () =>
    forAll((c) => {
      const plan = c.decision.plan;
      if (plan === null) return true;
      const audioConverted = typeof plan.audio !== 'string';
      switch (c.decision.prediction) {
        case 'remux':
          return plan.video === 'copy' && !audioConverted;
        case 'adaptive':
          return plan.video === 'copy' && audioConverted;
        case 'transcode':
          return plan.video !== 'copy';
        default:
          return false;
      }
    }));
  it('the primary incompatibility is one of the reasons, with the costliest fix', () =>
    forAll((c) => {
      const { incompatibility, reasons } = c.decision;
      if (incompatibility === null) return reasons.length === 0;
      const rank = { none: 0, remux: 1, audio: 2, video: 3 };
      const max = Math.max(...reasons.map((r) => rank[r.fix]));
      return reasons.some((r) => r.code === incompatibility.code && rank[r.fix] === max);
    }));
  it('every reason carries its catalogue type and fix, with every placeholder filled', () =>
    forAll((c) =>
      c.decision.reasons.every((r) => {
        const entry = INCOMPATIBILITY_CODES[r.code];
        return (
          entry.type === r.type && entry.fix === r.fix && !/\{[a-z_]+\}/.test(`${r.detail} ${r.hint ?? ''}`)
        );
      }),
    ));
  it('needsAdaptiveAudio ⇔ some reason is fixed by converting audio', () =>
    forAll((c) => c.decision.needsAdaptiveAudio === c.decision.reasons.some((r) => r.fix === 'audio')));
  it('is deterministic', () => {
    for (const c of CASES.filter((_, i) => i % 97 === 0))
      assert.deepEqual(decidePlayback(c.input), c.decision);
  });
  it('strict never plays more than adaptive', () =>
    forAll((c) => {
      if (c.input.policy !== 'strict') return true;
      const adaptive = decidePlayback({ ...c.input, policy: 'adaptive' });
      return adaptive.isPlayable || !c.decision.isPlayable;
    }));
  it('turning subtitles off never makes playback costlier', () => {
    const order = ['direct', 'remux', 'adaptive', 'transcode', 'strict_incompatible'];
    forAll((c) => {
      const off = decidePlayback({ ...c.input, subtitleTrack: null });
      return order.indexOf(off.wouldBe) <= order.indexOf(c.decision.wouldBe);
    });
  });
  // Issue 14: the track shown by default (forced in the audio's language, else default-flagged) is
  // burned in when the device cannot show it; no other track changes anything unless picked.
  it('automatic subtitle selection changes the state only for a forced or default track, and says so', () =>
    forAll((c) => {
      if (c.input.subtitleTrack !== undefined) return true;
      const off = decidePlayback({ ...c.input, subtitleTrack: null });
      if (off.prediction === c.decision.prediction) return true;
      const subs = c.input.capabilities?.subtitles ?? [];
      return (
        subs.some((s) => s.forced || s.default) &&
        (c.decision.incompatibility?.type === 'subtitle' || !c.decision.isPlayable)
      );
    }));
  it('a track that is neither forced nor default never changes the prediction on its own', () =>
    forAll((c) => {
      const caps = c.input.capabilities;
      if (c.input.subtitleTrack !== undefined || caps === null || caps === undefined) return true;
      const kept = caps.subtitles.filter((s) => s.forced || s.default);
      const without = decidePlayback({ ...c.input, capabilities: { ...caps, subtitles: kept } });
      return without.prediction === c.decision.prediction;
    }));
});
