import { formatDuration } from '../format-duration.ts';

/**
 * Upgrades and doubles (issue 27 item 3, docs/collector.md "Upgrades"): what an owned disc offers
 * over the best file of the same film, and discs owned twice. Pure: the service reads the rows.
 */
export type UpgradeCode =
  'uhd_disc_hd_file' | 'bluray_disc_dvd_file' | 'hdr_disc_sdr_file' | 'file_short' | 'duplicate_edition';

export interface UpgradeReason {
  code: UpgradeCode;
  message: string;
}

export interface UpgradeDisc {
  copy_id: number;
  /** A normalised disc format (DISC_FORMATS) or null. */
  format: string | null;
  edition: string | null;
}

/** What the analysis recorded of one present media file (null: not recorded). */
export interface UpgradeFile {
  file_id: number;
  width: number | null;
  height: number | null;
  /** True for HDR10, HDR10+, HLG, Dolby Vision; null when the file has no analysed video. */
  hdr: boolean | null;
  duration_seconds: number | null;
}

export interface UpgradeFilm {
  movie_id: number;
  title: string;
  runtime_minutes: number | null;
  discs: readonly UpgradeDisc[];
  files: readonly UpgradeFile[];
}

export interface UpgradeItem {
  movie_id: number;
  title: string;
  /** The disc the first reason is about. */
  copy_id?: number;
  /** The file the first file reason is about (the best file; the longest for `file_short`). */
  file_id?: number;
  reasons: UpgradeReason[];
}

/** A file more than this much shorter than TMDb's runtime is a rip that stopped early. */
export const SHORT_FILE_RATIO = 0.95;

/** 2160p: 2160 lines, or 3840 wide (a scope film cropped to 3840×1600 is still a 4K rip). */
export function isUhdFile(f: Pick<UpgradeFile, 'width' | 'height'>): boolean {
  return (f.height ?? 0) >= 2160 || (f.width ?? 0) >= 3840;
}

/** DVD resolution: at most 576 lines and 1024 wide (a 1280×536 scope 720p rip is HD, not DVD). */
export function isDvdResolution(f: Pick<UpgradeFile, 'width' | 'height'>): boolean {
  return f.height !== null && f.height <= 576 && (f.width ?? 0) <= 1024;
}

const HD_DISCS = new Set(['Blu-ray', '3D Blu-ray', 'HD DVD']);

/** A disc whose picture is HDR: every 4K UHD disc is, and an edition that says HDR or Dolby Vision. */
export function isHdrDisc(d: UpgradeDisc): boolean {
  return d.format === '4K UHD' || (d.edition !== null && /\bhdr|dolby[\s-]*vision/i.test(d.edition));
}

function pixels(f: UpgradeFile): number {
  return (f.width ?? 0) * (f.height ?? 0);
}

/** The best file: the most pixels, then HDR, then the longest; ties to the lower id. */
export function bestFile(files: readonly UpgradeFile[]): UpgradeFile | undefined {
  let best: UpgradeFile | undefined;
  for (const f of files) {
    if (f.height === null) continue;
    if (best === undefined) {
      best = f;
      continue;
    }
    const diff =
      pixels(f) - pixels(best) ||
      Number(f.hdr === true) - Number(best.hdr === true) ||
      (f.duration_seconds ?? 0) - (best.duration_seconds ?? 0) ||
      best.file_id - f.file_id;
    if (diff > 0) best = f;
  }
  return best;
}

function resolution(f: UpgradeFile): string {
  return `${f.height ?? '?'}p (${f.width ?? '?'}×${f.height ?? '?'})`;
}

function editionName(d: UpgradeDisc): string {
  return [d.format ?? 'Unknown format', d.edition].filter((p) => p !== null && p !== '').join(' · ');
}

/** The key two copies of one edition share: the format and the edition's name (case and spaces aside). */
function editionKey(d: UpgradeDisc): string {
  return `${d.format ?? ''}\u0000${(d.edition ?? '').trim().replace(/\s+/g, ' ').toLowerCase()}`;
}

/** The reasons to upgrade or tidy one film, in the order of UpgradeCode; null when there is none. */
export function upgradeReasons(film: UpgradeFilm): UpgradeItem | null {
  const reasons: UpgradeReason[] = [];
  let copyId: number | undefined;
  let fileId: number | undefined;
  const about = (code: UpgradeCode, message: string, disc?: UpgradeDisc, file?: UpgradeFile) => {
    reasons.push({ code, message });
    copyId ??= disc?.copy_id;
    fileId ??= file?.file_id;
  };
  const best = bestFile(film.files);
  const uhd = film.discs.find((d) => d.format === '4K UHD');
  if (uhd !== undefined && best !== undefined && !isUhdFile(best)) {
    about('uhd_disc_hd_file', `A 4K UHD disc, but the best file is ${resolution(best)}.`, uhd, best);
  }
  const hd = film.discs.find((d) => d.format !== null && HD_DISCS.has(d.format));
  if (hd !== undefined && best !== undefined && isDvdResolution(best)) {
    about(
      'bluray_disc_dvd_file',
      `A ${hd.format ?? 'Blu-ray'} disc, but the best file is DVD resolution, ${resolution(best)}.`,
      hd,
      best,
    );
  }
  const hdrDisc = film.discs.find(isHdrDisc);
  const withVideo = film.files.filter((f) => f.hdr !== null);
  if (hdrDisc !== undefined && withVideo.length > 0 && withVideo.every((f) => f.hdr === false)) {
    const why = hdrDisc.format === '4K UHD' ? '4K UHD' : `edition ${hdrDisc.edition ?? ''}`;
    about('hdr_disc_sdr_file', `An HDR disc (${why}), but no file is HDR.`, hdrDisc, best);
  }
  const timed = film.files.filter((f) => f.duration_seconds !== null && f.duration_seconds > 0);
  const longest = timed.reduce<UpgradeFile | undefined>(
    (l, f) => (l === undefined || (f.duration_seconds ?? 0) > (l.duration_seconds ?? 0) ? f : l),
    undefined,
  );
  const runtime = film.runtime_minutes;
  if (longest !== undefined && runtime !== null && runtime > 0) {
    const seconds = longest.duration_seconds ?? 0;
    if (seconds < runtime * 60 * SHORT_FILE_RATIO) {
      const shorter = Math.round((1 - seconds / (runtime * 60)) * 100);
      about(
        'file_short',
        `The longest file runs ${formatDuration(seconds) ?? '0 s'}, ${shorter} % shorter than TMDb’s ${runtime} min: the rip may have stopped early.`,
        film.discs[0],
        longest,
      );
    }
  }
  const groups = new Map<string, UpgradeDisc[]>();
  for (const d of film.discs) {
    const key = editionKey(d);
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  for (const group of groups.values()) {
    const [first, second] = group;
    if (first === undefined || second === undefined) continue;
    const ids = group.map((d) => d.copy_id).join(', ');
    about(
      'duplicate_edition',
      `${group.length} copies of the same edition, ${editionName(first)} (copies ${ids}).`,
      second,
    );
  }
  if (reasons.length === 0) return null;
  return {
    movie_id: film.movie_id,
    title: film.title,
    ...(copyId === undefined ? {} : { copy_id: copyId }),
    ...(fileId === undefined ? {} : { file_id: fileId }),
    reasons,
  };
}

/** Reads the analysis's capability record (domain/media/capabilities.ts) for what upgrades compare. */
export function upgradeFileFacts(fileId: number, capabilitiesJson: string | null): UpgradeFile {
  const none: UpgradeFile = { file_id: fileId, width: null, height: null, hdr: null, duration_seconds: null };
  if (capabilitiesJson === null) return none;
  let parsed: unknown;
  try {
    parsed = JSON.parse(capabilitiesJson);
  } catch {
    return none;
  }
  if (typeof parsed !== 'object' || parsed === null) return none;
  const caps = parsed as { duration_seconds?: unknown; video?: unknown };
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const video =
    typeof caps.video === 'object' && caps.video !== null
      ? (caps.video as { width?: unknown; height?: unknown; hdr?: unknown })
      : null;
  return {
    file_id: fileId,
    width: num(video?.width),
    height: num(video?.height),
    hdr: video === null || typeof video.hdr !== 'string' ? null : video.hdr !== 'sdr',
    duration_seconds: num(caps.duration_seconds),
  };
}
