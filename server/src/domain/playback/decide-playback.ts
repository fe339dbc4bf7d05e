/**
 * The playback decision: one pure function from (capabilities, device profile, policy, selection)
 * to exactly one state with its reasons and the plan of the artifact (playback.md §3).
 *
 * 1. Unknown facts (not analysed, probe failed, file missing, no video) → status `unknown`.
 * 2. Each axis (video, audio, container, subtitle) yields reasons tagged with a fix class.
 * 3. When anything must change, the MP4 artifact is checked too (MP4 carries no PGS, no PCM…).
 * 4. State = cheapest ladder step fixing every reason: direct → remux → adaptive → transcode.
 * 5. Gates: no ffmpeg, transcoding off or no encoder for any target → strict_incompatible, with a
 *    hint naming what is missing (a decision never promises a conversion the ffmpeg in use cannot
 *    make); policy `strict` plays only direct (or a ready artifact).
 */
import {
  type AudioCapabilities,
  type Capabilities,
  isImmersiveAudio,
  type VideoCapabilities,
} from '../media/capabilities.ts';
import { assessVideo, copiedVideoTag, type VideoAssessment } from './assess-video.ts';
import { type AudioSelection, selectAudio } from './assess-audio.ts';
import {
  type ArtifactSubtitle,
  assessSubtitles,
  type SubtitleAssessment,
  subtitleInArtifact,
} from './assess-subtitles.ts';
import {
  type FixClass,
  type IncompatibilityType,
  type Note,
  noteFor,
  type Reason,
  reasonFor,
} from './codes.ts';
import {
  audioPlanName,
  chooseAudioTarget,
  chooseVideoTarget,
  videoEncodePlan,
  videoTargetName,
} from './conversion-targets.ts';
import type {
  AudioEncodePlan,
  Incompatibility,
  PlaybackDecision,
  PlaybackInput,
  PlaybackPlan,
  PlaybackPrediction,
  PlaybackStatusCode,
  SubtitleSelection,
} from './decision-types.ts';
import type { DeviceProfile, VideoTarget } from './device-profile-types.ts';
import { findAudioRule, findVideoRule, listAllows, ruleAllowsContainer } from './device-profiles.ts';
import { audioCodecName, containerName, videoCodecName } from './display-names.ts';
import { noEncoderHint } from './encoders.ts';
import { audioTrackName } from './labels.ts';

export type * from './decision-types.ts';

type LadderState = 'direct' | 'remux' | 'adaptive' | 'transcode';

const FIX_RANK: Record<FixClass, number> = { none: 0, remux: 1, audio: 2, video: 3 };
const LADDER: readonly LadderState[] = ['direct', 'remux', 'adaptive', 'transcode'];
const TYPE_RANK: Record<IncompatibilityType, number> = {
  video: 0,
  audio: 1,
  container: 2,
  subtitle: 3,
  unknown: 4,
};

/** The cheapest ladder step that fixes every reason. */
export function ladderState(reasons: readonly Reason[]): LadderState {
  const rank = Math.max(0, ...reasons.map((reason) => FIX_RANK[reason.fix]));
  return LADDER[rank] ?? 'transcode';
}

/** The reason behind the costliest step; ties: video over audio over container over subtitle. */
export function primaryReason(reasons: readonly Reason[]): Reason | undefined {
  const ordered = [...reasons].sort(
    (a, b) => FIX_RANK[b.fix] - FIX_RANK[a.fix] || TYPE_RANK[a.type] - TYPE_RANK[b.type],
  );
  return ordered[0];
}

const STATUS_CODES: Record<PlaybackPrediction, PlaybackStatusCode> = {
  direct: 'direct_play',
  remux: 'direct_play_remux',
  adaptive: 'adaptive',
  transcode: 'transcode',
  strict_incompatible: 'incompatible',
};

export function statusCodeFor(prediction: PlaybackPrediction): PlaybackStatusCode {
  return STATUS_CODES[prediction];
}

interface GateHint {
  text: string;
  /** A blocked conversion makes the reason's own hint (which describes that conversion) untrue. */
  replaces: boolean;
}

function toIncompatibility(reason: Reason, gate?: GateHint): Incompatibility {
  const incompatibility: Incompatibility = { type: reason.type, code: reason.code, detail: reason.detail };
  const own = gate?.replaces === true ? undefined : reason.hint;
  const hint = [gate?.text, own].filter((part) => part !== undefined).join(' ');
  if (hint !== '') incompatibility.hint = hint;
  return incompatibility;
}

function unknownDecision(reason: Reason): PlaybackDecision {
  return {
    prediction: 'strict_incompatible',
    statusCode: 'unknown',
    reasons: [reason],
    notes: [],
    incompatibility: toIncompatibility(reason),
    plan: null,
    fallbackPlan: null,
    wouldBe: 'strict_incompatible',
    hasAdaptiveFallback: false,
    needsAdaptiveAudio: false,
    isPlayable: false,
    compatibilityPlayable: false,
    selectedAudioTrack: null,
    selectedSubtitle: null,
  };
}

interface Analysed {
  capabilities: Capabilities;
  video: VideoCapabilities;
}

/** Nothing is predicted to play that was not checked (INTERFACE.md). */
function analysed(input: PlaybackInput): Analysed | Reason {
  if (input.analysis === 'missing') return reasonFor('file_missing');
  if (input.analysis === 'failed')
    return reasonFor('probe_failed', { error: input.analysisError ?? 'unknown error' });
  if (input.analysis === 'not_analyzed') return reasonFor('not_analyzed');
  const capabilities = input.capabilities;
  if (capabilities === null)
    return reasonFor('stream_info_incomplete', { missing: 'No probe result is stored' });
  const video = capabilities.video;
  if (video === null) return reasonFor('stream_info_incomplete', { missing: 'The file has no video stream' });
  if (video.codec === 'unknown') {
    return reasonFor('stream_info_incomplete', { missing: 'The video codec was not identified' });
  }
  return { capabilities, video };
}

interface Context extends Analysed {
  input: PlaybackInput;
  profile: DeviceProfile;
  device: string;
  videoTarget: VideoTarget | null;
  audioTarget: (track: AudioCapabilities) => AudioEncodePlan | null;
}

interface Assessment {
  video: VideoAssessment;
  audio: AudioSelection;
  subtitles: SubtitleAssessment;
  reasons: Reason[];
}

function containerReasons(ctx: Context, track: AudioCapabilities | null): Reason[] {
  const { capabilities: caps, profile, device, video } = ctx;
  const reasons: Reason[] = [];
  const name = containerName(caps.container);
  const videoRule = findVideoRule(profile, video.codec);
  const audioRule = track === null ? undefined : findAudioRule(profile, track.codec);
  if (!listAllows(profile.containers, caps.container)) {
    reasons.push(reasonFor('container_unsupported', { container: name, device }));
  } else if (videoRule !== undefined && !ruleAllowsContainer(profile, videoRule, caps.container)) {
    const container = `${name} with ${videoCodecName(video.codec)} video`;
    reasons.push(reasonFor('container_unsupported', { container, device }));
  } else if (
    track !== null &&
    audioRule !== undefined &&
    !ruleAllowsContainer(profile, audioRule, caps.container)
  ) {
    const container = `${name} with ${audioCodecName(track.codec)} audio`;
    reasons.push(reasonFor('container_unsupported', { container, device }));
  }
  if (profile.max_streams !== null && caps.stream_count > profile.max_streams) {
    const params = { count: caps.stream_count, max: profile.max_streams, device };
    reasons.push(reasonFor('container_stream_count_exceeded', params));
  }
  const cap = ctx.input.maxBitrateBps;
  if (cap !== undefined && caps.bitrate_bps !== null && caps.bitrate_bps > cap) {
    const mbps = (bps: number) => `${(bps / 1_000_000).toFixed(1)} Mbit/s`;
    reasons.push(
      reasonFor('container_bitrate_exceeded', { bitrate: mbps(caps.bitrate_bps), max: mbps(cap) }),
    );
  }
  return reasons;
}

function assessDirect(ctx: Context): Assessment {
  const { capabilities: caps, profile, device, input } = ctx;
  const audioTargetName = (track: AudioCapabilities) => {
    const target = ctx.audioTarget(track);
    return target === null ? `a format ${device} plays` : audioPlanName(target);
  };
  const audioContext = {
    device,
    container: caps.container,
    artifactContainer: profile.conversion.container,
    targetName: audioTargetName,
  };
  const audio = selectAudio(caps.audio, profile, audioContext, {
    pinned: input.preferredAudioTrack,
    language: input.preferredAudioLanguage,
  });
  const videoContext = {
    device,
    container: caps.container,
    fileBitrateBps: caps.bitrate_bps,
    targetName: videoTargetName(ctx.videoTarget),
  };
  const video = assessVideo(ctx.video, profile, videoContext);
  const language = audio.track?.language ?? null;
  const subtitles = assessSubtitles(caps.subtitles, profile, device, input.subtitleTrack, language);
  const reasons = [
    ...video.reasons,
    ...audio.reasons,
    ...containerReasons(ctx, audio.track),
    ...subtitles.reasons,
  ];
  return { video, audio, subtitles, reasons };
}

/** Reasons that appear only because an MP4 artifact must be built. */
function assessArtifact(ctx: Context, direct: Assessment): { reasons: Reason[]; subtitle: ArtifactSubtitle } {
  const { profile, device, video } = ctx;
  const target = profile.conversion.container;
  const targetName = containerName(target);
  const reasons: Reason[] = [];
  const videoRule = findVideoRule(profile, video.codec);
  if (videoRule !== undefined && !ruleAllowsContainer(profile, videoRule, target)) {
    const params = { codec: videoCodecName(video.codec), container: targetName, device };
    reasons.push(reasonFor('video_container_unsupported', params));
  }
  const track = direct.audio.track;
  const audioRule = track === null ? undefined : findAudioRule(profile, track.codec);
  if (track !== null && audioRule !== undefined && !ruleAllowsContainer(profile, audioRule, target)) {
    const plan = ctx.audioTarget(track);
    const params = {
      codec: audioCodecName(track.codec),
      container: targetName,
      device,
      target: plan === null ? `a format ${device} plays` : audioPlanName(plan),
    };
    reasons.push(reasonFor('audio_container_unsupported', params));
  }
  const selection = direct.subtitles.selection;
  const sub = ctx.capabilities.subtitles.find((candidate) => candidate.track === selection?.track);
  const subtitle = subtitleInArtifact(sub, selection?.delivery ?? null, profile, device);
  return { reasons: [...reasons, ...subtitle.reasons], subtitle };
}

function needsAudioConversion(reasons: readonly Reason[]): boolean {
  return reasons.some((reason) => reason.fix === 'audio');
}

interface PlanResult {
  plan: PlaybackPlan | null;
  /** Why the plan cannot be carried out, as hint text. */
  blockedBy: string | null;
}

const TRANSCODING_OFF = 'Transcoding is off (REELSHELF_TRANSCODE=off), so the video cannot be converted.';
const NO_FFMPEG =
  'ffmpeg is not installed, so this file cannot be converted; only files that need no conversion play. ' +
  'Install ffmpeg (apt-get install ffmpeg) or point REELSHELF_FFMPEG at one.';

/** No target of the device's list can be encoded by the ffmpeg in use: say which encoders it lacks. */
function noEncoder(ctx: Context, kind: 'audio' | 'video'): string {
  const targets = kind === 'video' ? ctx.profile.conversion.video : ctx.profile.conversion.audio;
  const codecs = targets.map((target) => target.codec);
  return `ffmpeg cannot encode any ${kind} format this device plays. ${noEncoderHint(kind, codecs, ctx.device)}`;
}

/** The artifact plan; null only when ffmpeg lacks an encoder it needs (then `blockedBy` says which). */
function buildPlan(
  ctx: Context,
  state: LadderState,
  direct: Assessment,
  subtitle: ArtifactSubtitle,
  reasons: Reason[],
): PlanResult {
  // Even a remux runs ffmpeg: without it nothing but the file itself plays.
  if (ctx.input.ffmpegAvailable === false) return { plan: null, blockedBy: NO_FFMPEG };
  const track = direct.audio.track;
  let audio: PlaybackPlan['audio'] = track === null ? 'none' : 'copy';
  if (track !== null && needsAudioConversion(reasons)) {
    const target = ctx.audioTarget(track);
    if (target === null) return { plan: null, blockedBy: noEncoder(ctx, 'audio') };
    audio = target;
  }
  let video: PlaybackPlan['video'] = 'copy';
  if (state === 'transcode') {
    if (ctx.videoTarget === null) return { plan: null, blockedBy: noEncoder(ctx, 'video') };
    const burnSubtitle = subtitle.plan.mode === 'burn_in' ? subtitle.plan.track : null;
    const extra = { burnSubtitle, maxBitrateBps: ctx.input.maxBitrateBps };
    video = videoEncodePlan(ctx.video, ctx.videoTarget, ctx.profile, extra);
  }
  const plan: PlaybackPlan = {
    container: ctx.profile.conversion.container,
    video,
    videoTag:
      video === 'copy' ? copiedVideoTag(ctx.video, direct.video.keepsDolbyVision) : (video.tag ?? null),
    videoStrip: video === 'copy' ? direct.video.strip : null,
    audio,
    audioTrack: track?.track ?? null,
    subtitles: subtitle.plan,
  };
  const blockedBy = state === 'transcode' && !ctx.input.transcodeAvailable ? TRANSCODING_OFF : null;
  return { plan, blockedBy };
}

function immersiveNotes(track: AudioCapabilities | null, plan: PlaybackPlan | null): Note[] {
  if (track === null || plan === null || typeof plan.audio === 'string' || !isImmersiveAudio(track))
    return [];
  const params = { profile: audioTrackName(track), target: audioPlanName(plan.audio) };
  return [noteFor('audio_immersive_metadata_lost', params)];
}

interface Outcome {
  prediction: PlaybackPrediction;
  hasAdaptiveFallback: boolean;
  gate?: GateHint;
}

const STRICT_HINT = 'The strict playback policy plays only files that need no conversion;';

function applyGates(input: PlaybackInput, wouldBe: LadderState, blockedBy: string | null): Outcome {
  if (wouldBe === 'direct') return { prediction: 'direct', hasAdaptiveFallback: false };
  // A finished artifact is checked and complete: it plays whatever the policy or the encoders.
  if (input.artifactReady === true) return { prediction: wouldBe, hasAdaptiveFallback: false };
  if (blockedBy !== null) {
    return {
      prediction: 'strict_incompatible',
      hasAdaptiveFallback: false,
      gate: { text: blockedBy, replaces: true },
    };
  }
  if (input.policy === 'adaptive') return { prediction: wouldBe, hasAdaptiveFallback: false };
  if (wouldBe === 'transcode') {
    const gate = { text: `${STRICT_HINT} this one needs its video converted.`, replaces: true };
    return { prediction: 'strict_incompatible', hasAdaptiveFallback: false, gate };
  }
  const text = `${STRICT_HINT} prewarm a compatible copy or set REELSHELF_PLAYBACK_POLICY=adaptive.`;
  return { prediction: 'strict_incompatible', hasAdaptiveFallback: true, gate: { text, replaces: false } };
}

function finalSubtitle(direct: Assessment, subtitle: ArtifactSubtitle | null): SubtitleSelection | null {
  const selection = direct.subtitles.selection;
  if (selection === null || subtitle === null || subtitle.delivery === null) return selection;
  return { ...selection, delivery: subtitle.delivery };
}

function makeContext(input: PlaybackInput, facts: Analysed): Context {
  const { profile, encoders } = input;
  return {
    ...facts,
    input,
    profile,
    device: profile.name,
    videoTarget: chooseVideoTarget(facts.video, profile, encoders),
    audioTarget: (track) => chooseAudioTarget(track, profile, encoders),
  };
}

/**
 * Decides how one media file plays on one device.
 * @param input capabilities and analysis state of the file, device profile, policy, availability
 *   of transcoding and encoders, a ready artifact, and the user's track choices
 * @returns exactly one state, every reason, the primary incompatibility and the artifact plan
 * @example decidePlayback({ capabilities, analysis: 'analyzed', profile: getDeviceProfile('tv'),
 *   policy: 'adaptive', transcodeAvailable: true }).prediction // 'adaptive' for MKV H.264 + DTS
 */
export function decidePlayback(input: PlaybackInput): PlaybackDecision {
  const facts = analysed(input);
  if ('code' in facts) return unknownDecision(facts);
  const ctx = makeContext(input, facts);
  const direct = assessDirect(ctx);
  if (direct.audio.track?.codec === 'unknown') {
    return unknownDecision(
      reasonFor('stream_info_incomplete', { missing: 'The audio codec was not identified' }),
    );
  }
  let reasons = direct.reasons;
  let artifactSubtitle: ArtifactSubtitle | null = null;
  if (ladderState(reasons) !== 'direct') {
    const artifact = assessArtifact(ctx, direct);
    reasons = [...reasons, ...artifact.reasons];
    artifactSubtitle = artifact.subtitle;
  }
  const wouldBe = ladderState(reasons);
  const { plan: fallbackPlan, blockedBy } =
    artifactSubtitle === null
      ? { plan: null, blockedBy: null }
      : buildPlan(ctx, wouldBe, direct, artifactSubtitle, reasons);
  const outcome = applyGates(input, wouldBe, blockedBy);
  const primary = primaryReason(reasons);
  const isPlayable = outcome.prediction !== 'strict_incompatible';
  return {
    prediction: outcome.prediction,
    statusCode: statusCodeFor(outcome.prediction),
    reasons,
    notes: [...direct.subtitles.notes, ...immersiveNotes(direct.audio.track, fallbackPlan)],
    incompatibility: primary === undefined ? null : toIncompatibility(primary, outcome.gate),
    plan: isPlayable && outcome.prediction !== 'direct' ? fallbackPlan : null,
    fallbackPlan,
    wouldBe,
    hasAdaptiveFallback: outcome.hasAdaptiveFallback,
    needsAdaptiveAudio: needsAudioConversion(reasons) && direct.audio.track !== null,
    isPlayable,
    compatibilityPlayable: outcome.prediction === 'direct',
    selectedAudioTrack: direct.audio.track?.track ?? null,
    selectedSubtitle: finalSubtitle(direct, artifactSubtitle),
  };
}
