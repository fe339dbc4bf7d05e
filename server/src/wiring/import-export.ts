// A piece of the composition root (services/index.ts, at its size bound): the import/export service
// on its repositories. Composition may `new` repositories; capabilities may not (dependency-cruiser).
import type { Db } from '../db/database.ts';
import { ImportExportRepository } from '../repositories/import-export.repository.ts';
import { ImportWriteRepository } from '../repositories/import-write.repository.ts';
import { kyselyUnitOfWork } from '../repositories/unit-of-work.ts';
import { type ImportExportDeps, ImportExportService } from '../services/import/import-export.service.ts';

/** Reads outside a transaction; a plan made and written inside one, one import at a time cluster-wide. */
export function buildImportExport(
  db: Db,
  deps: Omit<ImportExportDeps, 'reads' | 'store'>,
): ImportExportService {
  return new ImportExportService({
    reads: new ImportExportRepository(db),
    // Two nodes importing one document at once must create each movie once.
    store: kyselyUnitOfWork(
      db,
      (trx) => ({ reads: new ImportExportRepository(trx), writer: new ImportWriteRepository(trx) }),
      { exclusive: 'library-import' },
    ),
    ...deps,
  });
}
