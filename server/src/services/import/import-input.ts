/**
 * @module services/import-input
 * The reads an import plan is made from: a {@link Snapshot} of the library read in one go (through the
 * {@link LibraryReads} port), and which library root folders of a JSON document exist on this machine.
 * The items themselves are made from the file in domain/import-export/import-items.ts.
 */
import type { FileSystemAdapter } from '../../adapters/file-system.ts';
import type { LibraryExport } from '../../domain/import-export/index.ts';
import type { Snapshot } from '../../domain/import-export/import-items.ts';
import type { LibraryReads } from '../../domain/import-export/library-rows.ts';

/** @param userId whose watch state the snapshot holds (null: the first admin's) */
export async function loadSnapshot(
  repo: LibraryReads,
  withExtras: boolean,
  userId: number | null = null,
): Promise<Snapshot> {
  const [movies, editions, copies, binders] = await Promise.all([
    repo.movies(),
    repo.editions(),
    repo.copies(),
    repo.binders(),
  ]);
  if (!withExtras) return { movies, editions, copies, binders, extras: null };
  const [
    collections,
    roots,
    mediaFiles,
    watch,
    ratings,
    credits,
    movieStudios,
    persons,
    studios,
    artwork,
    loans,
  ] = await Promise.all([
    repo.collections(),
    repo.roots(),
    repo.mediaFiles(),
    repo.watchStates(userId),
    repo.ratings(),
    repo.credits(),
    repo.movieStudios(),
    repo.persons(),
    repo.studios(),
    repo.artwork(),
    repo.loans(),
  ]);
  return {
    movies,
    editions,
    copies,
    binders,
    extras: {
      collections,
      roots,
      mediaFiles,
      watch,
      ratings,
      credits,
      movieStudios,
      persons,
      studios,
      artwork,
      loans,
    },
  };
}

/** Which of the document's library root paths exist on this machine (a plan warns about the others). */
export async function rootsOnDisk(
  fs: Pick<FileSystemAdapter, 'stat'>,
  doc: LibraryExport | null,
): Promise<Set<string>> {
  const paths = [...new Set((doc?.library_roots ?? []).map((r) => r.path))];
  const found = await Promise.all(paths.map(async (p) => ((await fs.stat(p)) === null ? null : p)));
  return new Set(found.filter((p): p is string => p !== null));
}
