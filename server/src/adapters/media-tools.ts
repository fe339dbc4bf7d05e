import { execFile } from 'node:child_process';
import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type MediaToolName = 'ffmpeg' | 'ffprobe';
/** Where a tool was found: REELSHELF_FFMPEG/REELSHELF_FFPROBE, the PATH, or the npm static build. */
export type MediaToolSource = 'env' | 'path' | 'bundled';

export interface MediaToolInfo {
  available: boolean;
  /** The binary that runs (absolute once found); the configured value or bare name when none answers. */
  path: string;
  /** null when no candidate answered. */
  source: MediaToolSource | null;
  /** What the binary calls its version: `5.1.9-0+deb12u1`, or `N-47683-g0e8eb07980-static` for a git build. */
  version: string | null;
  /** The FFmpeg release its libraries belong to (`5.1`, `4.1`), read from libavcodec's version. */
  release: string | null;
}

export interface MediaToolsInfo {
  ffmpeg: MediaToolInfo;
  ffprobe: MediaToolInfo;
  /** Encoder names ffmpeg reports (libx264, aac, eac3, …); empty when ffmpeg is missing. */
  encoders: string[];
}

/** The static builds installed from npm as optional dependencies of server/. */
const BUNDLED_PACKAGES: Record<MediaToolName, string> = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
};

/**
 * libavcodec version at each FFmpeg release (FFmpeg's RELEASE_NOTES / libavcodec/version.h): a git
 * snapshot says only `N-47683-g…`, its libavcodec 58.42 says it is 4.1 plus later commits.
 */
const RELEASES: readonly [major: number, minor: number, release: string][] = [
  [57, 48, '3.1'],
  [57, 64, '3.2'],
  [57, 89, '3.3'],
  [57, 107, '3.4'],
  [58, 18, '4.0'],
  [58, 35, '4.1'],
  [58, 54, '4.2'],
  [58, 91, '4.3'],
  [58, 134, '4.4'],
  [59, 18, '5.0'],
  [59, 37, '5.1'],
  [60, 3, '6.0'],
  [60, 31, '6.1'],
  [61, 3, '7.0'],
  [61, 19, '7.1'],
  [62, 11, '8.0'],
];

/** The newest FFmpeg release at or before this libavcodec version; null when older than 3.1. */
export function releaseOfLibavcodec(major: number, minor: number): string | null {
  let found: string | null = null;
  for (const [relMajor, relMinor, release] of RELEASES) {
    if (major > relMajor || (major === relMajor && minor >= relMinor)) found = release;
  }
  return found;
}

/** Parses `ffmpeg -version` output: the version word and the release from the libavcodec line. */
export function parseVersionOutput(stdout: string): { version: string; release: string | null } {
  const version = /version\s+(\S+)/.exec(stdout)?.[1] ?? 'unknown';
  const lib = /^libavcodec\s+(\d+)\.\s*(\d+)\./m.exec(stdout);
  const release = lib === null ? null : releaseOfLibavcodec(Number(lib[1]), Number(lib[2]));
  return { version, release };
}

export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` in the PATH's folders that is an executable file (what a shell would run). */
export function findOnPath(name: string, searchPath: string | undefined): string | null {
  for (const dir of (searchPath ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The static binary of the npm package, through the package's own `path` export; null when the
 * optional dependency is not installed (other platform, `--omit=optional`). The packages' install
 * scripts set the executable bit; `npm ci --ignore-scripts` skips them, so it is set here if needed.
 */
export function bundledToolPath(name: MediaToolName): string | null {
  let path: unknown;
  try {
    const loaded: unknown = createRequire(import.meta.url)(BUNDLED_PACKAGES[name]);
    path = typeof loaded === 'object' && loaded !== null && 'path' in loaded ? loaded.path : null;
  } catch {
    // The package throws (sometimes a bare string) when its platform binary is absent.
    return null;
  }
  if (typeof path !== 'string') return null;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    try {
      chmodSync(path, statSync(path).mode | 0o100);
    } catch {
      return null;
    }
  }
  return path;
}

/** Runs `<tool> -version`; null when it does not start or fails. */
async function versionOf(path: string): Promise<{ version: string; release: string | null } | null> {
  try {
    const { stdout } = await run(path, ['-hide_banner', '-version'], { timeout: 10_000, maxBuffer: 1 << 20 });
    return parseVersionOutput(stdout);
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

async function tryCandidate(path: string, source: MediaToolSource): Promise<MediaToolInfo | null> {
  const found = await versionOf(path);
  return found === null ? null : { available: true, path, source, ...found };
}

/**
 * Where each tool is looked for first when it is not configured. ffmpeg: the PATH, since the bundled
 * build is FFmpeg 4.1 and lacks encoders (AV1). ffprobe: the bundled static build, since it starts in
 * ~8 ms against ~75–100 ms for Debian's (215 shared libraries), which made a first scan of small files
 * run at ~29 files/s instead of ~150; `ffprobe-parity.test.ts` holds the capability records of the
 * whole fixture matrix identical between the two, and REELSHELF_FFPROBE picks another.
 */
const FIRST_CHOICE: Record<MediaToolName, 'path' | 'bundled'> = { ffmpeg: 'path', ffprobe: 'bundled' };

/**
 * Finds one tool: the configured value alone when set (a wrong setting is reported, not silently
 * replaced), else the PATH and the bundled static build in the tool's {@link FIRST_CHOICE} order;
 * the first candidate that answers wins.
 */
export async function locateMediaTool(
  name: MediaToolName,
  configured: string | null,
  searchPath: string | undefined,
): Promise<MediaToolInfo> {
  const missing = (path: string): MediaToolInfo => ({
    available: false,
    path,
    source: null,
    version: null,
    release: null,
  });
  if (configured !== null) {
    const path = configured.includes('/')
      ? resolve(configured)
      : (findOnPath(configured, searchPath) ?? configured);
    return (await tryCandidate(path, 'env')) ?? missing(configured);
  }
  const onPath = findOnPath(name, searchPath);
  const bundled = bundledToolPath(name);
  const candidates: [string | null, MediaToolSource][] = [
    [onPath, 'path'],
    [bundled, 'bundled'],
  ];
  if (FIRST_CHOICE[name] === 'bundled') candidates.reverse();
  for (const [path, source] of candidates) {
    const found = path === null ? null : await tryCandidate(path, source);
    if (found !== null) return found;
  }
  return missing(onPath ?? name);
}

export interface MediaToolRequest {
  /** REELSHELF_FFMPEG, or null to search. */
  ffmpeg: string | null;
  /** REELSHELF_FFPROBE, or null to search. */
  ffprobe: string | null;
  /** The PATH searched (process.env.PATH by default). */
  searchPath?: string | undefined;
}

/** Finds out once, at start, which media tools run and what ffmpeg can encode. */
export async function detectMediaTools(request: MediaToolRequest): Promise<MediaToolsInfo> {
  const searchPath = 'searchPath' in request ? request.searchPath : process.env.PATH;
  const [ffmpeg, ffprobe] = await Promise.all([
    locateMediaTool('ffmpeg', request.ffmpeg, searchPath),
    locateMediaTool('ffprobe', request.ffprobe, searchPath),
  ]);
  const encoders = ffmpeg.available ? await encodersOf(ffmpeg.path) : [];
  return { ffmpeg, ffprobe, encoders };
}
