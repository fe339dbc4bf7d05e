import type { Capabilities } from './capabilities.ts';

export interface IntegrityInput {
  sizeBytes: number;
  fingerprint: string | null;
  /** Size and fingerprint the analysis was made on; null when never analysed. */
  analyzedSizeBytes: number | null;
  analyzedFingerprint: string | null;
  capabilities: Capabilities | null;
}

/**
 * A file holds at most this share of what its streams' declared bitrates need before it is taken
 * as cut short: container overhead and VBR estimates stay well inside 15%.
 */
const TRUNCATION_TOLERANCE = 0.85;

/**
 * Why a file's analysis cannot be trusted (empty when it can): the file changed since it was
 * analysed and was not re-analysed, its streams need more bytes than the file has (a truncated
 * download whose index survived), or ffprobe reported stream errors.
 */
export function integrityProblems(input: IntegrityInput): string[] {
  const problems: string[] = [];
  if (input.analyzedSizeBytes !== null && input.analyzedSizeBytes !== input.sizeBytes) {
    problems.push('The file changed size since it was analysed; rescan to re-analyse it.');
  } else if (
    input.analyzedFingerprint !== null &&
    input.fingerprint !== null &&
    input.analyzedFingerprint !== input.fingerprint
  ) {
    problems.push('The file content changed since it was analysed; rescan to re-analyse it.');
  }
  const caps = input.capabilities;
  if (caps === null) return problems;
  const needed = expectedBytes(caps);
  if (needed !== null && input.sizeBytes < needed * TRUNCATION_TOLERANCE) {
    problems.push(
      `The file is ${humanBytes(input.sizeBytes)} but its streams need about ${humanBytes(needed)}: probably an interrupted copy or download.`,
    );
  }
  if (caps.stream_errors !== undefined && caps.stream_errors.length > 0) {
    problems.push(`ffprobe reported stream errors: ${caps.stream_errors.slice(0, 3).join('; ')}`);
  }
  return problems;
}

/** Bytes the streams' own bitrates need over the duration, or null when that is not known. */
function expectedBytes(caps: Capabilities): number | null {
  if (caps.duration_seconds === null || caps.duration_seconds <= 0) return null;
  const videoRate = caps.video?.bitrate_bps ?? null;
  if (videoRate === null) return null;
  const audioRate = caps.audio.reduce((sum, a) => sum + (a.bitrate_bps ?? 0), 0);
  return ((videoRate + audioRate) * caps.duration_seconds) / 8;
}

/** 1.2 GB, 340.5 MB, 35 KB: sizes as a person reads them. */
export function humanBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.round(bytes / 1e3)} KB`;
}
