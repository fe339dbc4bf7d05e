/**
 * The player matrix: real players open a URL (an HLS master playlist or a progressive MP4), play
 * from the start and seek, and say what they decoded. FFmpeg's demuxer (`ffmpeg -ss`), mpv (its
 * own seeks, driven by a Lua script, in one process) and VLC (`cvlc`, as an unprivileged user: it
 * refuses root; one process playing one playlist item per position). Each point reports the wall
 * time to its first frame, the first video and audio the player decoded after the seek (film
 * seconds), how much it played, and the error lines the player printed. A player that is not
 * installed throws (npm test installs them): a matrix that cannot run must fail, never skip.
 *
 * What "starts" means: a player decodes from the keyframe (or audio frame) at or before the target
 * and shows nothing before the target, so what the viewer gets starts at max(first decoded,
 * target) for video and for audio; those two must be within 100 ms, and the video must not start
 * more than 100 ms after the target (a seek that lands a GOP late, or no video at all).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Wall time (ms) from the request to the first frame (ffmpeg/VLC: the whole open and play). */
  firstFrameMs: number;
  /** First video and audio the player decoded after the seek, in film seconds; null = none. */
  video: number | null;
  audio: number | null;
  /** Seconds played (or decoded) from there. */
  decodedSeconds: number;
  errors: string[];
}

/** How far apart video and audio may start, and how late after the target the video may start. */
export const START_TOLERANCE_SECONDS = 0.1;

/** A player decodes from the keyframe before the target: no further back than the longest GOP. */
export const MAX_PREROLL_SECONDS = 6;

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
 * of the first video and the first audio stream and prints every frame's time (framecrc). Its
 * output starts at the target (ffmpeg drops what was decoded before it), so a frame's film time
 * is the target plus its output time.
 */
export async function ffmpegPoint(url: string, target: number, seconds: number): Promise<SeekPoint> {
  const started = Date.now();
  const seek = target > 0 ? ['-ss', String(target)] : [];
  const { stdout, stderr } = await run(
    fixtureFfmpeg,
    ['-hide_banner', '-v', 'error', ...seek, '-i', url, '-t', String(seconds)].concat([
      ...['-map', '0:v:0', '-map', '0:a:0', '-c:v', 'rawvideo', '-c:a', 'pcm_s16le'],
      ...['-f', 'framecrc', '-'],
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
  const at = (time: number | undefined) => (time === undefined ? null : target + time);
  return {
    target,
    firstFrameMs: elapsed,
    video: at(first[0]),
    audio: at(first[1]),
    decodedSeconds: first[0] === undefined ? 0 : (last[0] ?? 0) - first[0] + 0.04,
    errors: errorLines(stderr),
  };
}

/**
 * The Lua side of mpv's points: after each (re)start waits `wait` s, then seeks to the next
 * position. Only the playback-restart that follows the start or one of its own seeks is taken
 * (mpv also restarts when the audio joins late): a stray one used to end a point early and skip
 * the next. Markers go to the log between the frames the filters print.
 */
const MPV_SCRIPT = `
local opts = { seq = "", wait = 1.0 }
require("mp.options").read_options(opts, "matrix")
local seq = {}
for t in string.gmatch(opts.seq, "[^;]+") do table.insert(seq, tonumber(t)) end
local step, asked, waiting = 1, mp.get_time(), true
local function go()
  step = step + 1
  if step > #seq then mp.command("quit") return end
  asked = mp.get_time()
  waiting = true
  mp.msg.info("MATRIX-SEEK " .. step)
  mp.commandv("seek", tostring(seq[step]), "absolute+exact")
end
mp.register_event("playback-restart", function()
  if not waiting then return end
  waiting = false
  local ms = (mp.get_time() - asked) * 1000
  mp.msg.info(string.format("MATRIX-RESTART %d %.0f %s", step, ms, tostring(mp.get_property_number("time-pos"))))
  mp.add_timeout(opts.wait, function()
    mp.msg.info(string.format("MATRIX-PLAYED %d %s", step, tostring(mp.get_property_number("time-pos"))))
    go()
  end)
end)
`;

/**
 * mpv plays the URL and seeks through `targets` itself (one process, as a user would). Its filters
 * (`showinfo`, `ashowinfo`) log every decoded frame's time; the frames after each seek is carried
 * out (`hr-seek, skipping to`) say where video and audio start. The log file's level letters tell
 * errors and warnings from mpv's chatter.
 */
export async function mpvPoints(url: string, targets: number[], seconds = 1): Promise<SeekPoint[]> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-mpv-'));
  try {
    const script = join(dir, 'matrix.lua');
    const logFile = join(dir, 'mpv.log');
    writeFileSync(script, MPV_SCRIPT);
    const first = targets[0] ?? 0;
    await run(
      'mpv',
      [
        ...['--no-config', '--vo=null', '--ao=null', '--really-quiet', `--log-file=${logFile}`],
        // A point near the end must still be reported: paused at EOF instead of quitting.
        '--keep-open=yes',
        '--vf=lavfi=[showinfo]',
        '--af=lavfi=[ashowinfo]',
        `--script=${script}`,
        `--script-opts=matrix-seq=${targets.join(';')},matrix-wait=${seconds}`,
        ...(first > 0 ? [`--start=${first}`] : []),
        url,
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stderr?: string; message: string }) => {
      throw new Error(`mpv failed: ${err.message}\n${err.stderr ?? ''}`);
    });
    const log = readFileSync(logFile, 'utf8');
    return readMpvLog(log, targets);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The points of one mpv run from its log file (unit/player-matrix.test.ts holds the parser). */
export function readMpvLog(log: string, targets: number[]): SeekPoint[] {
  const points: SeekPoint[] = targets.map((target) => ({
    target,
    firstFrameMs: NaN,
    video: null,
    audio: null,
    decodedSeconds: 0,
    errors: [],
  }));
  const restartAt: number[] = [];
  // Frames belong to the point whose seek was carried out last; none between a seek's request
  // and its execution (frames still coming from before it).
  let current: number | null = targets[0] !== undefined && targets[0] > 0 ? null : 0;
  let pending: number | null = targets[0] !== undefined && targets[0] > 0 ? 0 : null;
  for (const line of log.split('\n')) {
    const level = /^\[\s*[\d.]+\]\[(\w)\]/.exec(line)?.[1];
    let match: RegExpExecArray | null;
    if ((match = /MATRIX-SEEK (\d+)/.exec(line)) !== null) {
      pending = Number(match[1]) - 1;
      current = null;
    } else if (/\[cplayer\] hr-seek, skipping to/.test(line) && pending !== null) {
      current = pending;
      pending = null;
    } else if ((match = /MATRIX-RESTART (\d+) (\S+) (\S+)/.exec(line)) !== null) {
      const point = points[Number(match[1]) - 1];
      if (point !== undefined) {
        point.firstFrameMs = Number(match[2]);
        restartAt[Number(match[1]) - 1] = Number(match[3]);
      }
    } else if ((match = /MATRIX-PLAYED (\d+) (\S+)/.exec(line)) !== null) {
      const index = Number(match[1]) - 1;
      const point = points[index];
      const from = restartAt[index];
      if (point !== undefined && from !== undefined && Number.isFinite(Number(match[2]))) {
        point.decodedSeconds = Number(match[2]) - from;
      }
    } else if (
      (match = /Parsed_(a?)showinfo_\d+: n:\s*\d+ pts:\s*-?\d+ pts_time:(-?[\d.]+)/.exec(line)) !== null
    ) {
      const point = current === null ? undefined : points[current];
      if (point === undefined) continue;
      const time = Number(match[2]);
      if (match[1] === 'a') point.audio ??= time;
      else point.video ??= time;
    } else if (level === 'e' || level === 'f' || (level === 'w' && errorLines(line).length > 0)) {
      points[current ?? pending ?? 0]?.errors.push(line.replace(/^\[\s*[\d.]+\]/, ''));
    }
  }
  const missing = points.filter((point) => !Number.isFinite(point.firstFrameMs));
  if (missing.length > 0) {
    throw new Error(
      `mpv reported ${points.length - missing.length} of ${targets.length} points:\n${log.slice(-3000)}`,
    );
  }
  return points;
}

/** VLC's own noise when it runs headless as nobody (no D-Bus, no config dir, no interface). */
const VLC_NOISE = [/dbus/i, /interface/i, /vlcrc/i, /config file/i, /globalhotkeys/i];

/** The decoded video frames of a URL: the checksum of each picture → its time (s from the start). */
export async function frameTimes(url: string): Promise<Map<string, number>> {
  const { stderr } = await run(
    fixtureFfmpeg,
    // The first audio is read too: time 0 is then the earliest of video and audio, as for ffmpeg -ss.
    ['-hide_banner', '-i', url, '-map', '0:v:0', '-map', '0:a:0?', '-vf', 'showinfo', '-f', 'null', '-'],
    { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
  );
  const times = new Map<string, number>();
  for (const match of stderr.matchAll(/pts_time:(-?[\d.]+)\s.*?checksum:([0-9A-F]+)/g)) {
    if (!times.has(match[2] ?? '')) times.set(match[2] ?? '', Number(match[1]));
  }
  return times;
}

/**
 * Where VLC's dump of one point starts, in film seconds: its first picture is looked up among the
 * film's (`frames`) by checksum, which places the dump's clock (VLC's TS muxer rebases every
 * stream by one offset: --sout-ts-dts-delay after the first packet); the audio VLC plays (the
 * English track, else the first) is placed on the same clock.
 */
async function dumpStart(
  dump: string,
  frames: Map<string, number>,
): Promise<{ video: number | null; audio: number | null; seconds: number }> {
  const none = { video: null, audio: null, seconds: 0 };
  const decoded = await run(
    fixtureFfmpeg,
    [
      '-hide_banner',
      '-copyts',
      '-i',
      dump,
      '-map',
      '0:v:0',
      '-frames:v',
      '1',
      '-vf',
      'showinfo',
      '-f',
      'null',
      '-',
    ],
    { timeout: 60_000 },
  ).catch(() => null);
  const picture = /pts_time:(-?[\d.]+)\s.*?checksum:([0-9A-F]+)/.exec(decoded?.stderr ?? '');
  if (picture === null) return none;
  const film = frames.get(picture[2] ?? '');
  if (film === undefined) return none;
  const offset = film - Number(picture[1]);
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-show_entries', 'stream=index,codec_type:stream_tags=language', '-of', 'json', dump],
  ]);
  const streams = (
    JSON.parse(stdout) as { streams: { index: number; codec_type: string; tags?: { language?: string } }[] }
  ).streams;
  const audios = streams.filter((stream) => stream.codec_type === 'audio');
  const played = audios.find((stream) => stream.tags?.language === 'eng') ?? audios[0];
  const firstOf = async (index: number) => {
    const packets = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', String(index), '-show_entries', 'packet=pts_time'],
      ...['-of', 'csv=p=0', dump],
    ]);
    const times = packets.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => Number(line.split(',')[0]))
      .filter((time) => Number.isFinite(time));
    return times.length === 0 ? null : { first: Math.min(...times), last: Math.max(...times) };
  };
  const video = streams.find((stream) => stream.codec_type === 'video');
  const v = video === undefined ? null : await firstOf(video.index);
  const a = played === undefined ? null : await firstOf(played.index);
  return {
    video: v === null ? null : v.first + offset,
    audio: a === null ? null : a.first + offset,
    seconds: v === null ? 0 : v.last - v.first,
  };
}

/**
 * VLC plays the URL once per target (a process each: `:start-time`, its HLS module's or MP4
 * demuxer's seek; `:run-time`), as the `nobody` user with dummy outputs: its decoders' errors are
 * the point's. Then the same items again, in one process, written to TS dumps (`:sout`, no
 * decoding: a `#duplicate` to the display made VLC's sout path log `decode_slice_header error`
 * that plain playback does not, and its TS muxer cannot hold the WebVTT stream, hence
 * --no-sout-spu), whose first picture and audio say where each started.
 */
export async function vlcPoints(url: string, targets: number[], seconds: number): Promise<SeekPoint[]> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-vlc-'));
  try {
    execFileSync('chmod', ['0777', dir]);
    const vlc = (args: string[]) =>
      run(
        'setpriv',
        [
          ...['--reuid=65534', '--regid=65534', '--clear-groups', 'cvlc', '-I', 'dummy'],
          ...['--no-video-title-show', '--play-and-exit', '--vout', 'dummy', '--aout', 'dummy'],
          // Decode audio (FFmpeg's decoders first): with the dummy output, Debian's VLC (no liba52)
          // hands AC-3 to its S/PDIF pass-through and logs 'too low audio sample frequency (0)' /
          // 'failed to create audio output', for any AC-3 file (the source MKV alike).
          '--codec=avcodec,all',
          ...args,
        ],
        { timeout: 120_000, env: { ...process.env, HOME: dir } },
      );
    // One process per point: a next playlist item waits for the last one's audio to drain (~1 s).
    const played: { stderr: string; ms: number }[] = [];
    for (const target of targets) {
      const started = Date.now();
      const { stderr } = await vlc([url, `:start-time=${target}`, `:run-time=${seconds}`]);
      played.push({ stderr, ms: Date.now() - started });
    }
    const dumps = targets.map((_, index) => join(dir, `point-${index}.ts`));
    // A second longer than played: a dump of a local-speed HLS runs ahead, one of an MP4 in real time.
    const dumped = await vlc([
      '--no-sout-spu',
      ...targets.flatMap((target, index) => [
        url,
        `:start-time=${target}`,
        `:run-time=${seconds + 1}`,
        `:sout=#std{access=file,mux=ts,dst=${dumps[index]}}`,
      ]),
    ]);
    const frames = await frameTimes(url);
    const points: SeekPoint[] = [];
    for (const [index, target] of targets.entries()) {
      const start = await dumpStart(dumps[index] ?? '', frames);
      points.push({
        target,
        firstFrameMs: played[index]?.ms ?? NaN,
        video: start.video,
        audio: start.audio,
        decodedSeconds: start.seconds,
        // The dumps' demuxing (every item of one process) is reported with the first point.
        errors: errorLines(`${played[index]?.stderr ?? ''}\n${index === 0 ? dumped.stderr : ''}`, VLC_NOISE),
      });
    }
    return points;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One VLC point (a process of its own). */
export async function vlcPoint(url: string, target: number, seconds: number): Promise<SeekPoint> {
  const [point] = await vlcPoints(url, [target], seconds);
  if (point === undefined) throw new Error('VLC reported no point');
  return point;
}

/**
 * Every point of one player on one URL: the matrix's positions, then `extra` ones (mpv seeks to
 * each in one process; ffmpeg and VLC open the URL at each distinct one).
 */
export async function playMatrix(
  player: PlayerName,
  url: string,
  duration: number,
  seconds = 2,
  extra: number[] = [],
): Promise<SeekPoint[]> {
  const targets = [...matrixTargets(duration), ...extra];
  if (player === 'mpv') return mpvPoints(url, targets, seconds);
  // ffmpeg and VLC open the URL anew at each point: "back to the start" is the start again.
  const opens = targets.filter((target, index) => targets.indexOf(target) === index);
  if (player === 'vlc') return vlcPoints(url, opens, seconds);
  const points: SeekPoint[] = [];
  for (const target of opens) points.push(await ffmpegPoint(url, target, seconds));
  return points;
}

/**
 * What is wrong with a player's points (empty = it played and sought as it should): an error
 * line, no video or audio, video and audio starting more than 100 ms apart as the viewer gets them
 * (max(first decoded, target) each), the video starting more than 100 ms after the target or
 * decoded from further back than a keyframe interval could explain (`maxPrerollSeconds`: the
 * player did not seek), or less than `minSeconds` played.
 */
export function matrixProblems(
  player: PlayerName,
  points: SeekPoint[],
  minSeconds: number,
  maxPrerollSeconds = MAX_PREROLL_SECONDS,
): string[] {
  const problems: string[] = [];
  for (const point of points) {
    const at = `${player} @${point.target}s`;
    if (point.errors.length > 0) problems.push(`${at}: ${point.errors.slice(0, 3).join(' | ')}`);
    if (point.video === null) problems.push(`${at}: no video decoded`);
    if (point.audio === null) problems.push(`${at}: no audio decoded`);
    if (point.video !== null && point.audio !== null) {
      const video = Math.max(point.video, point.target);
      const audio = Math.max(point.audio, point.target);
      if (Math.abs(video - audio) > START_TOLERANCE_SECONDS) {
        problems.push(`${at}: video starts at ${video.toFixed(3)}, audio at ${audio.toFixed(3)}`);
      }
    }
    if (point.video !== null && point.video > point.target + START_TOLERANCE_SECONDS) {
      problems.push(`${at}: video starts at ${point.video.toFixed(3)}, after the target`);
    }
    if (point.video !== null && point.video < point.target - maxPrerollSeconds) {
      problems.push(`${at}: video decoded from ${point.video.toFixed(3)}: the seek did not happen`);
    }
    if (point.decodedSeconds < minSeconds) {
      problems.push(`${at}: ${point.decodedSeconds.toFixed(2)} s decoded, wanted ${minSeconds}`);
    }
  }
  return problems;
}
