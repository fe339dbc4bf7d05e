/**
 * A process that owns one sheet run and nothing else (the "ffmpeg never outlives its owner" test
 * kills it with SIGKILL): argv = ffmpeg, source, output folder[, `paused`]; prints ffmpeg's pid, then
 * waits. With `paused` the run is paused from the start (as while a viewer's conversion holds a
 * slot): ffmpeg is stopped (SIGSTOP) and writes nothing, so only the kernel's parent-death signal
 * can end it.
 */
import { TrickplayFfmpeg } from '../../src/adapters/trickplay-ffmpeg.ts';
import { buildSheetArgs } from '../../src/domain/trickplay/sheet-command.ts';

const [ffmpeg = 'ffmpeg', source = '', outputDir = '', paused = ''] = process.argv.slice(2);
const args = buildSheetArgs({
  source,
  outputDir,
  layout: { interval_ms: 10_000, width: 64, height: 36, tile_width: 4, tile_height: 2 },
  mode: 'accurate',
  thumbnailCount: 100,
  maxKeyframeGapSeconds: 4,
  capabilities: { video: null },
  threads: 1,
});
new TrickplayFfmpeg(ffmpeg)
  .run({
    args,
    outputDir,
    durationSeconds: 1000,
    onSpawn: (pid) => process.stdout.write(`${pid}\n`),
    ...(paused === 'paused' ? { pause: { paused: true, onChange: () => () => undefined } } : {}),
  })
  .catch(() => process.exit(1));
