/**
 * The incompatibility code catalogue (playback.md §6). Codes are snake_case and stable: clients
 * and tests match on them. Each code has the Incompatibility `type`, the fix class that resolves
 * it (the cheapest ladder step: remux, audio → adaptive, video → transcode; none = cannot be fixed
 * by conversion) and detail/hint templates whose `{name}` placeholders are filled per decision.
 */

export type IncompatibilityType = 'audio' | 'video' | 'container' | 'subtitle' | 'unknown';
export type FixClass = 'remux' | 'audio' | 'video' | 'none';

export interface CodeEntry {
  type: IncompatibilityType;
  fix: FixClass;
  detail: string;
  hint?: string;
}

export const INCOMPATIBILITY_CODES = {
  container_unsupported: {
    type: 'container',
    fix: 'remux',
    detail: '{container} cannot be played by {device}.',
    hint: 'Plays after a lossless remux to MP4; store the file as MP4 to avoid it.',
  },
  container_stream_count_exceeded: {
    type: 'container',
    fix: 'remux',
    detail: 'The file has {count} streams; {device} accepts at most {max}.',
    hint: 'A remux keeps only the streams that are played.',
  },
  container_bitrate_exceeded: {
    type: 'container',
    fix: 'video',
    detail: 'File bitrate {bitrate} exceeds the {max} limit of this session.',
    hint: 'Raise the bitrate limit or play on the local network.',
  },
  container_disc_structure: {
    type: 'container',
    fix: 'none',
    detail: 'This is a disc folder ({structure}), not a single video file.',
    hint: 'Rip the main title to MKV or MP4.',
  },
  container_unreadable: {
    type: 'container',
    fix: 'none',
    detail: 'ffprobe could not read the container: {error}.',
    hint: 'Copy the file again and rescan.',
  },
  video_codec_unsupported: {
    type: 'video',
    fix: 'video',
    detail: '{codec} video is not supported by {device}.',
    hint: 'Plays after converting the video to {target}; a file in a codec {device} decodes needs no conversion.',
  },
  video_codec_tag_unsupported: {
    type: 'video',
    fix: 'remux',
    detail: '{codec} is tagged {tag}; {device} requires {required}.',
    hint: 'Fixed by a lossless remux that rewrites the tag.',
  },
  video_profile_unsupported: {
    type: 'video',
    fix: 'video',
    detail: '{codec} {profile} is not supported by {device}.',
    hint: 'Re-encode to a profile {device} decodes (for example 8-bit H.264 High or HEVC Main 10).',
  },
  video_level_exceeded: {
    type: 'video',
    fix: 'video',
    detail: '{codec} level {level} exceeds the {device} maximum {max}.',
  },
  video_bit_depth_unsupported: {
    type: 'video',
    fix: 'video',
    detail: '{depth}-bit {codec} cannot be decoded by {device}.',
  },
  video_resolution_exceeded: {
    type: 'video',
    fix: 'video',
    detail: '{width}×{height} exceeds the {max_width}×{max_height} decoder of {device}.',
  },
  video_framerate_exceeded: {
    type: 'video',
    fix: 'video',
    detail: '{codec} at {fps} fps exceeds the {max} fps limit of {device}.',
  },
  video_bitrate_exceeded: {
    type: 'video',
    fix: 'video',
    detail: 'Video bitrate {bitrate} exceeds the {max} of {device}.',
  },
  video_interlaced_unsupported: {
    type: 'video',
    fix: 'video',
    detail: 'Interlaced video must be deinterlaced for {device}.',
  },
  video_anamorphic_unsupported: {
    type: 'video',
    fix: 'video',
    detail: 'Non-square pixels (SAR {sar}) are not applied by {device}.',
  },
  video_rotation_unsupported: {
    type: 'video',
    fix: 'video',
    detail: 'Rotated video ({rotation}°) is not handled by {device}.',
  },
  video_container_unsupported: {
    type: 'video',
    fix: 'video',
    detail: '{codec} video cannot be carried in {container} for {device}.',
  },
  video_hdr_unsupported: {
    type: 'video',
    fix: 'video',
    detail: '{hdr} video on {device}, which shows no {hdr}.',
    hint: 'It is tone-mapped to SDR; colours may differ.',
  },
  video_dolby_vision_unsupported: {
    type: 'video',
    fix: 'video',
    detail: 'Dolby Vision profile {profile} has no HDR10 fallback and {device} has no Dolby Vision.',
    hint: 'Without tone-mapping the picture would be green and purple; it must be transcoded.',
  },
  video_dolby_vision_el_unsupported: {
    type: 'video',
    fix: 'remux',
    detail: 'The Dolby Vision profile {profile} enhancement layer is not supported by {device}.',
    hint: 'Plays the HDR10 base layer after a lossless remux.',
  },
  video_dolby_vision_container_unsupported: {
    type: 'video',
    fix: 'remux',
    detail: '{device} plays Dolby Vision only from {containers}, not {container}.',
    hint: 'A lossless remux to MP4 keeps Dolby Vision.',
  },
  video_dolby_vision_invalid: {
    type: 'video',
    fix: 'remux',
    detail: 'The Dolby Vision metadata does not match a valid profile.',
    hint: 'The metadata is stripped by a lossless remux; it plays as HDR10.',
  },
  audio_codec_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: '{codec} audio cannot be decoded by {device}.',
    hint: 'Adaptive audio converts it to {target}; the video is untouched.',
  },
  audio_container_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: '{codec} audio cannot be carried in {container} for {device}.',
    hint: 'Adaptive audio converts it to {target}.',
  },
  audio_channels_exceeded: {
    type: 'audio',
    fix: 'audio',
    detail: '{codec} with {channels} channels exceeds the {max}-channel limit of {device}.',
    hint: 'Adaptive audio converts it to {target}.',
  },
  audio_profile_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: '{codec} {profile} is not supported by {device}.',
    hint: 'Adaptive audio converts it to {target}.',
  },
  audio_sample_rate_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: '{rate} kHz audio exceeds the {max} kHz of {device}.',
  },
  audio_bit_depth_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: '{depth}-bit audio is not supported by {device}.',
  },
  audio_bitrate_exceeded: {
    type: 'audio',
    fix: 'audio',
    detail: 'Audio bitrate {bitrate} exceeds the {max} of {device}.',
  },
  audio_track_switch_unsupported: {
    type: 'audio',
    fix: 'remux',
    detail: '{device} plays only the first audio track; the selected one is track {track}.',
    hint: 'A lossless remux keeps only the selected track.',
  },
  audio_external_unsupported: {
    type: 'audio',
    fix: 'audio',
    detail: 'A separate audio file cannot be played alongside the video on {device}.',
  },
  audio_passthrough_required: {
    type: 'audio',
    fix: 'audio',
    detail: '{codec} plays on {device} only by passthrough to an AV receiver.',
    hint: 'Declare the receiver in a custom device profile to pass it through; otherwise it is converted.',
  },
  subtitle_image_burn_in_required: {
    type: 'subtitle',
    fix: 'video',
    detail: '{codec} (image) subtitles cannot be shown by {device}; they must be burned into the video.',
    hint: 'Turn subtitles off for lossless playback, or use text (SRT) subtitles.',
  },
  subtitle_styled_text_burn_in_required: {
    type: 'subtitle',
    fix: 'video',
    detail: '{codec} styled subtitles are not rendered by {device}; they must be burned into the video.',
    hint: 'Turn subtitles off for lossless playback, or add an SRT version of them.',
  },
  subtitle_text_burn_in_required: {
    type: 'subtitle',
    fix: 'video',
    detail: '{device} shows no text subtitles; {codec} must be burned into the video.',
    hint: 'Turn subtitles off for lossless playback.',
  },
  subtitle_conversion_required: {
    type: 'subtitle',
    fix: 'remux',
    detail: '{codec} subtitles must be converted to {target} for {device}.',
  },
  subtitle_delivery_unsupported: {
    type: 'subtitle',
    fix: 'remux',
    detail: '{device} shows {codec} subtitles only inside the stream.',
  },
  subtitle_font_missing: {
    type: 'subtitle',
    fix: 'video',
    detail: 'Burning in the subtitles needs a font that is not installed.',
    hint: 'Install fallback fonts on the server.',
  },
  subtitle_charset_unknown: {
    type: 'subtitle',
    fix: 'none',
    detail: 'The subtitle file is not UTF-8 and its encoding could not be detected.',
    hint: 'Save the subtitle file as UTF-8.',
  },
  not_analyzed: {
    type: 'unknown',
    fix: 'none',
    detail: 'The file has not been analysed yet.',
    hint: 'Run a library scan.',
  },
  probe_failed: {
    type: 'unknown',
    fix: 'none',
    detail: 'ffprobe failed: {error}',
    hint: 'Check the file, then rescan.',
  },
  stream_info_incomplete: {
    type: 'unknown',
    fix: 'none',
    detail: '{missing}; playback cannot be predicted.',
    hint: 'Rescan the file.',
  },
  file_missing: {
    type: 'unknown',
    fix: 'none',
    detail: 'The file was not found at its recorded path.',
    hint: 'Reconnect the drive or rescan the library root.',
  },
  transcoding_disabled: {
    type: 'unknown',
    fix: 'none',
    detail: 'The video must be re-encoded but transcoding is off.',
    hint: 'Set REELSHELF_TRANSCODE=on.',
  },
  encoder_unavailable: {
    type: 'unknown',
    fix: 'none',
    detail: 'This ffmpeg has no {encoder} encoder.',
    hint: 'Install a full ffmpeg build.',
  },
  no_compatible_target: {
    type: 'unknown',
    fix: 'none',
    detail: 'No output format {device} can play was found.',
  },
  client_playback_failed: {
    type: 'unknown',
    fix: 'none',
    detail: 'The device reported it could not play the stream.',
    hint: 'Retrying with a remux.',
  },
} as const satisfies Record<string, CodeEntry>;

export type IncompatibilityCode = keyof typeof INCOMPATIBILITY_CODES;

/** Non-blocking notes: true facts about the chosen playback that change nothing in the state. */
export const NOTE_CODES = {
  audio_immersive_metadata_lost: {
    detail: '{profile} loses its object metadata when converted to {target}.',
    hint: 'Add an E-AC3 Atmos track to the file to keep Atmos.',
  },
  subtitle_styling_lost: {
    detail: '{codec} styling (positions, fonts, colours) is lost in the conversion to {target}.',
  },
  subtitle_forced_not_shown: {
    detail: 'Forced {codec} subtitles are not shown automatically on {device}.',
    hint: 'Select them to burn them into the video.',
  },
} as const satisfies Record<string, { detail: string; hint?: string }>;

export type NoteCode = keyof typeof NOTE_CODES;

export type TemplateParams = Readonly<Record<string, string | number>>;

export interface Reason {
  type: IncompatibilityType;
  code: IncompatibilityCode;
  detail: string;
  hint?: string;
  fix: FixClass;
}

export interface Note {
  code: NoteCode;
  detail: string;
  hint?: string;
}

/** Fills `{name}` placeholders; an absent parameter stays visible as `{name}` so tests catch it. */
export function fillTemplate(template: string, params: TemplateParams): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/** Builds the Reason for a catalogue code with its detail and hint filled. */
export function reasonFor(code: IncompatibilityCode, params: TemplateParams = {}): Reason {
  const entry: CodeEntry = INCOMPATIBILITY_CODES[code];
  const reason: Reason = {
    type: entry.type,
    code,
    detail: fillTemplate(entry.detail, params),
    fix: entry.fix,
  };
  if (entry.hint !== undefined) reason.hint = fillTemplate(entry.hint, params);
  return reason;
}

/** Builds a non-blocking Note. */
export function noteFor(code: NoteCode, params: TemplateParams = {}): Note {
  const entry: { detail: string; hint?: string } = NOTE_CODES[code];
  const note: Note = { code, detail: fillTemplate(entry.detail, params) };
  if (entry.hint !== undefined) note.hint = fillTemplate(entry.hint, params);
  return note;
}
