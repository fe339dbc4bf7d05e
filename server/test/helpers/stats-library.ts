// A varied library for /stats (issue 27 item 6): films of several decades on three disc formats,
// files of known capabilities (direct on some devices, converted or not analysed on others) in two
// roots, discs and files added over the past months (the rip queue's history) and a year of plays.
// Rows that carry history (created_at, plays) are written through the storage layer: the API stamps
// "now".
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Capabilities } from '../../src/domain/media/capabilities.ts';
import { audio, file, h264, hevc10, subtitle, video } from '../unit/playback/fixtures.ts';
import { jsonBody, type TestServer } from './test-server.ts';

const FORMATS = ['Blu-ray', 'DVD', '4K UHD', 'Blu-ray', 'DVD', 'Blu-ray'];
const GENRES = [['Drama'], ['Science Fiction', 'Adventure'], ['Comedy'], ['Drama', 'Crime'], ['Animation']];

/** Capabilities by kind: each plays differently on the six devices. */
const KINDS: Record<string, Capabilities> = {
  mp4: file('mp4', h264(), [audio('aac', 2)]),
  dts: file('mkv', h264(), [audio('dts', 6)], [subtitle('srt')]),
  uhd: file(
    'mkv',
    hevc10({ hdr: 'hdr10' }),
    [audio('truehd', 8), audio('ac3', 6, { track: 1 })],
    [subtitle('pgs')],
  ),
  mpeg2: file('mkv', video('mpeg2video', { width: 720, height: 576, profile: 'Main' }), [audio('ac3', 6)]),
};

export interface StatsLibrary {
  /** Movie ids by title. */
  movies: Map<string, number>;
  /** The film rated R (hidden from a child limited to PG). */
  restricted: string;
  /** Media file ids, present ones. */
  files: number[];
}

/** ISO instant on the 10th, `months` months before this month (UTC), at noon. */
function monthsAgo(months: number, day = 10): string {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, day, 12));
  return d.toISOString();
}

/**
 * 24 films (years 1954…2023, formats in turn); films 1–14 ripped (files in roots "Films" and "4K",
 * one of them not analysed yet), 15–22 on disc only, 23–24 neither (a file-less, disc-less entry).
 * Film 5 is rated R. Discs were added month by month from 18 months back; each ripped film's file
 * came six months after its disc.
 */
export async function seedStatsLibrary(t: TestServer, dataDir: string): Promise<StatsLibrary> {
  const db = t.server.database.db;
  const roots: number[] = [];
  for (const name of ['Films', '4K']) {
    const path = join(dataDir, `media-${name}`);
    mkdirSync(path, { recursive: true });
    const res = await t.api('/api/library-roots', jsonBody('POST', { path, name }));
    assert.equal(res.status, 201, await res.clone().text());
    roots.push(((await res.json()) as { id: number }).id);
  }
  const movies = new Map<string, number>();
  const files: number[] = [];
  const kinds = Object.keys(KINDS);
  for (let i = 1; i <= 24; i++) {
    const title = `Stats Film ${String(i).padStart(2, '0')}`;
    const hasDisc = i <= 22;
    const res = await t.api(
      '/api/movies',
      jsonBody('POST', {
        title,
        year: 1954 + ((i * 3) % 70),
        ...(hasDisc
          ? { physical_copies: [{ format: FORMATS[i % FORMATS.length], binder: 'S', slot: String(i) }] }
          : {}),
      }),
    );
    assert.equal(res.status, 201, await res.clone().text());
    const movieId = ((await res.json()) as { id: number }).id;
    movies.set(title, movieId);
    const shelved = 18 - Math.floor(i / 2);
    await db
      .updateTable('movies')
      .set({ genres_json: JSON.stringify(GENRES[i % GENRES.length]), certification: i === 5 ? 'R' : 'PG' })
      .where('id', '=', movieId)
      .execute();
    await db
      .updateTable('physical_copies')
      .set({ created_at: monthsAgo(shelved) })
      .where('movie_id', '=', movieId)
      .execute();
    if (i > 14) continue;
    const kind = kinds[i % kinds.length] ?? 'mp4';
    const caps = KINDS[kind] as Capabilities;
    const analysed = i !== 7;
    const at = monthsAgo(Math.max(0, shelved - 6));
    const row = await db
      .insertInto('media_files')
      .values({
        movie_id: movieId,
        edition_id: null,
        library_root_id: (kind === 'uhd' ? roots[1] : roots[0]) as number,
        relative_path: `${title}.${caps.container}`,
        size_bytes: kind === 'uhd' ? 60e9 : kind === 'mpeg2' ? 7e9 : 20e9 + i * 1e8,
        mtime_ms: 1,
        fingerprint: null,
        edition_label: null,
        status: 'present',
        analysis_status: analysed ? 'analyzed' : 'not_analyzed',
        capabilities_json: analysed ? JSON.stringify(caps) : null,
        analysis_error: null,
        analyzed_size_bytes: null,
        analyzed_fingerprint: null,
        analyzed_at: analysed ? at : null,
        missing_since: null,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    files.push(row.id);
  }
  return { movies, restricted: 'Stats Film 05', files };
}

/** Plays of `userId` in 2025: `[title, ISO start, seconds watched, device]` each. */
export async function seedPlays(
  t: TestServer,
  userId: number,
  lib: StatsLibrary,
  plays: [title: string, at: string, seconds: number, device: string][],
): Promise<void> {
  const db = t.server.database.db;
  for (const [title, at, seconds, device] of plays) {
    await db
      .insertInto('play_history')
      .values({
        user_id: userId,
        media_file_id: null,
        movie_id: lib.movies.get(title) ?? null,
        title,
        device,
        mode: 'direct',
        started_at: at,
        updated_at: at,
        position_seconds: seconds,
        duration_seconds: 7200,
      })
      .execute();
  }
}
