import type { Db } from '../server/src/db/database.ts';
import {
  type BenchEngine,
  type BenchTarget,
  benchEngines,
  type HttpFigure,
  seededBenchServer,
  timeFiguresAlternating,
} from './engines.ts';
import { seedMoviesWithCopies } from './seed.ts';

const MOVIES = 10_000;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 30 : 120;

/**
 * A server on a new database of `engine` with 10,000 movies, each a disc in one of 100 binders of
 * 100, every other one with a file.
 */
function seededTarget(engine: BenchEngine): Promise<BenchTarget> {
  return seededBenchServer(engine, async (server) => {
    await seedMoviesWithCopies(server.database.db, MOVIES);
    await seedRippedFiles(server.database.db);
  });
}

/** A capability record as the analysis stores it (~3 KB: HEVC video, six audio, twelve subtitle tracks). */
function capabilities(height: number, hdr: string, seconds: number): string {
  const audio = Array.from({ length: 6 }, (_, i) => ({
    index: i + 1,
    track: i,
    codec: 'truehd',
    profile: 'TrueHD Atmos',
    channels: 8,
    channel_layout: '7.1',
    sample_rate: 48000,
    bitrate_bps: null,
    language: 'eng',
    title: 'Surround 7.1',
    default: i === 0,
    forced: false,
  }));
  const subtitles = Array.from({ length: 12 }, (_, i) => ({
    index: i + 7,
    track: i,
    codec: 'pgs',
    kind: 'image',
    language: 'eng',
    title: null,
    forced: false,
    default: false,
  }));
  const width = Math.round((height * 16) / 9);
  return JSON.stringify({
    container: 'mkv',
    format_name: 'matroska,webm',
    duration_seconds: seconds,
    size_bytes: 30e9,
    bitrate_bps: 3e7,
    stream_count: 19,
    video: { index: 0, codec: 'hevc', width, height, bit_depth: 10, hdr, frame_rate: 23.976 },
    audio,
    subtitles,
  });
}

/**
 * Every other seeded film gets a present, analysed file (1080p SDR, 2160p HDR10 or 576p, a few cut
 * short): the rip queue then holds 5,000 films and the upgrades compare 5,000 discs with their files.
 */
export async function seedRippedFiles(db: Db): Promise<void> {
  const now = new Date('2026-01-01T00:00:00Z').toISOString();
  const root = await db
    .insertInto('library_roots')
    .values({ path: '/bench/media', name: 'media', created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const movies = await db.selectFrom('movies').select(['id', 'runtime_minutes']).orderBy('id').execute();
  const kinds: [number, string][] = [
    [1080, 'sdr'],
    [2160, 'hdr10'],
    [576, 'sdr'],
  ];
  const rows = movies
    .filter((_, i) => i % 2 === 0)
    .map((m, i) => {
      const [height, hdr] = kinds[i % 3] ?? [1080, 'sdr'];
      const seconds = (m.runtime_minutes ?? 100) * 60 * (i % 10 === 0 ? 0.5 : 1);
      return {
        movie_id: m.id,
        library_root_id: root.id,
        relative_path: `film ${m.id}.mkv`,
        size_bytes: 30e9,
        mtime_ms: 0,
        status: 'present',
        analysis_status: 'analyzed',
        capabilities_json: capabilities(height, hdr, seconds),
        created_at: now,
        updated_at: now,
      };
    });
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('media_files')
      .values(rows.slice(i, i + 200))
      .execute();
}

/**
 * `/binders/{name}` (a binder of 100 discs: 13 pages of 8) as a page and as JSON, and the binder
 * list, at 10,000 movies over real HTTP (issue 27: the page < 100 ms). Requests alternate between
 * the engines, the first of each pair taking turns.
 */
export async function benchBinders(): Promise<void> {
  const targets: BenchTarget[] = [];
  try {
    for (const engine of benchEngines()) targets.push(await seededTarget(engine));
    const figures: HttpFigure[] = [
      ['/binders/{name} page (100 discs)', '/binders/Binder%2050', 'text/html'],
      ['GET /api/binders/{name}', '/api/binders/Binder%2050', 'application/json'],
      ['/binders page (100 binders)', '/binders', 'text/html'],
      ['GET /api/binders', '/api/binders', 'application/json'],
      // Every other film has a file (seedRippedFiles): 5,000 to rip, 5,000 discs against their files.
      ['GET /api/rip-queue (5,000 films)', '/api/rip-queue', 'application/json'],
      ['GET /api/rip-queue?format=4K UHD', '/api/rip-queue?format=4K%20UHD', 'application/json'],
      ['/rip-queue page (first 100 of 5,000)', '/rip-queue', 'text/html'],
      ['GET /api/upgrades (5,000 files)', '/api/upgrades', 'application/json'],
      ['/upgrades page', '/upgrades', 'text/html'],
    ];
    await timeFiguresAlternating('binders', targets, figures, RUNS);
  } finally {
    for (const t of targets) await t.close();
  }
}
