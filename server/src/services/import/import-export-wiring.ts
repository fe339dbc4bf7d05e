import type { Db } from '../../db/database.ts';
import { ImportExportRepository } from '../../repositories/import-export.repository.ts';
import { ImportWriteRepository } from '../../repositories/import-write.repository.ts';
import { kyselyUnitOfWork } from '../../repositories/unit-of-work.ts';
import { type ImportExportDeps, ImportExportService } from './import-export.service.ts';

/** The import/export service on a database: reads outside, plans and writes inside one transaction. */
export function buildImportExport(
  db: Db,
  deps: Omit<ImportExportDeps, 'reads' | 'store'>,
): ImportExportService {
  return new ImportExportService({
    reads: new ImportExportRepository(db),
    store: kyselyUnitOfWork(db, (trx) => ({
      reads: new ImportExportRepository(trx),
      writer: new ImportWriteRepository(trx),
    })),
    ...deps,
  });
}
