import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface MediaToolsInfo {
  ffmpeg: { available: boolean; version: string | null; path: string };
  ffprobe: { available: boolean; version: string | null; path: string };
  /** Encoder names ffmpeg reports (libx264, aac, eac3, …); empty when ffmpeg is missing. */
  encoders: string[];
}

async function versionOf(path: string): Promise<string | null> {
  try {
    const { stdout } = await run(path, ['-hide_banner', '-version'], { timeout: 10_000, maxBuffer: 1 << 20 });
    const match = /version\s+(\S+)/.exec(stdout);
    return match?.[1] ?? 'unknown';
  } catch {
    return null;
  }
}

async function encodersOf(path: string): Promise<string[]> {
  try {
    const { stdout } = await run(path, ['-hide_banner', '-encoders'], {
      timeout: 10_000,
      maxBuffer: 4 << 20,
    });
    const names: string[] = [];
    for (const line of stdout.split('\n')) {
      // Lines look like " V....D libx264              libx264 H.264 / AVC …"
      const match = /^\s[VAS][.\w]{5}\s+(\S+)/.exec(line);
      if (match?.[1] !== undefined && match[1] !== '=') names.push(match[1]);
    }
    return names.sort();
  } catch {
    return [];
  }
}

/** Finds out once, at start, which media tools exist and what ffmpeg can encode. */
export async function detectMediaTools(ffmpegPath: string, ffprobePath: string): Promise<MediaToolsInfo> {
  const [ffmpegVersion, ffprobeVersion] = await Promise.all([versionOf(ffmpegPath), versionOf(ffprobePath)]);
  const encoders = ffmpegVersion === null ? [] : await encodersOf(ffmpegPath);
  return {
    ffmpeg: { available: ffmpegVersion !== null, version: ffmpegVersion, path: ffmpegPath },
    ffprobe: { available: ffprobeVersion !== null, version: ffprobeVersion, path: ffprobePath },
    encoders,
  };
}
