import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MovieArtworkStateTable } from '../db/schema.ts';

export type ArtworkRow = Selectable<MovieArtworkStateTable>;
export type ArtworkKind = 'poster' | 'backdrop';

export interface ArtworkImageState {
  state: 'pending' | 'ready' | 'failed' | 'none';
  /** 'local' (a file beside the media), 'tmdb:<file_path>' (to fetch or fetched from TMDb) */
  source: string | null;
  path: string | null;
}

/** movie_artwork_state rows. */
export class ArtworkRepository {
  constructor(private readonly db: Db) {}

  async get(movieId: number): Promise<ArtworkRow | undefined> {
    return this.db
      .selectFrom('movie_artwork_state')
      .selectAll()
      .where('movie_id', '=', movieId)
      .executeTakeFirst();
  }

  async all(): Promise<ArtworkRow[]> {
    return this.db.selectFrom('movie_artwork_state').selectAll().execute();
  }

  /** Writes one image's state, creating the row when the movie has none yet. */
  async setImage(
    movieId: number,
    kind: ArtworkKind,
    image: ArtworkImageState,
    fetchedAt: string | null,
    error: string | null,
  ): Promise<void> {
    const values =
      kind === 'poster'
        ? { poster_state: image.state, poster_source: image.source, poster_path: image.path }
        : { backdrop_state: image.state, backdrop_source: image.source, backdrop_path: image.path };
    await this.db
      .insertInto('movie_artwork_state')
      .values({
        movie_id: movieId,
        poster_state: 'none',
        backdrop_state: 'none',
        ...values,
        fetched_at: fetchedAt,
        error,
      })
      .onConflict((oc) => oc.column('movie_id').doUpdateSet({ ...values, fetched_at: fetchedAt, error }))
      .execute();
  }

  async movieIds(): Promise<number[]> {
    return (await this.db.selectFrom('movies').select('id').orderBy('id').execute()).map((r) => r.id);
  }

  /** Folders holding a movie's media files (root path + relative folder). */
  async mediaFolders(movieId: number): Promise<{ root_path: string; relative_path: string }[]> {
    return this.db
      .selectFrom('media_files as f')
      .innerJoin('library_roots as r', 'r.id', 'f.library_root_id')
      .select(['r.path as root_path', 'f.relative_path'])
      .where('f.movie_id', '=', movieId)
      .where('f.status', '=', 'present')
      .execute();
  }
}
