import { statSync } from 'node:fs';
import { relative } from 'node:path';
import type { Db } from '../../src/db/database.ts';
import { LibraryRootRepository } from '../../src/repositories/library-root.repository.ts';
import { MediaFileRepository } from '../../src/repositories/media-file.repository.ts';
import { MovieRepository } from '../../src/repositories/movie.repository.ts';
import { normalizeTitle, sortTitle } from '../../src/domain/titles.ts';

/**
 * Registers generated files through the storage layer (a root, one movie per file, one media file
 * each), as a scan would leave them before analysis.
 */
export async function registerFiles(
  db: Db,
  rootPath: string,
  files: Record<string, string>,
): Promise<Record<string, { movieId: number; fileId: number }>> {
  const now = new Date().toISOString();
  const media = new MediaFileRepository(db);
  const movies = new MovieRepository(db);
  const rootId = await new LibraryRootRepository(db).insert({
    path: rootPath,
    name: 'Test root',
    collection_id: null,
    created_at: now,
  });
  const out: Record<string, { movieId: number; fileId: number }> = {};
  for (const [name, path] of Object.entries(files)) {
    const title = `Movie ${name}`;
    const movieId = await movies.insert({
      title,
      sort_title: sortTitle(title),
      normalized_title: normalizeTitle(title),
      original_title: null,
      year: 2000,
      overview: null,
      runtime_minutes: null,
      tmdb_id: null,
      imdb_id: null,
      has_digital_store_a: 0,
      has_digital_store_b: 0,
      watched: 0,
      created_at: now,
      updated_at: now,
    });
    const stat = statSync(path);
    const fileId = await media.insert({
      library_root_id: rootId,
      relative_path: relative(rootPath, path),
      size_bytes: stat.size,
      mtime_ms: Math.floor(stat.mtimeMs),
      fingerprint: null,
      movie_id: movieId,
      edition_label: null,
      created_at: now,
      updated_at: now,
    });
    out[name] = { movieId, fileId };
  }
  return out;
}
