/**
 * The player matrix of `npm run bench playback` (issue 21): FFmpeg's demuxer, mpv and VLC open a URL
 * (an HLS master playlist or a progressive file), play from 0, seek to 10 %, 50 %, 90 % and back to 0,
 * and say for each point how long the first frame took, where it landed, how far apart audio and
 * video started, and which decode errors they printed.
 *
 * Why not server/test/helpers/player-matrix.ts (the `npm test` matrix): its points time the whole
 * player run (the open and the decoded seconds together), read mpv's position 1 s after its restart
 * and VLC's A/V start from a `#duplicate` dump whose display branch makes libavcodec print
 * `decode_slice_header error` of its own. A bench that reports time to first frame measures each
 * player where it says it has shown it:
 * - ffmpeg: the first video line of `-f framecrc` on its stdout (flushed per packet);
 * - mpv: its own log (`--log-file`, level v), one process seeking as a user does: the script's seek,
 *   `playback restart complete @ <pts>` (the first frame shown after the seek, mpv's hr-seek having
 *   decoded up to the target) and `delaying audio start …, diff=` (audio that starts after the
 *   picture; audio that starts before it is cut to it);
 * - VLC: `Stream buffering done` of its input (`-vv`, stamped as it arrives), a second run writing
 *   the demuxed streams (`#std{mux=ts}`) for where video and audio start.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Player = 'ffmpeg' | 'mpv' | 'vlc';
export const PLAYERS: readonly Player[] = ['ffmpeg', 'mpv', 'vlc'];

/** One start or seek of a player. */
export interface PointFigures {
  /** Where the player was asked to start (s of the film). */
  target: number;
  /** Wall time from the request (the spawn for a start) to the first frame, s; null = never. */
  firstFrameS: number | null;
  /** The film time of that first frame (s), when the player tells it. */
  landedS: number | null;
  /** How much later audio started than video (ms; negative: earlier), null when unknown. */
  avStartMs: number | null;
  /** Lines the player printed that say something went wrong while demuxing or decoding. */
  errors: string[];
}

/** The matrix's positions: 0, 10 %, 50 %, 90 % and 0 again (tenths of a second). */
export function matrixTargets(durationS: number): number[] {
  const at = (share: number) => Math.floor(durationS * share * 10) / 10;
  return [0, at(0.1), at(0.5), at(0.9), 0];
}

/** Processes of this module, killed if the bench goes away first. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) killGroup(child);
});
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

interface Spawned {
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Runs a player in its own process group (killed after `limitS`), handing each stdout/stderr line to
 * `onLine` with its arrival time (performance.now(), ms).
 */
function spawnPlayer(
  command: string,
  args: string[],
  limitS: number,
  onLine: (line: string, at: number) => void = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Spawned> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
    children.add(child);
    const out = { stdout: '', stderr: '' };
    const reader = (key: 'stdout' | 'stderr') => {
      let partial = '';
      return (chunk: Buffer) => {
        const at = performance.now();
        const text = partial + chunk.toString();
        const lines = text.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) onLine(line, at);
        // Kept bounded: VLC at -vv writes a lot.
        out[key] = (out[key] + chunk.toString()).slice(-2_000_000);
      };
    };
    child.stdout.on('data', reader('stdout'));
    child.stderr.on('data', reader('stderr'));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, limitS * 1000);
    const done = (code: number | string) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code: timedOut ? `killed after ${limitS} s` : code, ...out });
    };
    child.once('error', (err) => done(`spawn error: ${err.message}`));
    child.once('close', (code, signal) => done(code ?? `signal ${signal}`));
  });
}

const ERROR_WORDS = /error|invalid|corrupt|missing picture|concealing|non-existing|discontinu|deadlock/i;

// ---------------------------------------------------------------------------------------------------
// ffmpeg

/**
 * `ffmpeg [-ss target] -i url -t seconds` decoding the first video and audio stream to framecrc:
 * the first video line's arrival is the first frame; the first audio and video times after the seek
 * give the A/V start. From 0 there is no `-ss` (on HLS, `-ss 0` decodes nothing).
 */
export async function ffmpegPoint(url: string, target: number, seconds: number): Promise<PointFigures> {
  const started = performance.now();
  let firstVideoAt: number | null = null;
  const seek = target > 0 ? ['-ss', String(target)] : [];
  const result = await spawnPlayer(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostdin', '-v', 'error', ...seek, '-i', url, '-t', String(seconds)],
      ...['-map', '0:v:0', '-map', '0:a:0', '-c:v', 'rawvideo', '-c:a', 'pcm_s16le'],
      // Every frame at its own time (not rounded to the frame rate's grid), flushed as it comes.
      ...['-fps_mode', 'passthrough', '-enc_time_base', '-1'],
      ...['-f', 'framecrc', '-flush_packets', '1', '-'],
    ],
    120 + seconds,
    (line, at) => {
      if (firstVideoAt === null && /^\s*0,/.test(line)) firstVideoAt = at;
    },
  );
  const timeBase: Record<number, number> = {};
  for (const m of result.stdout.matchAll(/^#tb (\d+): (\d+)\/(\d+)/gm)) {
    timeBase[Number(m[1])] = Number(m[2]) / Number(m[3]);
  }
  const first: Record<number, number> = {};
  for (const line of result.stdout.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [stream, , pts] = line.split(',').map((f) => Number(f.trim()));
    if (stream === undefined || pts === undefined || !Number.isFinite(pts)) continue;
    first[stream] ??= pts * (timeBase[stream] ?? 1);
  }
  const errors = result.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (result.code !== 0) errors.push(`ffmpeg exit ${result.code}`);
  const video = first[0];
  const audio = first[1];
  return {
    target,
    firstFrameS: firstVideoAt === null ? null : (firstVideoAt - started) / 1000,
    // Output times start at the seek point (ffmpeg shifts them by -ss and the input's start).
    landedS: video === undefined ? null : target + video,
    avStartMs: video === undefined || audio === undefined ? null : (audio - video) * 1000,
    errors,
  };
}

// ---------------------------------------------------------------------------------------------------
// mpv

/**
 * Drives one mpv through the points: waits for each restart, plays `hold` seconds, seeks to the next
 * (absolute+exact: mpv decodes up to the target and shows that frame first). Marks go to the log.
 */
const MPV_SCRIPT = `
local opts = { seq = "", hold = 2 }
require("mp.options").read_options(opts, "matrix")
local seq = {}
for t in string.gmatch(opts.seq, "[^;]+") do table.insert(seq, tonumber(t)) end
local step = 1
local waiting = true
mp.msg.info("MARK request 1 " .. tostring(seq[1]))
mp.register_event("playback-restart", function()
  if not waiting then return end
  waiting = false
  mp.msg.info(string.format("MARK restart %d %s %s", step, tostring(mp.get_property_number("time-pos")),
    tostring(mp.get_property_number("audio-pts"))))
  mp.add_timeout(opts.hold, function()
    step = step + 1
    if step > #seq then mp.command("quit") return end
    waiting = true
    mp.msg.info("MARK request " .. step .. " " .. tostring(seq[step]))
    mp.commandv("seek", tostring(seq[step]), "absolute+exact")
  end)
end)
mp.register_event("end-file", function() mp.msg.info("MARK end-file") end)
`;

/** A line of mpv's --log-file: `[  12.345][v][cplayer] text`. */
const MPV_LOG_LINE = /^\[\s*([\d.]+)\]\[(\w)\]\[([^\]]+)\] (.*)$/;

/** mpv warnings that are not about the film's bytes or their decoding. */
const MPV_NOISE = [/^ao\b/, /^vo\b/, /^cplayer$/];

export async function mpvPoints(url: string, targets: number[], holdS: number): Promise<PointFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-mpv-'));
  try {
    const script = join(dir, 'matrix.lua');
    const log = join(dir, 'mpv.log');
    writeFileSync(script, MPV_SCRIPT);
    const result = await spawnPlayer(
      'mpv',
      [
        ...['--no-config', '--vo=null', '--ao=null', '--no-terminal', '--idle=no'],
        // A point near the end is still reported: paused at the end instead of quitting.
        '--keep-open=yes',
        `--log-file=${log}`,
        '--msg-level=all=v',
        `--script=${script}`,
        `--script-opts=matrix-seq=${targets.join(';')},matrix-hold=${holdS}`,
        url,
      ],
      120 + targets.length * (60 + holdS),
    );
    const points: PointFigures[] = targets.map((target) => ({
      target,
      firstFrameS: null,
      landedS: null,
      avStartMs: null,
      errors: [],
    }));
    let index = 0;
    let requestedAt = 0;
    for (const raw of readFileSync(log, 'utf8').split('\n')) {
      const m = MPV_LOG_LINE.exec(raw);
      if (m === null) continue;
      const [, time = '0', level = '', module = '', text = ''] = m;
      const at = Number(time);
      const point = points[index];
      const mark = /^MARK (\w+)(?: (\d+))?(?: (\S+))?(?: (\S+))?/.exec(text);
      if (mark !== null && module === 'matrix') {
        if (mark[1] === 'request') {
          index = Number(mark[2]) - 1;
          // The first point's request is mpv's own start (its clock starts with the process).
          requestedAt = index === 0 ? 0 : at;
        } else if (mark[1] === 'restart' && point !== undefined) {
          point.firstFrameS = at - requestedAt;
          point.avStartMs ??= 0;
        }
        continue;
      }
      if (point === undefined) continue;
      const restart = /^playback restart complete @ ([-\d.]+), audio=(\w+), video=(\w+)/.exec(text);
      if (restart !== null) {
        const landed = Number(restart[1]);
        // NOPTS (-2^63): nothing to show, e.g. a demuxer seek that failed and went to the end.
        point.landedS ??= Math.abs(landed) < 1e9 ? landed : null;
        if (restart[3]?.startsWith('eof')) point.errors.push(`restart with no picture: ${text}`);
        else if (restart[2]?.startsWith('eof')) point.errors.push(`restart with no sound: ${text}`);
      }
      // A demuxer seek that failed (lavf says so at level v only).
      if (module === 'lavf' && text.startsWith('Seek failed')) point.errors.push(`[lavf] ${text}`);
      // Audio that starts after the picture: mpv holds it back by `diff` (s).
      const delay = /^delaying audio start ([-\d.]+) vs\. ([-\d.]+), diff=([-\d.]+)/.exec(text);
      if (delay !== null) point.avStartMs = Math.max(point.avStartMs ?? 0, Number(delay[3]) * 1000);
      const serious = level === 'e' || level === 'f';
      const suspicious = level === 'w' && !MPV_NOISE.some((p) => p.test(module)) && ERROR_WORDS.test(text);
      if (serious || suspicious) point.errors.push(`[${module}] ${text}`);
    }
    if (result.code !== 0) (points[index] ?? points[0])?.errors.push(`mpv exit ${result.code}`);
    return points;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// VLC

/** VLC's own noise when it runs headless as nobody (no D-Bus, no config dir, no interface). */
const VLC_NOISE = [/dbus/i, /interface/i, /vlcrc/i, /config file/i, /globalhotkeys/i, /Reinit context/];
/** A VLC message line at -vv: `[0000563a…] ts demux warning: text`; libav's own: `[h264 @ 0x…] text`. */
const VLC_LINE = /^\[[0-9a-f]+\] (.+?) (error|warning|debug|info): (.*)$/;

/** cvlc as `nobody` (VLC refuses root), dummy interface and outputs, from `target` for `seconds`. */
function cvlc(dir: string, target: number, seconds: number, extra: string[], url: string): string[] {
  return [
    ...['--reuid=65534', '--regid=65534', '--clear-groups', 'cvlc', '-vv', '-I', 'dummy'],
    ...['--no-video-title-show', '--play-and-exit', '--no-stats', `--start-time=${target}`],
    ...[`--run-time=${seconds}`, '--vout', 'dummy', '--aout', 'dummy', ...extra, url],
  ];
}

async function firstPacket(file: string, kind: 'v' | 'a'): Promise<number | null> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', `${kind}:0`, '-read_intervals', '%+#20'],
    ...['-show_entries', 'packet=pts_time', '-of', 'csv=p=0', file],
  ]).catch(() => ({ stdout: '' }));
  const times = stdout
    .split('\n')
    .map((l) => Number(l.split(',')[0]))
    .filter((t) => Number.isFinite(t) && t > 0);
  return times.length === 0 ? null : Math.min(...times);
}

/**
 * VLC opens the URL at `target` (`--start-time`: its own seek, the HLS module's for a playlist) and
 * plays `seconds`: the first frame is its input's `Stream buffering done`. A second run at the same
 * point writes what its demuxer delivered (`#std{mux=ts}`, no decoding, subtitles left out) for where
 * video and audio start.
 */
export async function vlcPoint(url: string, target: number, seconds: number): Promise<PointFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-bench-vlc-'));
  try {
    chmodSync(dir, 0o777);
    const env = { ...process.env, HOME: dir };
    const started = performance.now();
    let bufferedAt: number | null = null;
    const errors: string[] = [];
    const play = await spawnPlayer(
      'setpriv',
      cvlc(dir, target, seconds, [], url),
      120 + seconds,
      (line, at) => {
        const m = VLC_LINE.exec(line);
        if (m === null) {
          // libav's lines ([h264 @ 0x…] …) come without VLC's prefix.
          if (ERROR_WORDS.test(line) && !VLC_NOISE.some((p) => p.test(line))) errors.push(line.trim());
          return;
        }
        const [, module = '', level = '', text = ''] = m;
        if (bufferedAt === null && module === 'main input' && text.startsWith('Stream buffering done')) {
          bufferedAt = at;
        }
        const what = `${module} ${level}: ${text}`;
        if (VLC_NOISE.some((p) => p.test(what))) return;
        if (level === 'error' || (level === 'warning' && ERROR_WORDS.test(text))) errors.push(what);
      },
      env,
    );
    if (play.code !== 0) errors.push(`vlc exit ${play.code}`);
    const dump = join(dir, 'demuxed.ts');
    await spawnPlayer(
      'setpriv',
      cvlc(dir, target, seconds, ['--sout', `#std{access=file,mux=ts,dst=${dump}}`, '--no-sout-spu'], url),
      120 + seconds,
      () => undefined,
      env,
    );
    const video = await firstPacket(dump, 'v');
    const audio = await firstPacket(dump, 'a');
    if (video === null) errors.push('no video in what the demuxer delivered');
    if (audio === null) errors.push('no audio in what the demuxer delivered');
    return {
      target,
      firstFrameS: bufferedAt === null ? null : (bufferedAt - started) / 1000,
      landedS: null,
      avStartMs: video === null || audio === null ? null : (audio - video) * 1000,
      errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every point of one player on one URL, one after the other (one player at a time: 2 cores). */
export async function playerPoints(
  player: Player,
  url: string,
  durationS: number,
  holdS: number,
): Promise<PointFigures[]> {
  const targets = matrixTargets(durationS);
  if (player === 'mpv') return mpvPoints(url, targets, holdS);
  const points: PointFigures[] = [];
  for (const target of targets) {
    points.push(
      player === 'ffmpeg' ? await ffmpegPoint(url, target, holdS) : await vlcPoint(url, target, holdS),
    );
  }
  return points;
}
