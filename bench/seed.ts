import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../server/src/db/database.ts';
import { normalizeTitle, sortTitle } from '../server/src/domain/titles.ts';

const WORDS = [
  'Dark',
  'Star',
  'Night',
  'River',
  'Iron',
  'Silent',
  'Lost',
  'Golden',
  'Last',
  'Red',
  'Blue',
  'City',
];
const NOUNS = ['Empire', 'Voyage', 'Garden', 'Protocol', 'Harbor', 'Kingdom', 'Signal', 'Winter', 'Machine'];
const FORMATS = ['DVD', 'Blu-ray', '4K UHD'];

/** Seeds `count` movies, each with one disc edition and one physical copy in a binder slot. */
export async function seedMoviesWithCopies(db: Db, count: number): Promise<void> {
  const now = new Date('2026-01-01T00:00:00Z').toISOString();
  const binderCount = Math.ceil(count / 100);
  await db.transaction().execute(async (trx) => {
    for (let b = 0; b < binderCount; b++) {
      await trx
        .insertInto('binders')
        .values({ name: `Binder ${b + 1}`, capacity: 100, created_at: now })
        .execute();
    }
    const batch = 400;
    for (let start = 0; start < count; start += batch) {
      const movies = [];
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const title = `${WORDS[i % WORDS.length]} ${NOUNS[(i * 7) % NOUNS.length]} ${i + 1}`;
        movies.push({
          title,
          sort_title: sortTitle(title),
          normalized_title: normalizeTitle(title),
          original_title: null,
          year: 1950 + (i % 75),
          overview: `A seeded movie number ${i + 1}, long enough to look like a real overview of a film.`,
          runtime_minutes: 90 + (i % 60),
          tmdb_id: 100000 + i,
          imdb_id: `tt${String(1000000 + i)}`,
          has_digital_store_a: i % 3 === 0 ? 1 : 0,
          has_digital_store_b: i % 5 === 0 ? 1 : 0,
          watched: 0,
          created_at: now,
          updated_at: now,
        });
      }
      const ids = await trx.insertInto('movies').values(movies).returning('id').execute();
      const editions = await trx
        .insertInto('disc_editions')
        .values(
          ids.map((m, k) => ({
            movie_id: m.id,
            label: null,
            format: FORMATS[(start + k) % 3] ?? 'DVD',
            barcode: null,
            created_at: now,
          })),
        )
        .returning(['id', 'movie_id'])
        .execute();
      await trx
        .insertInto('physical_copies')
        .values(
          editions.map((e, k) => ({
            movie_id: e.movie_id,
            edition_id: e.id,
            binder_id: Math.floor((start + k) / 100) + 1,
            slot: String(((start + k) % 100) + 1),
            notes: null,
            created_at: now,
          })),
        )
        .execute();
    }
  });
}

/** Capabilities of three kinds of rip (a plain MP4, an MKV with DTS, a 4K HDR MKV with TrueHD). */
const FILE_KINDS = [
  {
    container: 'mp4',
    format_name: 'mov,mp4,m4a,3gp,3g2,mj2',
    video: { codec: 'h264', profile: 'High', level: 4.1, width: 1920, height: 1080, bit_depth: 8 },
    audio: [{ codec: 'aac', channels: 2 }],
  },
  {
    container: 'mkv',
    format_name: 'matroska,webm',
    video: { codec: 'h264', profile: 'High', level: 4.1, width: 1920, height: 1080, bit_depth: 8 },
    audio: [{ codec: 'dts', channels: 6 }],
  },
  {
    container: 'mkv',
    format_name: 'matroska,webm',
    video: { codec: 'hevc', profile: 'Main 10', level: 5.1, width: 3840, height: 2160, bit_depth: 10 },
    audio: [{ codec: 'truehd', channels: 8 }],
  },
];

/**
 * Gives `share` of the seeded movies one analysed media file each (in two roots under `rootDir`, kinds in turn, each
 * capabilities record distinct by its duration as real ones are) and every tenth movie a play.
 */
export async function seedMediaFiles(db: Db, rootDir: string, share = 0.7): Promise<void> {
  const now = new Date('2026-01-01T00:00:00Z').toISOString();
  const movies = await db.selectFrom('movies').select('id').orderBy('id').execute();
  const roots: number[] = [];
  for (const name of ['Films', 'UHD']) {
    // Real (empty) folders: the root watcher finds them reachable and quiet.
    mkdirSync(join(rootDir, name), { recursive: true });
    const row = await db
      .insertInto('library_roots')
      .values({ path: join(rootDir, name), name, collection_id: null, created_at: now, last_scan_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    roots.push(row.id);
  }
  const picked = movies.filter((_, i) => i % 10 < share * 10);
  for (let start = 0; start < picked.length; start += 400) {
    const rows = picked.slice(start, start + 400).map((m, k) => {
      const i = start + k;
      const kind = FILE_KINDS[i % FILE_KINDS.length] ?? FILE_KINDS[0];
      const caps = {
        container: kind?.container,
        format_name: kind?.format_name,
        duration_seconds: 5400 + (i % 3600),
        size_bytes: 20e9 + i,
        bitrate_bps: 8_000_000,
        stream_count: 2,
        video: {
          index: 0,
          pix_fmt: kind?.video.bit_depth === 10 ? 'yuv420p10le' : 'yuv420p',
          frame_rate: 23.976,
          interlaced: false,
          codec_tag: null,
          hdr: kind?.video.bit_depth === 10 ? 'hdr10' : 'sdr',
          dolby_vision: null,
          sar: null,
          anamorphic: false,
          rotation: 0,
          bitrate_bps: null,
          ...kind?.video,
        },
        audio: (kind?.audio ?? []).map((a, track) => ({
          index: 1 + track,
          track,
          profile: null,
          channel_layout: null,
          sample_rate: 48000,
          bitrate_bps: null,
          language: 'eng',
          title: null,
          default: true,
          forced: false,
          ...a,
        })),
        subtitles: [],
      };
      return {
        movie_id: m.id,
        edition_id: null,
        library_root_id: (i % 3 === 2 ? roots[1] : roots[0]) ?? 1,
        relative_path: `seeded/${m.id}.${kind?.container ?? 'mkv'}`,
        size_bytes: 20e9 + i,
        mtime_ms: 1,
        fingerprint: null,
        edition_label: null,
        status: 'present',
        analysis_status: 'analyzed',
        capabilities_json: JSON.stringify(caps),
        analysis_error: null,
        analyzed_size_bytes: 20e9 + i,
        analyzed_fingerprint: null,
        analyzed_at: now,
        missing_since: null,
        created_at: new Date(Date.UTC(2024, i % 24, 15)).toISOString(),
        updated_at: now,
      };
    });
    await db.insertInto('media_files').values(rows).execute();
  }
  const plays = movies.filter((_, i) => i % 10 === 0);
  for (let start = 0; start < plays.length; start += 400) {
    await db
      .insertInto('play_history')
      .values(
        plays.slice(start, start + 400).map((m, k) => {
          const at = new Date(Date.UTC(2026, (start + k) % 11, 1 + (k % 27), 20)).toISOString();
          return {
            user_id: 1,
            media_file_id: null,
            movie_id: m.id,
            title: `Movie ${m.id}`,
            device: ['web', 'tv', 'full'][k % 3] ?? 'web',
            mode: 'direct',
            started_at: at,
            updated_at: at,
            position_seconds: 3600,
            duration_seconds: 7200,
          };
        }),
      )
      .execute();
  }
}
