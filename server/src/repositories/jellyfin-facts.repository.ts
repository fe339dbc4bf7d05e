import type { Db } from '../db/database.ts';

/** What the Jellyfin DTOs say about a movie that `/library`'s items do not carry. */
export interface JellyfinMovieFactsRow {
  id: number;
  genres_json: string | null;
  certification: string | null;
  created_at: string;
}

export interface JellyfinFileFactsRow {
  id: number;
  relative_path: string;
  size_bytes: number;
}

/** Reads the movie and file facts of the Jellyfin facade's DTOs (every row: one query each, no per-item reads). */
export class JellyfinFactsRepository {
  constructor(private readonly db: Db) {}

  movieFacts(): Promise<JellyfinMovieFactsRow[]> {
    return this.db
      .selectFrom('movies')
      .select(['id', 'genres_json', 'certification', 'created_at'])
      .execute();
  }

  fileFacts(): Promise<JellyfinFileFactsRow[]> {
    return this.db.selectFrom('media_files').select(['id', 'relative_path', 'size_bytes']).execute();
  }
}
