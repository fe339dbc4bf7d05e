/**
 * A subtitle rendition is cut into WebVTT segments on the media segments' boundaries (Apple's HLS
 * authoring spec: subtitle segments as long as the media's). One segment for the whole film plays in
 * hls.js, but VLC's HLS module, after a seek, ends its buffering on that segment's clock before the
 * audio and video decoders have data ("buffer deadlock prevented"). Pure.
 */

const TIMING = /^\s*((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})/;

/** A WebVTT timestamp (`[hh:]mm:ss.ttt`) in seconds. */
export function webVttSeconds(stamp: string): number {
  const parts = stamp.split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

/**
 * The document's header (signature, header lines such as X-TIMESTAMP-MAP, STYLE and REGION blocks)
 * and the cues shown at some time in [start, end) seconds of cue time. A cue that crosses a boundary
 * is in both segments, as RFC 8216 §3.5 allows (players drop the repeat). Comments are left out.
 */
export function webVttWindow(vtt: string, start: number, end: number): string {
  const blocks = vtt
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .filter((block) => block.trim() !== '');
  const [header = 'WEBVTT', ...rest] = blocks;
  const kept = [header];
  for (const block of rest) {
    const timing = block
      .split('\n')
      .map((line) => TIMING.exec(line))
      .find((match) => match !== null);
    if (timing === undefined || timing === null) {
      if (/^(STYLE|REGION)\b/.test(block)) kept.push(block);
      continue;
    }
    const from = webVttSeconds(timing[1] ?? '0');
    const to = webVttSeconds(timing[2] ?? '0');
    if (from < end && (to > start || (to === from && from >= start))) kept.push(block);
  }
  return `${kept.join('\n\n')}\n\n`;
}
