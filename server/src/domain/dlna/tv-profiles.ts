/**
 * A reelshelf device profile per TV family (tv-family.ts): what each TV's own player opens when a
 * DLNA server hands it a file, and what a conversion for it is made of. Facts from players.md §2.3
 * (third-party servers' profiles, not vendor documentation), each taken at its conservative end: a
 * file wrongly said to play is a black screen or silence with no word why, while a file converted
 * that needed not be costs only CPU. The conversion targets are H.264 with AAC (stereo) or AC-3 (5.1
 * where the TV decodes it), which the HLS plan (domain/hls/hls-plan.ts) puts into MPEG-TS segments:
 * the progressive stream a TV is given is those segments as one MPEG-TS.
 *
 * Ids are `dlna-<family>`; a user profile file of the same id in `<data dir>/devices` replaces one
 * (DeviceProfileService.register), so a household can say more about its own TV.
 */
import type { AudioCodecRule, DeviceProfile, SubtitleSupport } from '../playback/device-profile-types.ts';
import type { TvFamily } from './tv-family.ts';

const H264_8BIT = ['constrained baseline', 'baseline', 'main', 'high'];
const STEREO_AAC = { codec: 'aac', min_source_channels: 1, max_channels: 2 };
const SURROUND_AC3 = { codec: 'ac3', min_source_channels: 3, max_channels: 6 };
/** What TVs show beside a DLNA video: SubRip, as a separate file (CaptionInfo.sec / a text/srt res). */
const SRT_SUBTITLES: SubtitleSupport = {
  embedded: ['srt'],
  sidecar: ['srt'],
  styled_text: 'convert',
  artifact_text_format: null,
};

function audio(codec: string, maxChannels: number, containers?: string[]): AudioCodecRule {
  return { codec, max_channels: maxChannels, ...(containers === undefined ? {} : { containers }) };
}

/**
 * Samsung (Tizen, Orsay): MKV, MP4 and MPEG-TS with H.264 (and MPEG-4 Part 2 in MKV/MP4); AAC,
 * AC-3, MP3. Not DTS: Samsung dropped DTS decoding from its 2018 and later TVs (licensing; the
 * older profiles that list `dca` are from models before that), and a DTS track there is silence —
 * so DTS is converted. E-AC-3 is left out for the same caution (not on every model).
 */
const SAMSUNG: DeviceProfile = {
  id: 'dlna-samsung',
  name: 'Samsung TV (DLNA)',
  description: 'Samsung TV browsing reelshelf as a DLNA media server: MKV/MP4/TS, H.264, AAC/AC-3/MP3.',
  containers: ['mkv', 'mp4', 'ts'],
  video: {
    codecs: [
      { codec: 'h264', profiles: H264_8BIT, max_level: 5.1, max_bit_depth: 8 },
      { codec: 'mpeg4', containers: ['mkv', 'mp4'], max_width: 1920, max_height: 1080 },
    ],
    hdr: [],
    dolby_vision: null,
  },
  audio: {
    codecs: [audio('aac', 6), audio('ac3', 6), audio('mp3', 2)],
    passthrough: [],
    track_switching: true,
  },
  subtitles: SRT_SUBTITLES,
  max_streams: null,
  prefers_hls: false,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264', max_width: 1920, max_height: 1080 }],
    audio: [SURROUND_AC3, STEREO_AAC],
  },
};

/**
 * LG (webOS): MPEG-TS, MKV and MP4 with H.264 or HEVC (Main, Main 10; HDR10 and HLG on webOS);
 * AAC, AC-3, E-AC-3, MP3. Not DTS: LG removed it from its 2020–2022 TVs (and put it back in 2023),
 * so it cannot be counted on. Dolby Vision is not declared (webOS before 25 does not see it in MKV).
 */
const LG: DeviceProfile = {
  id: 'dlna-lg',
  name: 'LG TV (DLNA)',
  description:
    'LG webOS TV browsing reelshelf as a DLNA media server: TS/MKV/MP4, H.264/HEVC, AAC/AC-3/E-AC-3/MP3.',
  containers: ['ts', 'mkv', 'mp4'],
  video: {
    codecs: [
      { codec: 'h264', profiles: H264_8BIT, max_level: 5.1, max_bit_depth: 8 },
      { codec: 'hevc', profiles: ['main', 'main 10'], max_level: 5.1 },
    ],
    hdr: ['hdr10', 'hlg'],
    dolby_vision: null,
  },
  audio: {
    codecs: [audio('aac', 6), audio('ac3', 6), audio('eac3', 8), audio('mp3', 2)],
    passthrough: [],
    track_switching: true,
  },
  subtitles: SRT_SUBTITLES,
  max_streams: null,
  prefers_hls: false,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264', max_width: 1920, max_height: 1080 }],
    audio: [SURROUND_AC3, STEREO_AAC],
  },
};

/**
 * Sony Bravia: MP4 and MPEG-TS with H.264; AAC and AC-3. Matroska is left out (not on every Bravia,
 * and Jellyfin's Sony profiles convert it).
 */
const SONY: DeviceProfile = {
  id: 'dlna-sony',
  name: 'Sony Bravia (DLNA)',
  description: 'Sony Bravia TV browsing reelshelf as a DLNA media server: MP4/TS, H.264, AAC/AC-3.',
  containers: ['mp4', 'ts'],
  video: {
    codecs: [{ codec: 'h264', profiles: H264_8BIT, max_level: 4.2, max_bit_depth: 8 }],
    hdr: [],
    dolby_vision: null,
  },
  audio: {
    codecs: [audio('aac', 6), audio('ac3', 6)],
    passthrough: [],
    track_switching: true,
  },
  subtitles: { embedded: [], sidecar: ['srt'], styled_text: 'convert', artifact_text_format: null },
  max_streams: null,
  prefers_hls: false,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264', max_width: 1920, max_height: 1080 }],
    audio: [SURROUND_AC3, STEREO_AAC],
  },
};

/**
 * Any other renderer (VLC, Kodi, Xbox, Windows Media Player, a TV we do not recognise): MP4 with
 * 8-bit H.264 up to 1080p and AAC or MP3 — what every DLNA renderer plays. Its conversion is
 * H.264 + stereo AAC (AC-3 is not on every renderer).
 */
const GENERIC: DeviceProfile = {
  id: 'dlna-generic',
  name: 'DLNA renderer',
  description: 'Any DLNA renderer reelshelf does not recognise: MP4, H.264 up to 1080p, AAC/MP3.',
  containers: ['mp4'],
  video: {
    codecs: [
      {
        codec: 'h264',
        profiles: H264_8BIT,
        max_level: 4.1,
        max_bit_depth: 8,
        max_width: 1920,
        max_height: 1080,
      },
    ],
    hdr: [],
    dolby_vision: null,
  },
  audio: {
    codecs: [audio('aac', 6), audio('mp3', 2)],
    passthrough: [],
    track_switching: false,
  },
  subtitles: { embedded: [], sidecar: ['srt'], styled_text: 'convert', artifact_text_format: null },
  max_streams: null,
  prefers_hls: false,
  conversion: {
    container: 'mp4',
    video: [{ codec: 'h264', max_width: 1920, max_height: 1080 }],
    audio: [STEREO_AAC],
  },
};

const PROFILES: Readonly<Record<TvFamily, DeviceProfile>> = {
  samsung: SAMSUNG,
  lg: LG,
  sony: SONY,
  generic: GENERIC,
};

/** The device profile id of a family: `dlna-samsung`, `dlna-lg`, `dlna-sony`, `dlna-generic`. */
export function tvProfileId(family: TvFamily): string {
  return `dlna-${family}`;
}

/** The built-in profile of a family (a fresh copy: the registry keeps its own). */
export function tvProfile(family: TvFamily): DeviceProfile {
  return structuredClone(PROFILES[family]);
}

/** All four, in family order. */
export function tvProfiles(): DeviceProfile[] {
  return (Object.keys(PROFILES) as TvFamily[]).map(tvProfile);
}
