/**
 * Films for the trickplay tests, made by ffmpeg at test time: each picture is one known solid colour
 * (with a little noise, so the encoders work as on real footage) that changes on a fixed schedule, so
 * a thumbnail's mean colour says which moment of the film it shows.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fixtureFfmpeg } from './media.ts';

const run = promisify(execFile);

/** Well separated colours (R, G, B), one per 10-s segment, repeated as needed. */
export const SEGMENT_COLOURS: readonly (readonly [number, number, number])[] = [
  [200, 40, 40],
  [40, 180, 40],
  [40, 60, 200],
  [210, 200, 40],
  [180, 40, 190],
  [40, 190, 200],
  [230, 130, 30],
  [120, 120, 120],
  [90, 30, 140],
  [30, 110, 70],
  [220, 150, 170],
  [20, 20, 90],
  [160, 200, 120],
  [240, 240, 240],
];

export const FILM_FPS = 25;
export const FILM_WIDTH = 160;
export const FILM_HEIGHT = 90;

export interface ColourFilm {
  path: string;
  durationSeconds: number;
  /** The colour changes at every 10·k + offsetSeconds after 0 (offset in [0, 10); colour 0 first). */
  offsetSeconds: number;
  gopSeconds: number;
  /** Colour index shown at time t. */
  colourIndexAt(t: number): number;
  colourAt(t: number): readonly [number, number, number];
}

export interface ColourFilmOptions {
  durationSeconds: number;
  offsetSeconds: number;
  gopSeconds: number;
  codec: 'h264' | 'hevc10_hdr10';
}

function hex([r, g, b]: readonly [number, number, number]): string {
  return `0x${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export function colourFilm(path: string, options: ColourFilmOptions): ColourFilm {
  const { offsetSeconds } = options;
  const first = offsetSeconds > 0 ? 1 : 0;
  const colourIndexAt = (t: number) =>
    Math.max(0, Math.floor((t - offsetSeconds) / 10) + first) % SEGMENT_COLOURS.length;
  return {
    path,
    durationSeconds: options.durationSeconds,
    offsetSeconds,
    gopSeconds: options.gopSeconds,
    colourIndexAt,
    colourAt: (t) => SEGMENT_COLOURS[colourIndexAt(t)] ?? [0, 0, 0],
  };
}

/** The `color` sources of the schedule, concatenated, with noise; ends in `[v]`. */
function scheduleGraph(options: ColourFilmOptions, film: ColourFilm): string {
  const bounds = [0];
  for (let change = options.offsetSeconds; change < options.durationSeconds; change += 10) {
    if (change > 0) bounds.push(change);
  }
  bounds.push(options.durationSeconds);
  const parts: string[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i] ?? 0;
    const duration = (bounds[i + 1] ?? 0) - start;
    const size = `${FILM_WIDTH}x${FILM_HEIGHT}`;
    parts.push(
      `color=c=${hex(film.colourAt(start))}:s=${size}:r=${FILM_FPS}:d=${duration.toFixed(3)}[c${i}]`,
    );
  }
  const inputs = parts.map((_, i) => `[c${i}]`).join('');
  return `${parts.join(';')};${inputs}concat=n=${parts.length}:v=1:a=0,noise=alls=6:allf=t[v]`;
}

/** Makes the film (H.264 8-bit, or HEVC Main10 converted to PQ/BT.2020 and tagged HDR10). */
export async function makeColourFilm(
  dir: string,
  name: string,
  options: ColourFilmOptions,
): Promise<ColourFilm> {
  const film = colourFilm(join(dir, name), options);
  const gopFrames = Math.round(options.gopSeconds * FILM_FPS);
  // Keyframes exactly every GOP, none at the colour changes (no scene-cut keyframes).
  const keyframes = ['-force_key_frames', `expr:gte(t,n_forced*${options.gopSeconds})`];
  let graph = scheduleGraph(options, film);
  let codec: string[];
  if (options.codec === 'h264') {
    graph = graph.replace(/\[v\]$/, ',format=yuv420p[v]');
    codec = ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', String(gopFrames), '-sc_threshold', '0'];
  } else {
    // The SDR colours as an HDR10 master would carry them: BT.709 → PQ, BT.2020, 10-bit.
    graph = graph.replace(
      /\[v\]$/,
      ',zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=smpte2084:p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le[v]',
    );
    codec = [
      '-c:v',
      'libx265',
      '-preset',
      'ultrafast',
      '-x265-params',
      `log-level=error:keyint=${gopFrames}:min-keyint=${gopFrames}:scenecut=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400`,
      '-color_primaries',
      'bt2020',
      '-color_trc',
      'smpte2084',
      '-colorspace',
      'bt2020nc',
      '-tag:v',
      'hvc1',
    ];
  }
  await run(
    fixtureFfmpeg,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-filter_complex',
      graph,
      '-map',
      '[v]',
      ...codec,
      ...keyframes,
      film.path,
    ],
    { timeout: 120_000 },
  );
  return film;
}
