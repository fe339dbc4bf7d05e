/**
 * The shape of a device profile: plain JSON (snake_case) so that built-in profiles, `GET /api/devices`
 * and user profiles loaded from a JSON file in the data dir are the same thing.
 * Codec ids are ffprobe `codec_name`s (`pcm` matches every `pcm_*`); container and subtitle ids are
 * those of the Capabilities record; `'*'` in a list means "any". Profile names compare
 * case-insensitively with ffprobe's (`High`, `Main 10`, `Profile 2`).
 */

export type HdrOutput = 'hdr10' | 'hdr10plus' | 'hlg';

export interface VideoCodecRule {
  codec: string;
  /** Containers this codec direct-plays in; absent = every direct container of the profile. */
  containers?: string[];
  /** Allowed ffprobe profiles; absent = any. An unreported profile is judged by bit depth alone. */
  profiles?: string[];
  max_level?: number;
  max_bit_depth?: number;
  max_width?: number;
  max_height?: number;
  max_frame_rate?: number;
  max_bitrate_bps?: number;
  /** Absent = allowed. */
  allow_interlaced?: boolean;
  /** Absent = allowed. */
  allow_anamorphic?: boolean;
  /** Per container, the sample-entry tags the player accepts (Apple: `hvc1`/`dvh1`, never `hev1`). */
  required_tags?: Record<string, string[]>;
}

export interface AudioCodecRule {
  codec: string;
  containers?: string[];
  max_channels?: number;
  /** Normalised Capabilities profiles this player cannot decode ('HE-AAC', 'Main'…). */
  excluded_profiles?: string[];
  max_sample_rate?: number;
  /** Only bit-streamed to an AV receiver: plays only when the codec is in `audio.passthrough`. */
  passthrough_only?: boolean;
}

export interface DolbyVisionSupport {
  /** '5', '7', '8.1', '8.2', '8.4', '10', or '*'. */
  profiles: string[];
  /** Containers Dolby Vision is recognised in (webOS before 25: not MKV). */
  containers: string[];
  /** Whether a profile 7 enhancement layer is decoded (else it is stripped to the HDR10 base). */
  enhancement_layer: boolean;
}

export interface SubtitleSupport {
  /** Formats shown when they are inside the played stream. */
  embedded: string[];
  /** Formats loaded as a separate text track (the server extracts/converts text subtitles for free). */
  sidecar: string[];
  /** ASS/SSA when not embedded-rendered: client renders it, convert to plain text (styling lost) or burn in. */
  styled_text: 'render' | 'convert' | 'burn_in';
  /** Text format a remux can embed for this player (mov_text in MP4), or null when it cannot. */
  artifact_text_format: string | null;
}

export interface VideoTarget {
  codec: string;
  /** Sample-entry tag to write (`hvc1` for Apple). */
  tag?: string;
  /** Use this target only to keep HDR (HDR10/HLG sources on an HDR-capable player). */
  hdr_sources_only?: boolean;
  max_width?: number;
  max_height?: number;
}

export interface AudioTarget {
  codec: string;
  /** Chosen only for sources with at least this many channels. */
  min_source_channels: number;
  max_channels: number;
}

export interface DeviceProfile {
  id: string;
  name: string;
  description: string;
  /** Containers the player opens directly. */
  containers: string[];
  video: {
    codecs: VideoCodecRule[];
    hdr: HdrOutput[];
    dolby_vision: DolbyVisionSupport | null;
  };
  audio: {
    codecs: AudioCodecRule[];
    /** Codecs a connected receiver takes by passthrough (empty unless a custom profile says so). */
    passthrough: string[];
    /** Whether the player can switch to a non-default audio track itself. */
    track_switching: boolean;
  };
  subtitles: SubtitleSupport;
  /** Total stream limit of the demuxer (Tizen < 6.5: 32), null = none. */
  max_streams: number | null;
  /**
   * Whether the player is best served HLS even for a file it could open directly: TV players seek
   * in HLS by segment and switch audio renditions in their own menu (AVPlayer, ExoPlayer, Roku),
   * and Safari plays HLS natively. The playback endpoint then sets `hls_url` for every playable file.
   */
  prefers_hls: boolean;
  /** What playback artifacts are made of, in order of preference. */
  conversion: {
    container: string;
    video: VideoTarget[];
    audio: AudioTarget[];
  };
}
