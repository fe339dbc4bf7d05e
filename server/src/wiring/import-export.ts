// A piece of the composition root (services/index.ts, at its size bound): the import/export service
// on its repositories. Composition may `new` repositories; capabilities may not (dependency-cruiser).
import type { Db } from '../db/database.ts';
import { ImportExportRepository } from '../repositories/import-export.repository.ts';
import { ImportWriteRepository } from '../repositories/import-write.repository.ts';
import { MovieRepository } from '../repositories/movie.repository.ts';
import { WatchedFilmsRepository } from '../repositories/watched-films.repository.ts';
import { WishRepository } from '../repositories/wish.repository.ts';
import { kyselyUnitOfWork, type UnitOfWork } from '../repositories/unit-of-work.ts';
import {
  type ImportExportDeps,
  ImportExportService,
  type ImportTransaction,
} from '../services/import/import-export.service.ts';

/** Reads outside a transaction; a plan made and written inside one, one import at a time cluster-wide. */
export function buildImportExport(
  db: Db,
  deps: Omit<ImportExportDeps, 'reads' | 'store' | 'wishes' | 'watched'>,
): ImportExportService {
  // Two nodes importing one document at once must create each movie once. On PostgreSQL the
  // search rows of the imported movies are built after the commit, off the request (migration 0018).
  const written = kyselyUnitOfWork(
    db,
    (trx) => ({
      reads: new ImportExportRepository(trx),
      writer: new ImportWriteRepository(trx),
      wishes: new WishRepository(trx),
    }),
    { exclusive: 'library-import', searchRowsAfterCommit: true },
  );
  const movies = new MovieRepository(db);
  const store: UnitOfWork<ImportTransaction> = {
    transaction: async (work) => {
      const out = await written.transaction(work);
      // Not awaited: the import answers first. A failure (the server closing) loses nothing: the
      // marks stay, and the next search or import builds them.
      movies.syncSearchIndex().catch(() => undefined);
      return out;
    },
  };
  return new ImportExportService({
    reads: new ImportExportRepository(db),
    wishes: new WishRepository(db),
    watched: new WatchedFilmsRepository(db),
    store,
    ...deps,
  });
}
