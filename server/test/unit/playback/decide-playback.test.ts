/** Behaviour of decidePlayback beyond the oracle: policy, artifacts, encoders, track and subtitle choice. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INCOMPATIBILITY_CODES, fillTemplate, reasonFor } from '../../../src/domain/playback/codes.ts';
import { ladderState, primaryReason } from '../../../src/domain/playback/decide-playback.ts';
import {
  audio,
  decide,
  dolbyVision,
  encodePlanOf,
  file,
  h264,
  hevc10,
  subtitle,
  variant,
  video,
} from './fixtures.ts';

const dtsMkv = () => file('mkv', h264(), [audio('dts', 6, { default: true })]);
const hevcMkv = () => file('mkv', hevc10(), [audio('aac', 2)]);

describe('ladder and primary reason', () => {
  it('the state is the costliest fix', () => {
    assert.equal(ladderState([]), 'direct');
    assert.equal(ladderState([reasonFor('container_unsupported')]), 'remux');
    assert.equal(
      ladderState([reasonFor('container_unsupported'), reasonFor('audio_codec_unsupported')]),
      'adaptive',
    );
    assert.equal(
      ladderState([reasonFor('audio_codec_unsupported'), reasonFor('video_level_exceeded')]),
      'transcode',
    );
  });
  it('ties go video over audio over container over subtitle', () => {
    const reasons = [
      reasonFor('subtitle_conversion_required'),
      reasonFor('container_unsupported'),
      reasonFor('audio_track_switch_unsupported'),
      reasonFor('video_codec_tag_unsupported'),
    ];
    assert.equal(primaryReason(reasons)?.code, 'video_codec_tag_unsupported');
    assert.equal(primaryReason(reasons.slice(0, 3))?.code, 'audio_track_switch_unsupported');
    assert.equal(primaryReason(reasons.slice(0, 2))?.code, 'container_unsupported');
  });
  it('a costlier subtitle reason beats a cheaper video reason', () => {
    const reasons = [reasonFor('video_codec_tag_unsupported'), reasonFor('subtitle_image_burn_in_required')];
    assert.equal(primaryReason(reasons)?.code, 'subtitle_image_burn_in_required');
  });
});

describe('policy and gates', () => {
  it('strict + a ready artifact plays the artifact', () => {
    const decision = decide(dtsMkv(), 'tv', { policy: 'strict', artifactReady: true });
    assert.equal(decision.prediction, 'adaptive');
    assert.equal(decision.statusCode, 'adaptive');
    assert.equal(decision.hasAdaptiveFallback, false);
    assert.notEqual(decision.plan, null);
  });
  it('strict + transcode has no adaptive fallback and keeps the would-be plan', () => {
    const decision = decide(hevcMkv(), 'web', { policy: 'strict' });
    assert.equal(decision.prediction, 'strict_incompatible');
    assert.equal(decision.wouldBe, 'transcode');
    assert.equal(decision.hasAdaptiveFallback, false);
    assert.equal(decision.plan, null);
    assert.equal(encodePlanOf({ ...decision, plan: decision.fallbackPlan }).codec, 'h264');
    assert.match(decision.incompatibility?.hint ?? '', /strict playback policy/);
  });
  it('strict hint keeps the conversion it offers', () => {
    const hint = decide(dtsMkv(), 'tv', { policy: 'strict' }).incompatibility?.hint ?? '';
    assert.match(hint, /prewarm a compatible copy/);
    assert.match(hint, /E-AC3 5\.1/);
  });
  it('transcoding off blocks only the video step', () => {
    assert.equal(decide(hevcMkv(), 'web', { transcodeAvailable: false }).prediction, 'strict_incompatible');
    assert.equal(decide(dtsMkv(), 'tv', { transcodeAvailable: false }).prediction, 'adaptive');
  });
  it('transcoding off + a ready artifact plays', () => {
    const decision = decide(hevcMkv(), 'web', { transcodeAvailable: false, artifactReady: true });
    assert.equal(decision.prediction, 'transcode');
  });
  it('a missing encoder falls back to the next target, then blocks', () => {
    const aacOnly = decide(dtsMkv(), 'tv', { encoders: { audio: ['aac'] } });
    assert.deepEqual(aacOnly.plan?.audio, { codec: 'aac', channels: 2, bitrate: 256_000 });
    const none = decide(dtsMkv(), 'tv', { encoders: { audio: [] } });
    assert.equal(none.prediction, 'strict_incompatible');
    assert.equal(none.incompatibility?.code, 'audio_codec_unsupported');
    assert.match(none.incompatibility?.hint ?? '', /cannot encode any audio format/);
    assert.equal(none.hasAdaptiveFallback, false);
  });
  it('no video encoder blocks a transcode', () => {
    const decision = decide(hevcMkv(), 'web', { encoders: { audio: ['aac'], video: [] } });
    assert.equal(decision.prediction, 'strict_incompatible');
    assert.match(decision.incompatibility?.hint ?? '', /cannot encode any video format/);
  });
});

describe('audio track selection', () => {
  it('a browser plays another compatible track only after a remux', () => {
    const caps = file('mkv', h264(), [audio('dts', 6, { default: true }), audio('aac', 2)]);
    const decision = decide(caps, 'web');
    assert.equal(decision.prediction, 'remux');
    assert.equal(decision.incompatibility?.code, 'audio_track_switch_unsupported');
    assert.equal(decision.selectedAudioTrack, 1);
    assert.equal(decision.plan?.audioTrack, 1);
  });
  it('a player that switches tracks plays it directly', () => {
    const caps = file('mkv', h264(), [audio('dts', 6, { default: true }), audio('ac3', 6)]);
    const decision = decide(caps, 'roku', { preferredAudioTrack: undefined });
    assert.equal(decision.prediction, 'adaptive', 'roku: AC3 is passthrough-only too');
    const tizenLike = variant('androidtv', 'no-dts', (p) => {
      p.audio.codecs = p.audio.codecs.filter((rule) => rule.codec !== 'dts');
    });
    const direct = decide(caps, tizenLike);
    assert.equal(direct.prediction, 'direct');
    assert.equal(direct.selectedAudioTrack, 1);
  });
  it('never switches language to avoid a conversion', () => {
    const caps = file('mkv', h264(), [
      audio('dts', 6, { default: true }),
      audio('ac3', 6, { language: 'fre' }),
    ]);
    const decision = decide(caps, 'tv');
    assert.equal(decision.selectedAudioTrack, 0);
    assert.equal(decision.prediction, 'adaptive');
  });
  it('prefers the user language, then the most channels among compatible tracks', () => {
    const caps = file('mkv', h264(), [
      audio('truehd', 8, { language: 'ger', default: true }),
      audio('dts', 6, { language: 'eng' }),
      audio('aac', 2, { language: 'eng' }),
      audio('eac3', 6, { language: 'eng' }),
    ]);
    const decision = decide(caps, 'tv', { preferredAudioLanguage: 'ENG' });
    assert.equal(decision.selectedAudioTrack, 3);
    assert.equal(decision.prediction, 'remux');
  });
  it('a pinned out-of-range track falls back to the default one', () => {
    assert.equal(decide(dtsMkv(), 'tv', { preferredAudioTrack: 7 }).selectedAudioTrack, 0);
  });
  it('a file without audio copies nothing', () => {
    const decision = decide(file('mkv', h264()), 'tv');
    assert.equal(decision.prediction, 'remux');
    assert.equal(decision.plan?.audio, 'none');
    assert.equal(decision.plan?.audioTrack, null);
    assert.equal(decision.selectedAudioTrack, null);
  });
  it('an unidentified audio codec is unknown, not a conversion', () => {
    const decision = decide(file('mkv', h264(), [audio('unknown', 2)]), 'web');
    assert.equal(decision.statusCode, 'unknown');
    assert.equal(decision.incompatibility?.code, 'stream_info_incomplete');
  });
  it('7.1 to a 5.1-limited encoder keeps 5.1, and stereo sources get AAC on Apple TV', () => {
    assert.deepEqual(decide(file('mkv', h264(), [audio('truehd', 8)]), 'tv').plan?.audio, {
      codec: 'eac3',
      channels: 6,
      bitrate: 640_000,
    });
    assert.deepEqual(decide(file('mkv', h264(), [audio('dts', 2)]), 'tv').plan?.audio, {
      codec: 'aac',
      channels: 2,
      bitrate: 256_000,
    });
  });
  it('DTS on Roku needs passthrough unless the profile declares a receiver', () => {
    assert.equal(decide(dtsMkv(), 'roku').incompatibility?.code, 'audio_passthrough_required');
    const withReceiver = variant('roku', 'roku-avr', (p) => {
      p.audio.passthrough = ['dts', 'ac3', 'eac3'];
    });
    assert.equal(decide(dtsMkv(), withReceiver).prediction, 'direct');
  });
  it('PCM cannot be carried in the MP4 artifact, so it is converted', () => {
    const decision = decide(file('mkv', h264(), [audio('pcm_s16le', 2)]), 'tv');
    assert.equal(decision.prediction, 'adaptive');
    assert.equal(decision.incompatibility?.code, 'audio_container_unsupported');
  });
});

describe('subtitles', () => {
  const pgsForced = () => file('mkv', h264(), [audio('aac', 2)], [subtitle('pgs', { forced: true })]);
  it('a forced image subtitle in the audio language is burned in on a browser (transcode, subtitle)', () => {
    const decision = decide(pgsForced(), 'web');
    assert.equal(decision.prediction, 'transcode');
    assert.equal(decision.incompatibility?.type, 'subtitle');
    assert.equal(decision.incompatibility?.code, 'subtitle_image_burn_in_required');
    assert.deepEqual(decision.selectedSubtitle, { track: 0, delivery: 'burn_in', explicit: false });
  });
  it('…and is not playable with transcoding off, nor under strict', () => {
    assert.equal(decide(pgsForced(), 'web', { transcodeAvailable: false }).isPlayable, false);
    const strict = decide(pgsForced(), 'web', { policy: 'strict' });
    assert.equal(strict.isPlayable, false);
    assert.equal(strict.incompatibility?.type, 'subtitle');
  });
  it('a forced subtitle the player renders is selected automatically', () => {
    const decision = decide(pgsForced(), 'full');
    assert.deepEqual(decision.selectedSubtitle, { track: 0, delivery: 'embedded', explicit: false });
  });
  it('a forced track in another language is not the default; the default-flagged one is', () => {
    const caps = file(
      'mkv',
      h264(),
      [audio('aac', 2)],
      [
        subtitle('pgs', { forced: true, language: 'fre' }),
        subtitle('srt', { track: 1, index: 1, default: true }),
      ],
    );
    const decision = decide(caps, 'web');
    assert.equal(decision.prediction, 'direct');
    assert.deepEqual(decision.selectedSubtitle, { track: 1, delivery: 'sidecar', explicit: false });
  });
  it('a default-flagged image subtitle is the default track: burned in on a browser', () => {
    const caps = file('mkv', h264(), [audio('aac', 2)], [subtitle('pgs', { default: true })]);
    assert.equal(decide(caps, 'web').prediction, 'transcode');
  });
  it('an image track that is neither forced nor default changes nothing', () => {
    const caps = file('mkv', h264(), [audio('aac', 2)], [subtitle('pgs')]);
    const decision = decide(caps, 'web');
    assert.equal(decision.prediction, 'direct');
    assert.equal(decision.selectedSubtitle, null);
  });
  it('a sidecar text track reaches every player as WebVTT; a forced image sidecar is never burned in', () => {
    const text = file('mkv', h264(), [audio('aac', 2)], [subtitle('ass', { forced: true, external: true })]);
    assert.deepEqual(decide(text, 'roku').selectedSubtitle, {
      track: 0,
      delivery: 'sidecar',
      explicit: false,
    });
    const image = file('mkv', h264(), [audio('aac', 2)], [subtitle('pgs', { forced: true, external: true })]);
    assert.equal(decide(image, 'web').prediction, 'direct');
    assert.equal(decide(image, 'web').selectedSubtitle, null);
  });
  it('text subtitles reach a browser as a WebVTT sidecar at no cost', () => {
    const caps = file('mkv', h264(), [audio('aac', 2)], [subtitle('srt'), subtitle('ass')]);
    const srt = decide(caps, 'web', { subtitleTrack: 0 });
    assert.equal(srt.prediction, 'direct');
    assert.deepEqual(srt.selectedSubtitle, { track: 0, delivery: 'sidecar', explicit: true });
    const ass = decide(caps, 'web', { subtitleTrack: 1 });
    assert.equal(ass.prediction, 'direct');
    assert.deepEqual(
      ass.notes.map((n) => n.code),
      ['subtitle_styling_lost'],
    );
  });
  it('ASS on Apple TV is converted to mov_text in the remux, styling lost', () => {
    const caps = file('mkv', h264(), [audio('aac', 2)], [subtitle('ass')]);
    const decision = decide(caps, 'tv', { subtitleTrack: 0 });
    assert.equal(decision.prediction, 'remux');
    assert.deepEqual(decision.plan?.subtitles, { mode: 'convert', track: 0, codec: 'mov_text' });
  });
  it('an embedded SRT moves into mov_text when Android TV needs an artifact', () => {
    const caps = file('mkv', h264(), [audio('aac', 8, { profile: 'HE-AAC' })], [subtitle('srt')]);
    const onAndroid = variant('androidtv', 'atv-stereo', (p) => {
      p.audio.codecs = p.audio.codecs.map((rule) =>
        rule.codec === 'aac' ? { ...rule, max_channels: 2 } : rule,
      );
    });
    const decision = decide(caps, onAndroid, { subtitleTrack: 0 });
    assert.equal(decision.prediction, 'adaptive');
    assert.deepEqual(decision.plan?.subtitles, { mode: 'convert', track: 0, codec: 'mov_text' });
    assert.equal(decision.selectedSubtitle?.delivery, 'convert');
  });
  it('a VobSub track rendered by Android TV is copied into the artifact', () => {
    const caps = file('mkv', h264(), [audio('aac', 8)], [subtitle('vobsub')]);
    const stereo = variant('androidtv', 'atv-stereo', (p) => {
      p.audio.codecs = p.audio.codecs.map((rule) =>
        rule.codec === 'aac' ? { ...rule, max_channels: 2 } : rule,
      );
    });
    assert.deepEqual(decide(caps, stereo, { subtitleTrack: 0 }).plan?.subtitles, { mode: 'copy', track: 0 });
  });
  it('a DVB subtitle rendered only from MKV must be burned in once an MP4 artifact is needed', () => {
    const caps = file('mkv', h264(), [audio('aac', 8)], [subtitle('dvbsub')]);
    const stereo = variant('androidtv', 'atv-stereo', (p) => {
      p.audio.codecs = p.audio.codecs.map((rule) =>
        rule.codec === 'aac' ? { ...rule, max_channels: 2 } : rule,
      );
    });
    const decision = decide(caps, stereo, { subtitleTrack: 0 });
    assert.equal(decision.prediction, 'transcode');
    assert.equal(decision.incompatibility?.code, 'subtitle_image_burn_in_required');
  });
  it('a subtitle track that does not exist is ignored', () => {
    assert.equal(
      decide(file('mp4', h264(), [audio('aac', 2)]), 'tv', { subtitleTrack: 4 }).selectedSubtitle,
      null,
    );
  });
});

describe('video details', () => {
  it('HDR10 burn-in on Apple TV keeps HDR by encoding HEVC Main 10 tagged hvc1', () => {
    const caps = file(
      'mp4',
      hevc10({ hdr: 'hdr10', codec_tag: 'hvc1' }),
      [audio('aac', 2)],
      [subtitle('pgs')],
    );
    const plan = encodePlanOf(decide(caps, 'tv', { subtitleTrack: 0 }));
    assert.deepEqual(
      [plan.codec, plan.tag, plan.hdr, plan.bitDepth, plan.toneMap, plan.burnSubtitle],
      ['hevc', 'hvc1', 'hdr10', 10, false, 0],
    );
  });
  it('Dolby Vision 5 on a non-DV device is tone-mapped to 8-bit H.264', () => {
    const plan = encodePlanOf(decide(file('mkv', dolbyVision(5, 0), [audio('eac3', 6)]), 'androidtv'));
    assert.deepEqual([plan.codec, plan.hdr, plan.bitDepth, plan.toneMap], ['h264', 'sdr', 8, true]);
  });
  it('Roku transcodes are capped at 1080p', () => {
    const plan = encodePlanOf(
      decide(file('mkv', h264({ width: 3840, height: 2160, level: 5.1 }), [audio('aac', 2)]), 'roku'),
    );
    assert.deepEqual([plan.maxWidth, plan.maxHeight], [1920, 1080]);
  });
  it('Dolby Vision 8.4 remuxed for a DV player keeps the hvc1 tag', () => {
    const decision = decide(file('mkv', dolbyVision(8, 4), [audio('aac', 2)]), 'tv');
    assert.equal(decision.prediction, 'remux');
    assert.equal(decision.plan?.videoTag, 'hvc1');
  });
  it('invalid Dolby Vision metadata is stripped by a remux', () => {
    const decision = decide(file('mp4', dolbyVision(8, 3, { codec_tag: 'hvc1' }), [audio('aac', 2)]), 'tv');
    assert.equal(decision.incompatibility?.code, 'video_dolby_vision_invalid');
    assert.equal(decision.plan?.videoStrip, 'dolby_vision');
  });
  it('a Dolby Vision tag without a record is judged by its base layer', () => {
    const tagOnly = dolbyVision(5, 0, { codec_tag: 'dvh1' }, { profile: null, compat_id: null });
    assert.equal(decide(file('mp4', tagOnly, [audio('aac', 2)]), 'tv').prediction, 'direct');
    assert.equal(decide(file('mp4', tagOnly, [audio('aac', 2)]), 'full').prediction, 'direct');
    assert.equal(decide(file('mp4', tagOnly, [audio('aac', 2)]), 'androidtv').prediction, 'transcode');
  });
  it('no video stream is unknown', () => {
    const decision = decide(file('mka', null, [audio('flac', 2)]), 'web');
    assert.equal(decision.statusCode, 'unknown');
    assert.equal(decision.incompatibility?.code, 'stream_info_incomplete');
  });
  it('an analysed file without stored capabilities is unknown', () => {
    assert.equal(decide(null, 'web').incompatibility?.code, 'stream_info_incomplete');
  });
  it('VP8 in AVI cannot go into MP4 for a browser, so it is transcoded', () => {
    const decision = decide(file('avi', video('vp8'), [audio('mp3', 2)]), 'web');
    assert.equal(decision.prediction, 'transcode');
    assert.equal(decision.incompatibility?.code, 'video_container_unsupported');
  });
});

describe('code catalogue', () => {
  it('codes are snake_case and every template placeholder is a plain name', () => {
    for (const [code, entry] of Object.entries(INCOMPATIBILITY_CODES)) {
      assert.match(code, /^[a-z]+(_[a-z0-9]+)*$/);
      const text: string = `${entry.detail} ${'hint' in entry ? entry.hint : ''}`;
      assert.doesNotMatch(text.replace(/\{[a-z_]+\}/g, ''), /[{}]/, code);
    }
  });
  it('includes every code of playback.md §6', () => {
    const documented = [
      'container_unsupported',
      'container_stream_count_exceeded',
      'container_bitrate_exceeded',
      'container_disc_structure',
      'container_unreadable',
      'video_codec_unsupported',
      'video_codec_tag_unsupported',
      'video_profile_unsupported',
      'video_level_exceeded',
      'video_bit_depth_unsupported',
      'video_resolution_exceeded',
      'video_framerate_exceeded',
      'video_bitrate_exceeded',
      'video_interlaced_unsupported',
      'video_anamorphic_unsupported',
      'video_rotation_unsupported',
      'video_hdr_unsupported',
      'video_dolby_vision_unsupported',
      'video_dolby_vision_el_unsupported',
      'video_dolby_vision_container_unsupported',
      'video_dolby_vision_invalid',
      'audio_codec_unsupported',
      'audio_channels_exceeded',
      'audio_profile_unsupported',
      'audio_sample_rate_unsupported',
      'audio_bit_depth_unsupported',
      'audio_bitrate_exceeded',
      'audio_track_switch_unsupported',
      'audio_external_unsupported',
      'audio_passthrough_required',
      'subtitle_image_burn_in_required',
      'subtitle_styled_text_burn_in_required',
      'subtitle_conversion_required',
      'subtitle_delivery_unsupported',
      'subtitle_font_missing',
      'subtitle_charset_unknown',
      'not_analyzed',
      'probe_failed',
      'stream_info_incomplete',
      'file_missing',
      'transcoding_disabled',
      'encoder_unavailable',
      'no_compatible_target',
      'client_playback_failed',
    ];
    for (const code of documented) assert.ok(code in INCOMPATIBILITY_CODES, code);
  });
  it('fillTemplate leaves an unknown placeholder visible', () => {
    assert.equal(fillTemplate('{codec} on {device}', { codec: 'DTS' }), 'DTS on {device}');
  });
});
