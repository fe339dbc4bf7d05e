/** Audio axis: which track plays, and why it cannot play as it is. */
import type { AudioCapabilities } from '../media/capabilities.ts';
import { type Reason, reasonFor } from './codes.ts';
import type { DeviceProfile } from './device-profile-types.ts';
import { findAudioRule, listAllows, ruleAllowsContainer } from './device-profiles.ts';
import { audioCodecName } from './display-names.ts';

interface AudioContext {
  device: string;
  /** The file's container and the artifact's, for "can this track be copied at all". */
  container: string;
  artifactContainer: string;
  /** What a conversion of this track would produce, for hints ('E-AC3 5.1'). */
  targetName: (track: AudioCapabilities) => string;
}

/** Why this track cannot be decoded by the device, container aside. */
export function trackReasons(track: AudioCapabilities, profile: DeviceProfile, ctx: AudioContext): Reason[] {
  const base = { codec: audioCodecName(track.codec), device: ctx.device, target: ctx.targetName(track) };
  const rule = findAudioRule(profile, track.codec);
  if (rule === undefined) return [reasonFor('audio_codec_unsupported', base)];
  const reasons: Reason[] = [];
  if (rule.passthrough_only === true && !listAllows(profile.audio.passthrough, track.codec)) {
    reasons.push(reasonFor('audio_passthrough_required', base));
  }
  if (
    rule.excluded_profiles !== undefined &&
    track.profile !== null &&
    rule.excluded_profiles.includes(track.profile)
  ) {
    reasons.push(reasonFor('audio_profile_unsupported', { ...base, profile: track.profile }));
  }
  if (rule.max_channels !== undefined && track.channels !== null && track.channels > rule.max_channels) {
    const params = { ...base, channels: track.channels, max: rule.max_channels };
    reasons.push(reasonFor('audio_channels_exceeded', params));
  }
  if (
    rule.max_sample_rate !== undefined &&
    track.sample_rate !== null &&
    track.sample_rate > rule.max_sample_rate
  ) {
    const params = { ...base, rate: track.sample_rate / 1000, max: rule.max_sample_rate / 1000 };
    reasons.push(reasonFor('audio_sample_rate_unsupported', params));
  }
  return reasons;
}

/** Decodable and copyable as it is, into the file's container or into the artifact. */
function playsAsIs(track: AudioCapabilities, profile: DeviceProfile, ctx: AudioContext): boolean {
  if (track.codec === 'unknown' || trackReasons(track, profile, ctx).length > 0) return false;
  const rule = findAudioRule(profile, track.codec);
  if (rule === undefined) return false;
  return (
    ruleAllowsContainer(profile, rule, ctx.container) ||
    ruleAllowsContainer(profile, rule, ctx.artifactContainer)
  );
}

/** The track a player starts with by itself: the default-flagged one, else the first. */
export function playerStartTrack(tracks: readonly AudioCapabilities[]): AudioCapabilities | undefined {
  return tracks.find((track) => track.default) ?? tracks[0];
}

function initialTrack(tracks: readonly AudioCapabilities[], language: string | undefined) {
  const wanted = language?.toLowerCase();
  const inLanguage = wanted === undefined ? [] : tracks.filter((track) => track.language === wanted);
  return playerStartTrack(inLanguage) ?? playerStartTrack(tracks);
}

/** Most channels first, then the default flag, then file order. */
function byPreference(a: AudioCapabilities, b: AudioCapabilities): number {
  return (b.channels ?? 0) - (a.channels ?? 0) || Number(b.default) - Number(a.default) || a.track - b.track;
}

export interface AudioSelection {
  track: AudioCapabilities | null;
  reasons: Reason[];
}

/**
 * Picks the audio track. A pinned track is kept as it is. Otherwise the preferred-language (else
 * default) track plays; when it cannot, another track of the same language that plays as it is
 * is chosen before anything is converted (a French dub never replaces English DTS).
 */
export function selectAudio(
  tracks: readonly AudioCapabilities[],
  profile: DeviceProfile,
  ctx: AudioContext,
  choice: { pinned?: number; language?: string },
): AudioSelection {
  const pinned =
    choice.pinned === undefined ? undefined : tracks.find((track) => track.track === choice.pinned);
  const initial = pinned ?? initialTrack(tracks, choice.language);
  if (initial === undefined) return { track: null, reasons: [] };
  let chosen = initial;
  if (pinned === undefined && !playsAsIs(initial, profile, ctx)) {
    const alternatives = tracks
      .filter((track) => track !== initial && track.language === initial.language)
      .filter((track) => playsAsIs(track, profile, ctx))
      .sort(byPreference);
    chosen = alternatives[0] ?? initial;
  }
  const reasons = trackReasons(chosen, profile, ctx);
  const start = playerStartTrack(tracks);
  if (!profile.audio.track_switching && start !== undefined && chosen !== start) {
    reasons.push(
      reasonFor('audio_track_switch_unsupported', { device: ctx.device, track: chosen.track + 1 }),
    );
  }
  return { track: chosen, reasons };
}
