/** Names a person recognises for the codec and container ids of a Capabilities record. */

const VIDEO_CODECS: Record<string, string> = {
  h264: 'H.264',
  hevc: 'HEVC',
  av1: 'AV1',
  vp8: 'VP8',
  vp9: 'VP9',
  mpeg1video: 'MPEG-1',
  mpeg2video: 'MPEG-2',
  mpeg4: 'MPEG-4 Part 2',
  vc1: 'VC-1',
  wmv3: 'WMV 9',
  msmpeg4v3: 'MS MPEG-4 v3',
  prores: 'ProRes',
  theora: 'Theora',
};

const AUDIO_CODECS: Record<string, string> = {
  aac: 'AAC',
  aac_latm: 'AAC',
  ac3: 'AC3',
  eac3: 'E-AC3',
  dts: 'DTS',
  truehd: 'TrueHD',
  mlp: 'MLP',
  flac: 'FLAC',
  alac: 'ALAC',
  opus: 'Opus',
  vorbis: 'Vorbis',
  mp3: 'MP3',
  mp2: 'MP2',
  wmav2: 'WMA',
  wmapro: 'WMA Pro',
};

const CONTAINERS: Record<string, string> = {
  mp4: 'MP4',
  mkv: 'Matroska (MKV)',
  webm: 'WebM',
  mov: 'QuickTime (MOV)',
  avi: 'AVI',
  ts: 'MPEG-TS',
  m2ts: 'Blu-ray M2TS',
  mpeg: 'MPEG program stream',
  asf: 'ASF/WMV',
  ogg: 'Ogg',
  flv: 'Flash video (FLV)',
};

const SUBTITLES: Record<string, string> = {
  srt: 'SRT',
  ass: 'ASS',
  ssa: 'SSA',
  webvtt: 'WebVTT',
  mov_text: 'MP4 timed text',
  ttml: 'TTML',
  eia_608: 'CEA-608',
  pgs: 'PGS',
  vobsub: 'VobSub',
  dvbsub: 'DVB',
  xsub: 'XSUB',
  teletext: 'Teletext',
};

const HDR_FORMATS: Record<string, string> = {
  hdr10: 'HDR10',
  hdr10plus: 'HDR10+',
  hlg: 'HLG',
  dolby_vision: 'Dolby Vision',
  sdr: 'SDR',
};

function named(table: Record<string, string>, id: string): string {
  return table[id] ?? id.toUpperCase();
}

export function videoCodecName(codec: string): string {
  return named(VIDEO_CODECS, codec);
}

export function audioCodecName(codec: string): string {
  return codec.startsWith('pcm_') ? 'PCM' : named(AUDIO_CODECS, codec);
}

export function containerName(container: string): string {
  return named(CONTAINERS, container);
}

export function subtitleCodecName(codec: string): string {
  return named(SUBTITLES, codec);
}

export function hdrName(hdr: string): string {
  return named(HDR_FORMATS, hdr);
}

const LAYOUT_LABELS: Record<string, string> = {
  mono: '1.0',
  stereo: '2.0',
  '2.1': '2.1',
  '3.0': '3.0',
  '3.1': '3.1',
  quad: '4.0',
  '4.0': '4.0',
  '4.1': '4.1',
  '5.0': '5.0',
  '5.1': '5.1',
  '6.1': '6.1',
  '7.1': '7.1',
};

const CHANNEL_COUNT_LABELS: Record<number, string> = {
  1: '1.0',
  2: '2.0',
  3: '2.1',
  4: '4.0',
  5: '5.0',
  6: '5.1',
  7: '6.1',
  8: '7.1',
};

/** '5.1(side)' → '5.1', 'stereo' → '2.0'; else from the count (6 → '5.1'). */
export function channelsLabel(channels: number | null, layout: string | null = null): string | null {
  const base = layout?.toLowerCase().replace(/\(.*\)$/, '');
  const fromLayout = base === undefined ? undefined : LAYOUT_LABELS[base];
  if (fromLayout !== undefined) return fromLayout;
  if (channels === null || channels <= 0) return null;
  return CHANNEL_COUNT_LABELS[channels] ?? `${channels}ch`;
}
