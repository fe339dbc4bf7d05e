import type { TextSubtitleFormat } from './webvtt.ts';

/**
 * How an embedded text subtitle stream leaves its container for the converter (webvtt.ts):
 * SubRip, ASS/SSA and WebVTT packets are copied as they are (`-c:s copy`), so the text is the muxed
 * text (ffmpeg's SubRip decoder would read `a < b > c` as a tag, and its WebVTT encoder does not escape
 * `&`); anything else (mov_text, plain text…) is decoded by ffmpeg and written as SubRip, which keeps
 * milliseconds.
 */
export function extractionFormat(codec: string): TextSubtitleFormat {
  switch (codec.toLowerCase()) {
    case 'srt':
    case 'subrip':
      return 'srt';
    case 'ass':
    case 'ssa':
      return 'ass';
    case 'webvtt':
      return 'webvtt';
    default:
      return 'srt';
  }
}

export interface ExtractedStream {
  /** 0-based position among the file's subtitle streams (`-map 0:s:<stream>`). */
  stream: number;
  /** The analysis's codec name (srt, ass, ssa, webvtt, mov_text…). */
  codec: string;
}

/** What one output pipe of an extraction carries. */
export interface ExtractionOutput {
  stream: number;
  /**
   * `text`: the stream in {@link extractionFormat}; `timings`: the same ASS stream as SubRip, read
   * only for its millisecond times (ffmpeg's `.ass` writer rounds times to centiseconds).
   */
  role: 'text' | 'timings';
}

export interface ExtractionCommand {
  args: string[];
  /** Output pipe `n` (fd 3 + n) carries `outputs[n]`. */
  outputs: ExtractionOutput[];
}

/**
 * One ffmpeg run that writes each stream to its own output pipe, `pipe:3` for the first and so on
 * (the whole file is read once, however many tracks it has). An ASS stream gets a second pipe with
 * its SubRip rendering for exact times, unless `timings` is false.
 *
 * `-copyts`: cue times are the container's own timestamps, the timeline a player shows (Chromium does
 * not rebase a positive start time, per HTML's "offsets into the media resource"). Without it ffmpeg
 * subtracts the file's start time: an MKV whose AAC priming starts the audio at 21 ms, as ffmpeg
 * writes them, would get every cue 21 ms early.
 */
export function buildSubtitleExtractionArgs(
  source: string,
  streams: readonly ExtractedStream[],
  options: { timings?: boolean } = {},
): ExtractionCommand {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-copyts', '-i', source];
  const outputs: ExtractionOutput[] = [];
  const add = (stream: number, role: ExtractionOutput['role'], codec: string, muxer: string) => {
    args.push('-map', `0:s:${stream}`, '-c:s', codec, '-f', muxer, `pipe:${3 + outputs.length}`);
    outputs.push({ stream, role });
  };
  for (const s of streams) {
    const format = extractionFormat(s.codec);
    const copied = format !== 'srt' || ['srt', 'subrip'].includes(s.codec.toLowerCase());
    add(s.stream, 'text', copied ? 'copy' : 'srt', format);
    if (format === 'ass' && options.timings !== false) add(s.stream, 'timings', 'srt', 'srt');
  }
  return { args, outputs };
}
