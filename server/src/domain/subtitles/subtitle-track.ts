/**
 * A subtitle track of a media file as players are offered it: the embedded subtitle streams (from the
 * analysis) and the sidecar files beside the video (found by the scan), in one numbered list. The
 * `index` is what URLs carry (`/stream/media_file/{id}/subtitles/{index}.vtt`): embedded streams
 * first in stream order, then sidecars by file name, so it is stable while the files are.
 */
export interface SubtitleTrack {
  index: number;
  source:
    | {
        kind: 'embedded';
        /** 0-based position among the file's subtitle streams (`-map 0:s:<stream>`). */
        stream: number;
      }
    | {
        kind: 'sidecar';
        /** Relative to the library root, like media files. */
        relativePath: string;
        sizeBytes: number;
        mtimeMs: number;
      };
  /** Normalised format: srt, ass, ssa, webvtt, mov_text, pgs, vobsub, dvbsub… (as the analysis names codecs). */
  format: string;
  kind: 'text' | 'image';
  /** ISO 639-2 (three letters, as Matroska and ffmpeg write them: eng, fre, ger); null when unknown. */
  language: string | null;
  title: string | null;
  forced: boolean;
  default: boolean;
  /** For the deaf and hard of hearing (SDH / HI / CC). */
  sdh: boolean;
}

/** Where the services get a file's subtitle tracks. */
export interface SubtitleTrackSource {
  /** @throws AppError not_found for an unknown file */
  tracks(fileId: number): Promise<SubtitleTrack[]>;
}
