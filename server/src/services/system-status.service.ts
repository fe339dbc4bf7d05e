import type { MediaToolsInfo } from '../adapters/media-tools.ts';
import type { Config } from '../config.ts';

/** ffmpeg encoder names and the codec each produces (the decision speaks codec ids). */
const ENCODER_CODECS: Record<string, { codec: string; kind: 'audio' | 'video' }> = {
  aac: { codec: 'aac', kind: 'audio' },
  libfdk_aac: { codec: 'aac', kind: 'audio' },
  ac3: { codec: 'ac3', kind: 'audio' },
  eac3: { codec: 'eac3', kind: 'audio' },
  flac: { codec: 'flac', kind: 'audio' },
  alac: { codec: 'alac', kind: 'audio' },
  libopus: { codec: 'opus', kind: 'audio' },
  libmp3lame: { codec: 'mp3', kind: 'audio' },
  libx264: { codec: 'h264', kind: 'video' },
  libx265: { codec: 'hevc', kind: 'video' },
  'libvpx-vp9': { codec: 'vp9', kind: 'video' },
  libsvtav1: { codec: 'av1', kind: 'video' },
  'libaom-av1': { codec: 'av1', kind: 'video' },
};

/** What is switched off or missing, said once for /library's system_warning and /api/health. */
export class SystemStatusService {
  constructor(
    private readonly config: Config,
    private readonly tools: MediaToolsInfo,
  ) {}

  /** Whether video may be re-encoded: allowed by config and an H.264 encoder exists. */
  get transcodeAvailable(): boolean {
    return this.config.transcode && this.tools.ffmpeg.available && this.tools.encoders.includes('libx264');
  }

  /** Codec ids ffmpeg can encode, of one kind. */
  encodableCodecs(kind: 'audio' | 'video'): string[] {
    const out = new Set<string>();
    for (const name of this.tools.ffmpeg.available ? this.tools.encoders : []) {
      const entry = ENCODER_CODECS[name];
      if (entry !== undefined && entry.kind === kind) out.add(entry.codec);
    }
    return [...out].sort();
  }

  get mediaTools(): MediaToolsInfo {
    return this.tools;
  }

  warnings(): string[] {
    const out: string[] = [];
    if (!this.tools.ffprobe.available) {
      out.push('ffprobe not found: media files cannot be analysed and stay "not analyzed".');
    }
    if (!this.tools.ffmpeg.available) {
      out.push('ffmpeg not found: nothing can be remuxed or converted; only direct play works.');
    } else if (!this.config.transcode) {
      out.push('Video transcoding is off (REELSHELF_TRANSCODE=off).');
    } else if (!this.tools.encoders.includes('libx264')) {
      out.push('ffmpeg has no H.264 encoder (libx264): video cannot be transcoded.');
    }
    if (this.config.tmdbApiKey === null) {
      out.push('No TMDb key (REELSHELF_TMDB_API_KEY): metadata enrichment is off.');
    }
    if (this.config.omdbApiKey === null) {
      out.push('No OMDb key (REELSHELF_OMDB_API_KEY): ratings are off.');
    }
    return out;
  }

  /** The warnings as one line for LibraryResponse.system_warning, or null when there are none. */
  systemWarning(): string | null {
    const all = this.warnings();
    return all.length === 0 ? null : all.join(' ');
  }
}
