// `npm run demo`: makes a small sample library with ffmpeg (clips that play directly, after a
// remux, with converted audio, and only after a video transcode, named like a real library),
// scans it, and starts the server — one command to see reelshelf with real files.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { createServer } from '../server/src/server.ts';
import { type FixtureName, makeFixture } from '../server/test/helpers/media.ts';

const root = resolve(process.env.REELSHELF_DEMO_DIR ?? 'demo');
const media = join(root, 'media');
const dataDir = join(root, 'data');

const SAMPLES: [FixtureName, string, number][] = [
  ['h264_aac.mp4', 'Big Buck Test (2008)/Big Buck Test (2008).mp4', 8],
  ['h264_dts.mkv', 'The Matrix Test (1999) [imdbid-tt0133093]/The Matrix Test (1999) - 1080p.mkv', 8],
  ['hevc10_hdr10_ac3.mkv', 'Blade Runner Test (2017)/Blade Runner Test (2017) - 2160p.mkv', 6],
  ['vp9_opus.webm', 'Amélie Test (2001)/Amélie Test (2001).webm', 6],
  ['mpeg2_ac3.mkv', 'Casablanca Test (1942)/Casablanca Test (1942).mkv', 6],
  ['h264_aac_eng_dts_multi.mkv', 'Heat Test (1995)/Heat Test (1995) - Director’s Cut.mkv', 6],
];

async function main(): Promise<void> {
  mkdirSync(media, { recursive: true });
  for (const [fixture, path, seconds] of SAMPLES) {
    const target = join(media, path);
    if (existsSync(target)) continue;
    process.stdout.write(`making ${path}\n`);
    await makeFixture(fixture, target, seconds);
  }
  const config = loadConfig({ ...process.env, REELSHELF_DATA_DIR: dataDir });
  const server = await createServer(config);
  const rootView =
    (await server.services.roots.findByPath(media)) ??
    (await server.services.roots.create({ path: media, collection: 'Demo' }));
  const report = await server.services.scans.wait((await server.services.scans.start(rootView.id)).scan_id);
  process.stdout.write(
    `scanned ${report.counts.found} files: ${report.counts.new} new, ${report.counts.unchanged} unchanged\n`,
  );
  const url = (await server.listen()).replace('://0.0.0.0', '://127.0.0.1');
  process.stdout.write(
    `\nreelshelf demo: ${url}/library\nadmin token: ${server.apiToken}\n(sign in with the token; Ctrl-C stops)\n`,
  );
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
