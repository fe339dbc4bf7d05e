import type { MediaFileRow } from '../../src/repositories/media-file.repository.ts';
import type { ResumableRow, WatchStateRow } from '../../src/repositories/watch-state.repository.ts';

/**
 * The rows a resume position touches, in memory: media files (read by id) and watch_state (one row
 * per person and media file, inserted or updated as SQLite's upsert on (user_id, media_file_id)
 * does). One object plays both repositories WatchStateService is handed.
 */
export class FakeWatchStateTables {
  mediaFiles: MediaFileRow[] = [];
  states: WatchStateRow[] = [];
  private nextId = 1;

  /** `durationSeconds`: what ffprobe found (stored in capabilities_json); null: not analysed. */
  addMediaFile(
    movieId: number | null,
    relativePath = `film-${this.nextId}.mkv`,
    durationSeconds: number | null = null,
  ): number {
    const id = this.nextId++;
    this.mediaFiles.push({
      id,
      movie_id: movieId,
      edition_id: null,
      library_root_id: 1,
      relative_path: relativePath,
      size_bytes: 1000,
      mtime_ms: 0,
      fingerprint: null,
      edition_label: null,
      status: 'present',
      analysis_status: 'not_analyzed',
      capabilities_json:
        durationSeconds === null ? null : JSON.stringify({ duration_seconds: durationSeconds }),
      analysis_error: null,
      analyzed_size_bytes: null,
      analyzed_fingerprint: null,
      analyzed_at: null,
      missing_since: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    return id;
  }

  // MediaFileRepository

  async getById(id: number): Promise<MediaFileRow | undefined> {
    const row = this.mediaFiles.find((f) => f.id === id);
    return row === undefined ? undefined : { ...row };
  }

  // WatchStateRepository

  async save(row: WatchStateRow, keepWatched: boolean): Promise<WatchStateRow> {
    const same = (s: WatchStateRow) => s.user_id === row.user_id && s.media_file_id === row.media_file_id;
    const existing = this.states.find(same);
    if (existing === undefined) this.states.push({ ...row });
    else {
      Object.assign(existing, {
        movie_id: row.movie_id,
        position_seconds: row.position_seconds,
        ...(keepWatched ? {} : { watched: row.watched }),
        updated_at: row.updated_at,
      });
    }
    const saved = this.states.find(same);
    if (saved === undefined) throw new Error('watch_state row not written');
    return { ...saved };
  }

  async resumable(userId: number, limit: number): Promise<ResumableRow[]> {
    return this.states
      .filter((s) => s.user_id === userId && s.position_seconds > 0 && s.watched === 0)
      .flatMap((s) => {
        const file = this.mediaFiles.find((f) => f.id === s.media_file_id);
        if (file === undefined || file.status !== 'present') return [];
        return [
          {
            media_file_id: s.media_file_id,
            movie_id: file.movie_id,
            title: null,
            relative_path: file.relative_path,
            position_seconds: s.position_seconds,
            updated_at: s.updated_at,
          },
        ];
      })
      .sort((a, b) =>
        a.updated_at < b.updated_at
          ? 1
          : a.updated_at > b.updated_at
            ? -1
            : b.media_file_id - a.media_file_id,
      )
      .slice(0, limit);
  }
}
