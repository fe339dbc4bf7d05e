import type { MediaToolInfo, MediaToolName, MediaToolsInfo } from '../../adapters/media-tools.ts';
import type { Config } from '../../config.ts';
import { encodableCodecs, encodingName, missingEncoders } from '../../domain/playback/encoders.ts';

const SOURCE_WORDS: Record<NonNullable<MediaToolInfo['source']>, string> = {
  env: 'set by REELSHELF_',
  path: 'found on the PATH',
  bundled: 'the static build bundled from npm',
};

/** One tool as /api/health shows it. */
export interface MediaToolReport {
  available: boolean;
  path: string;
  source: MediaToolInfo['source'];
  version: string | null;
  release: string | null;
  /** Conversions this build cannot make, as sentences ("no AV1 encoding (libsvtav1)"). */
  lacks: string[];
}

/** What is switched off or missing, said once for /library's system_warning and /api/health. */
export class SystemStatusService {
  private readonly encodable: { audio: string[]; video: string[] };

  constructor(
    private readonly config: Config,
    private readonly tools: MediaToolsInfo,
  ) {
    this.encodable = encodableCodecs(tools.ffmpeg.available ? tools.encoders : []);
  }

  /** Whether video may be re-encoded: allowed by config and ffmpeg has an encoder for some video codec. */
  get transcodeAvailable(): boolean {
    return this.config.transcode && this.tools.ffmpeg.available && this.encodable.video.length > 0;
  }

  get ffmpegAvailable(): boolean {
    return this.tools.ffmpeg.available;
  }

  /** Codec ids ffmpeg can encode, of one kind (the decision's `encoders` input). */
  encodableCodecs(kind: 'audio' | 'video'): string[] {
    return [...this.encodable[kind]];
  }

  get mediaTools(): MediaToolsInfo {
    return this.tools;
  }

  /** "bundled ffmpeg 4.1", "ffmpeg 5.1" — how a person names the build in use. */
  private toolName(name: MediaToolName): string {
    const tool = this.tools[name];
    const release = tool.release === null ? '' : ` ${tool.release}`;
    return `${tool.source === 'bundled' ? 'bundled ' : ''}${name}${release}`;
  }

  /** The conversions the ffmpeg in use cannot make, as short phrases. */
  private ffmpegLacks(): string[] {
    if (!this.tools.ffmpeg.available) return [];
    return missingEncoders(this.tools.encoders).map((missing) => `no ${encodingName(missing)}`);
  }

  toolReport(name: MediaToolName): MediaToolReport {
    const tool = this.tools[name];
    return {
      available: tool.available,
      path: tool.path,
      source: tool.source,
      version: tool.version,
      release: tool.release,
      lacks: name === 'ffmpeg' ? this.ffmpegLacks() : [],
    };
  }

  /** One start-up line per tool: which binary, where it came from, its version. */
  toolLines(): string[] {
    return (['ffprobe', 'ffmpeg'] as const).map((name) => {
      const tool = this.tools[name];
      if (!tool.available) return `${name}: not found (tried ${tool.path})`;
      const from =
        tool.source === 'env'
          ? `${SOURCE_WORDS.env}${name.toUpperCase()}`
          : SOURCE_WORDS[tool.source ?? 'path'];
      return `${name}: ${tool.path} (${from}), version ${tool.version ?? 'unknown'}${
        tool.release === null ? '' : ` (FFmpeg ${tool.release})`
      }`;
    });
  }

  warnings(): string[] {
    const out: string[] = [];
    if (!this.tools.ffprobe.available) {
      out.push('ffprobe not found: media files cannot be analysed and stay "not analyzed".');
    }
    if (!this.tools.ffmpeg.available) {
      out.push('ffmpeg not found: nothing can be remuxed or converted; only direct play works.');
    } else {
      const lacks = this.ffmpegLacks();
      if (lacks.length > 0) {
        const fix =
          this.tools.ffmpeg.source === 'bundled'
            ? "install Debian's ffmpeg for it (apt-get install ffmpeg)"
            : 'point REELSHELF_FFMPEG at a full build (Debian: apt-get install ffmpeg) for it';
        out.push(`${this.toolName('ffmpeg')}: ${lacks.join(', ')}; ${fix}.`);
      }
      if (!this.config.transcode) {
        out.push('Video transcoding is off (REELSHELF_TRANSCODE=off).');
      } else if (this.encodable.video.length === 0) {
        out.push(
          'ffmpeg has no video encoder reelshelf uses (libx264, libx265, libsvtav1): video cannot be transcoded.',
        );
      }
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
