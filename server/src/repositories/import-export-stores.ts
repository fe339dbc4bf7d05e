import type { Db } from '../db/database.ts';
import { ImportExportRepository } from './import-export.repository.ts';
import { ImportWriteRepository } from './import-write.repository.ts';
import { kyselyUnitOfWork } from './unit-of-work.ts';

/**
 * What the import/export service reads and writes on a database: whole-library reads outside a
 * transaction (a dry run, the export), and the reads and writes an import makes in one. Built here
 * for the composition root (services/index.ts), which stays a readable size.
 */
export function importExportStores(db: Db) {
  return {
    reads: new ImportExportRepository(db),
    store: kyselyUnitOfWork(db, (trx) => ({
      reads: new ImportExportRepository(trx),
      writer: new ImportWriteRepository(trx),
    })),
  };
}
