/**
 * The player matrix: real players open a URL (an HLS master playlist or a progressive MP4), play
 * from the start and seek, and say what they decoded. FFmpeg's demuxer (`ffmpeg -ss`), mpv (its
 * own seeks, driven by a Lua script) and VLC (`cvlc`, as an unprivileged user: it refuses root).
 * Each point reports the wall time to its first frame, the first decoded times of video and audio,
 * and the error lines the player printed. A player that is not installed throws (npm test installs
 * them): a matrix that cannot run must fail, never skip.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath } from '../../src/adapters/media-tools.ts';
import { fixtureFfmpeg } from './media.ts';

const run = promisify(execFile);

export type PlayerName = 'ffmpeg' | 'mpv' | 'vlc';

export interface SeekPoint {
  /** Where the player was asked to start (s from the film's start). */
  target: number;
  /** Wall time (ms) from the request to the first decoded frame (ffmpeg/VLC: the whole open). */
  firstFrameMs: number;
  /** First decoded video and audio time after the seek, on the player's clock (s); null = none. */
  video: number | null;
  audio: number | null;
  /** Seconds of video decoded from there. */
  decodedSeconds: number;
  errors: string[];
}

/** The positions of the matrix: the start, 10 %, 50 %, 90 % and back to the start. */
export function matrixTargets(duration: number): number[] {
  const at = (share: number) => Math.floor(duration * share * 10) / 10;
  return [0, at(0.1), at(0.5), at(0.9), 0];
}

/** Throws when a player of the matrix is missing (npm test installs mpv and vlc-bin). */
export function requirePlayers(): void {
  const missing = ['mpv', 'cvlc', 'setpriv'].filter((tool) => findOnPath(tool, process.env.PATH) === null);
  if (missing.length > 0) {
    throw new Error(
      `the player matrix needs ${missing.join(', ')}: apt-get install mpv vlc-bin vlc-plugin-base (npm test does)`,
    );
  }
}

/** Lines a player printed that say something went wrong while demuxing or decoding. */
function errorLines(text: string, ignore: RegExp[] = []): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /error|invalid|corrupt|missing picture|concealing|non-existing/i.test(line))
    .filter((line) => !ignore.some((pattern) => pattern.test(line)));
}

/**
 * ffmpeg opens the URL at `target` (`-ss` before `-i`: the demuxer's own seek), decodes `seconds`
 * of the first video and audio stream and prints every frame's time (framecrc).
 */
export async function ffmpegPoint(url: string, target: number, seconds: number): Promise<SeekPoint> {
  const started = Date.now();
  const seek = target > 0 ? ['-ss', String(target)] : [];
  const { stdout, stderr } = await run(
    fixtureFfmpeg,
    ['-hide_banner', '-v', 'error', ...seek, '-i', url, '-t', String(seconds)].concat([
      '-map',
      '0:v:0',
      '-map',
      '0:a:0',
      '-c:v',
      'rawvideo',
      '-c:a',
      'pcm_s16le',
      '-f',
      'framecrc',
      '-',
    ]),
    { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
  );
  const elapsed = Date.now() - started;
  const base: Record<number, number> = {};
  for (const match of stdout.matchAll(/^#tb (\d+): (\d+)\/(\d+)/gm)) {
    base[Number(match[1])] = Number(match[2]) / Number(match[3]);
  }
  const first: Record<number, number> = {};
  const last: Record<number, number> = {};
  for (const line of stdout.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [stream, , pts] = line.split(',').map((field) => Number(field.trim()));
    if (stream === undefined || pts === undefined || !Number.isFinite(pts)) continue;
    const time = pts * (base[stream] ?? 1);
    first[stream] ??= time;
    last[stream] = time;
  }
  return {
    target,
    firstFrameMs: elapsed,
    video: first[0] ?? null,
    audio: first[1] ?? null,
    decodedSeconds: first[0] === undefined ? 0 : (last[0] ?? 0) - first[0] + 0.04,
    errors: errorLines(stderr),
  };
}

const MPV_SCRIPT = `
local opts = { seq = "", wait = 1.0 }
require("mp.options").read_options(opts, "matrix")
local seq = {}
for t in string.gmatch(opts.seq, "[^;]+") do table.insert(seq, tonumber(t)) end
local step, asked, measuring = 1, mp.get_time(), false
local function go()
  step = step + 1
  if step > #seq then mp.command("quit") return end
  asked = mp.get_time()
  measuring = true
  mp.commandv("seek", tostring(seq[step]), "absolute+exact")
end
mp.register_event("playback-restart", function()
  if not measuring and step > 1 then return end
  measuring = false
  local ms = (mp.get_time() - asked) * 1000
  local from = mp.get_property_number("time-pos")
  mp.add_timeout(opts.wait, function()
    print(string.format("MATRIX %s %.0f %s %s %s %s", tostring(seq[step]), ms, tostring(from),
      tostring(mp.get_property_number("time-pos")), tostring(mp.get_property_number("audio-pts")),
      tostring(mp.get_property_number("avsync"))))
    go()
  end)
end)
`;

/**
 * mpv plays the URL and seeks through `targets` itself (one process, as a user would): for each
 * point the wall time from the seek to its first frame, the video position, and the audio position
 * 1 s later against the video's (mpv's `avsync`).
 */
export async function mpvPoints(url: string, targets: number[], seconds = 1): Promise<SeekPoint[]> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-mpv-'));
  try {
    const script = join(dir, 'matrix.lua');
    writeFileSync(script, MPV_SCRIPT);
    const { stdout, stderr } = await run(
      'mpv',
      [
        '--no-config',
        '--vo=null',
        '--ao=null',
        '--quiet',
        // A point near the end must still be reported: paused at EOF instead of quitting.
        '--keep-open=yes',
        '--term-status-msg=',
        '--msg-level=all=warn,matrix=info',
        `--script=${script}`,
        `--script-opts=matrix-seq=${targets.join(';')},matrix-wait=${seconds}`,
        `--start=${targets[0] ?? 0}`,
        url,
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`mpv failed: ${err.message}\n${err.stderr ?? ''}`);
    });
    const text = `${stdout}\n${stderr}`;
    const points: SeekPoint[] = [];
    for (const match of text.matchAll(/MATRIX (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)/g)) {
      const [, target, ms, from, now, audio] = match;
      const video = Number(now);
      points.push({
        target: Number(target),
        firstFrameMs: Number(ms),
        video: Number.isFinite(Number(from)) ? Number(from) : null,
        // Read at the same instant 1 s later: the audio's lead over the video, carried back to the start.
        audio: Number.isFinite(Number(audio)) ? Number(from) + (Number(audio) - video) : null,
        decodedSeconds: Number.isFinite(video) && Number.isFinite(Number(from)) ? video - Number(from) : 0,
        errors: [],
      });
    }
    const errors = errorLines(text.replace(/^.*MATRIX.*$/gm, ''));
    if (points.length > 0) points[0] = { ...points[0], errors } as SeekPoint;
    if (points.length !== targets.length) {
      throw new Error(`mpv reported ${points.length} of ${targets.length} points:\n${text.slice(-3000)}`);
    }
    return points;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** VLC's own noise when it runs headless as nobody (no D-Bus, no config dir, no interface). */
const VLC_NOISE = [/dbus/i, /interface/i, /vlcrc/i, /config file/i, /globalhotkeys/i];

/**
 * VLC opens the URL at `target` (`--start-time`: its HLS module's seek) as the `nobody` user with
 * dummy outputs and plays `seconds`; its demuxed streams are also written (`#duplicate`) to a
 * TS file whose first video and audio times say where each started.
 */
export async function vlcPoint(url: string, target: number, seconds: number): Promise<SeekPoint> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-vlc-'));
  try {
    execFileSync('chmod', ['0777', dir]);
    const out = join(dir, 'out.ts');
    const started = Date.now();
    const { stderr } = await run(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        'cvlc',
        '-I',
        'dummy',
        '--no-video-title-show',
        '--play-and-exit',
        `--start-time=${target}`,
        `--run-time=${seconds}`,
        '--sout',
        `#duplicate{dst=display,dst=std{access=file,mux=ts,dst=${out}}}`,
        '--vout',
        'dummy',
        '--aout',
        'dummy',
        url,
      ],
      { timeout: 120_000, env: { ...process.env, HOME: dir } },
    );
    const elapsed = Date.now() - started;
    const first = async (kind: 'v' | 'a') => {
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-select_streams',
        `${kind}:0`,
        '-read_intervals',
        '%+#5',
        '-show_entries',
        'packet=pts_time',
        '-of',
        'csv=p=0',
        out,
      ]).catch(() => ({ stdout: '' }));
      const times = stdout
        .split('\n')
        .map((line) => Number(line.split(',')[0]))
        .filter((time) => Number.isFinite(time) && time > 0);
      return times.length === 0 ? null : Math.min(...times);
    };
    const video = await first('v');
    const audio = await first('a');
    const { stdout: duration } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      out,
    ]).catch(() => ({ stdout: '0' }));
    return {
      target,
      firstFrameMs: elapsed,
      video,
      audio,
      decodedSeconds: Number(duration.trim()) || 0,
      errors: errorLines(stderr, VLC_NOISE),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every point of one player on one URL: the matrix's positions, then `extra` ones. */
export async function playMatrix(
  player: PlayerName,
  url: string,
  duration: number,
  seconds = 2,
  extra: number[] = [],
): Promise<SeekPoint[]> {
  const targets = [...matrixTargets(duration), ...extra];
  if (player === 'mpv') return mpvPoints(url, targets, seconds);
  const points: SeekPoint[] = [];
  for (const target of targets) {
    points.push(
      player === 'ffmpeg' ? await ffmpegPoint(url, target, seconds) : await vlcPoint(url, target, seconds),
    );
  }
  return points;
}

/** What is wrong with a player's points (empty = it played and sought as it should). */
export function matrixProblems(player: PlayerName, points: SeekPoint[], minSeconds: number): string[] {
  const problems: string[] = [];
  for (const point of points) {
    const at = `${player} @${point.target}s`;
    if (point.errors.length > 0) problems.push(`${at}: ${point.errors.slice(0, 3).join(' | ')}`);
    if (point.video === null) problems.push(`${at}: no video decoded`);
    if (point.audio === null) problems.push(`${at}: no audio decoded`);
    if (point.video !== null && point.audio !== null && Math.abs(point.video - point.audio) > 0.1) {
      problems.push(`${at}: video starts at ${point.video.toFixed(3)}, audio at ${point.audio.toFixed(3)}`);
    }
    if (point.decodedSeconds < minSeconds) {
      problems.push(`${at}: ${point.decodedSeconds.toFixed(2)} s decoded, wanted ${minSeconds}`);
    }
  }
  return problems;
}
