/**
 * WebVTT → SubRip, for Jellyfin apps whose SubtitleProfiles ask for `srt` as an external file and for
 * DLNA TVs (Samsung's CaptionInfo.sec, a `text/srt` res). reelshelf makes
 * every text track WebVTT (services/playback/subtitle-vtt.service.ts); SubRip is that text with cues
 * numbered, `,` before the milliseconds and no header, cue settings, NOTE, STYLE or REGION blocks.
 * Pure; cue text (tags like <i>) is kept, which SubRip players also read.
 */
const TIMING = /^(?:(\d{1,3}):)?(\d{2}):(\d{2})\.(\d{3})\s+-->\s+(?:(\d{1,3}):)?(\d{2}):(\d{2})\.(\d{3})/;

function srtTime(h: string | undefined, m: string, s: string, ms: string): string {
  return `${(h ?? '0').padStart(2, '0')}:${m}:${s},${ms}`;
}

/**
 * @example vttToSrt('WEBVTT\n\n00:01.000 --> 00:03.000 align:start\nHello.\n')
 *   // '1\n00:00:01,000 --> 00:00:03,000\nHello.\n'
 */
export function vttToSrt(vtt: string): string {
  const blocks = vtt
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/);
  const out: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n').filter((line, i) => i > 0 || line.trim() !== '');
    const at = lines.findIndex((line) => TIMING.test(line));
    if (at === -1) continue; // the header, NOTE, STYLE, REGION
    const match = TIMING.exec(lines[at] ?? '');
    if (match === null) continue;
    const [, h1, m1, s1, ms1, h2, m2, s2, ms2] = match;
    const text = lines
      .slice(at + 1)
      .join('\n')
      .trim();
    if (text === '') continue;
    const timing = `${srtTime(h1, m1 ?? '00', s1 ?? '00', ms1 ?? '000')} --> ${srtTime(h2, m2 ?? '00', s2 ?? '00', ms2 ?? '000')}`;
    out.push(`${out.length + 1}\n${timing}\n${text}\n`);
  }
  return out.join('\n');
}
