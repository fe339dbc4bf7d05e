/**
 * Subtitle axis. The subtitle that shows by default is a forced track in the audio's language, else
 * the file's default-flagged track, else none (issue 14; the same track the edition's `subtitle_url`
 * names). When that track cannot reach the screen at no cost (an image track on a browser), it is
 * burned in: the edition needs a transcode and says why (`subtitle` incompatibility). Any other track
 * changes nothing unless the person picks it, so a PGS track nobody asked for never forces a
 * transcode (jellyfin/jellyfin-web#8271, jellyfin/jellyfin#4160). Sidecar files (`external`) reach
 * the player as WebVTT (a sidecar, or the HLS subtitles rendition); an image sidecar is never burned
 * in automatically (the conversion reads one input).
 */
import type { SubtitleCapabilities } from '../media/capabilities.ts';
import { type Note, noteFor, type Reason, reasonFor } from './codes.ts';
import type { SubtitleDelivery, SubtitlePlan, SubtitleSelection } from './decision-types.ts';
import type { DeviceProfile } from './device-profile-types.ts';
import { listAllows } from './device-profiles.ts';
import { subtitleCodecName } from './display-names.ts';
import { languageCode } from '../subtitles/sidecar-name.ts';

const STYLED_TEXT = new Set(['ass', 'ssa']);

interface DeliveryVerdict {
  delivery: SubtitleDelivery;
  reasons: Reason[];
  notes: Note[];
}

function burnIn(sub: SubtitleCapabilities, device: string): DeliveryVerdict {
  const code =
    sub.kind === 'image'
      ? 'subtitle_image_burn_in_required'
      : STYLED_TEXT.has(sub.codec)
        ? 'subtitle_styled_text_burn_in_required'
        : 'subtitle_text_burn_in_required';
  return {
    delivery: 'burn_in',
    reasons: [reasonFor(code, { codec: subtitleCodecName(sub.codec), device })],
    notes: [],
  };
}

function stylingNote(sub: SubtitleCapabilities, profile: DeviceProfile, target: string): Note[] {
  if (!STYLED_TEXT.has(sub.codec) || profile.subtitles.styled_text !== 'convert') return [];
  return [noteFor('subtitle_styling_lost', { codec: subtitleCodecName(sub.codec), target })];
}

/** How a selected subtitle reaches the screen on this device, cheapest way first. */
export function subtitleDelivery(
  sub: SubtitleCapabilities,
  profile: DeviceProfile,
  device: string,
): DeliveryVerdict {
  const support = profile.subtitles;
  // A sidecar file is served as WebVTT (beside a progressive stream, or in HLS): every player shows it.
  if (sub.external === true && sub.kind === 'text') {
    return { delivery: 'sidecar', reasons: [], notes: stylingNote(sub, profile, 'WebVTT') };
  }
  if (listAllows(support.embedded, sub.codec)) return { delivery: 'embedded', reasons: [], notes: [] };
  if (sub.kind === 'image') return burnIn(sub, device);
  if (STYLED_TEXT.has(sub.codec) && support.styled_text === 'burn_in') return burnIn(sub, device);
  if (support.sidecar.length > 0) {
    const notes = listAllows(support.sidecar, sub.codec) ? [] : stylingNote(sub, profile, 'WebVTT');
    return { delivery: 'sidecar', reasons: [], notes };
  }
  const target = support.artifact_text_format;
  if (target !== null) {
    const params = { codec: subtitleCodecName(sub.codec), target: subtitleCodecName(target), device };
    const notes = stylingNote(sub, profile, subtitleCodecName(target));
    return { delivery: 'convert', reasons: [reasonFor('subtitle_conversion_required', params)], notes };
  }
  return burnIn(sub, device);
}

export interface SubtitleAssessment {
  selection: SubtitleSelection | null;
  reasons: Reason[];
  notes: Note[];
}

const NO_SUBTITLE: SubtitleAssessment = { selection: null, reasons: [], notes: [] };

/**
 * The track shown by default: forced in the audio's language (a forced track without a language
 * counts as the audio's), else the default-flagged one; image sidecars are never chosen.
 */
export function defaultSubtitle(
  subs: readonly SubtitleCapabilities[],
  audioLanguage: string | null,
): SubtitleCapabilities | undefined {
  const eligible = subs.filter((sub) => !(sub.external === true && sub.kind === 'image'));
  // One code per language: MP4 writes ISO 639-2/T (fra), Matroska and sidecars /B (fre).
  const audio = audioLanguage === null ? null : (languageCode(audioLanguage) ?? audioLanguage);
  const sameLanguage = (sub: SubtitleCapabilities) =>
    sub.language === null || audio === null || (languageCode(sub.language) ?? sub.language) === audio;
  return eligible.find((sub) => sub.forced && sameLanguage(sub)) ?? eligible.find((sub) => sub.default);
}

function automaticSubtitle(
  subs: readonly SubtitleCapabilities[],
  audioLanguage: string | null,
  profile: DeviceProfile,
  device: string,
): SubtitleAssessment {
  const sub = defaultSubtitle(subs, audioLanguage);
  if (sub === undefined) return NO_SUBTITLE;
  const verdict = subtitleDelivery(sub, profile, device);
  return {
    selection: { track: sub.track, delivery: verdict.delivery, explicit: false },
    reasons: verdict.reasons,
    notes: verdict.notes,
  };
}

/**
 * @param choice the user's subtitle track (0-based subtitle order), null for off, undefined for automatic
 */
export function assessSubtitles(
  subs: readonly SubtitleCapabilities[],
  profile: DeviceProfile,
  device: string,
  choice: number | null | undefined,
  audioLanguage: string | null,
): SubtitleAssessment {
  if (choice === null) return NO_SUBTITLE;
  if (choice === undefined) return automaticSubtitle(subs, audioLanguage, profile, device);
  const sub = subs.find((candidate) => candidate.track === choice);
  if (sub === undefined) return NO_SUBTITLE;
  const verdict = subtitleDelivery(sub, profile, device);
  return {
    selection: { track: sub.track, delivery: verdict.delivery, explicit: true },
    reasons: verdict.reasons,
    notes: verdict.notes,
  };
}

export interface ArtifactSubtitle {
  plan: SubtitlePlan;
  delivery: SubtitleDelivery | null;
  reasons: Reason[];
}

/**
 * What happens to the selected subtitle when an MP4 artifact is built: MP4 carries mov_text and
 * VobSub but no SRT, ASS or PGS, so an embedded one is converted, moved to a sidecar or burned in.
 */
export function subtitleInArtifact(
  sub: SubtitleCapabilities | undefined,
  delivery: SubtitleDelivery | null,
  profile: DeviceProfile,
  device: string,
): ArtifactSubtitle {
  if (sub === undefined || delivery === null || delivery === 'sidecar') {
    return { plan: { mode: 'none' }, delivery, reasons: [] };
  }
  if (delivery === 'burn_in') return { plan: { mode: 'burn_in', track: sub.track }, delivery, reasons: [] };
  const target = profile.subtitles.artifact_text_format;
  if (delivery === 'convert' && target !== null) {
    return { plan: { mode: 'convert', track: sub.track, codec: target }, delivery, reasons: [] };
  }
  if (sub.codec === 'mov_text' || sub.codec === 'vobsub') {
    return { plan: { mode: 'copy', track: sub.track }, delivery, reasons: [] };
  }
  if (sub.kind === 'text' && target !== null && listAllows(profile.subtitles.embedded, target)) {
    return { plan: { mode: 'convert', track: sub.track, codec: target }, delivery: 'convert', reasons: [] };
  }
  if (sub.kind === 'text' && profile.subtitles.sidecar.length > 0) {
    return { plan: { mode: 'none' }, delivery: 'sidecar', reasons: [] };
  }
  const burned = burnIn(sub, device);
  return { plan: { mode: 'burn_in', track: sub.track }, delivery: 'burn_in', reasons: burned.reasons };
}
