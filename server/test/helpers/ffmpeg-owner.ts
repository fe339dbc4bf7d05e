/**
 * A process that owns one ffmpeg run writing to a FILE with `-progress pipe:1`, as an artifact build
 * does (the "ffmpeg never outlives its owner" test kills it with SIGKILL): argv = ffmpeg, output
 * file; prints ffmpeg's pid once it reports progress, then waits. With `stop` as a third argument it
 * stops ffmpeg then (SIGSTOP, as a paused background job is).
 */
import { FfmpegAdapter } from '../../src/adapters/ffmpeg.ts';

const [ffmpeg = 'ffmpeg', output = '', stop = ''] = process.argv.slice(2);
let pid = 0;
let reported = false;
new FfmpegAdapter(ffmpeg)
  .run(
    [
      ...['-hide_banner', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1'],
      ...['-re', '-f', 'lavfi', '-i', 'testsrc2=duration=600:size=320x180:rate=25'],
      ...['-c:v', 'mpeg2video', '-y', output],
    ],
    {
      // Once ffmpeg reports progress it runs (setpriv has exec'd it): stopped now, it is stopped for good.
      onStdout: () => {
        if (reported || pid === 0) return;
        reported = true;
        if (stop === 'stop') process.kill(-pid, 'SIGSTOP');
        process.stdout.write(`${pid}\n`);
      },
      onSpawn: (spawned) => {
        pid = spawned;
      },
    },
  )
  .catch(() => process.exit(1));
