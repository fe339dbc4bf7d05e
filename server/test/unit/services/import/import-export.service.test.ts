import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { ImportExportService } from '../../../../src/services/import/import-export.service.ts';
import { FakeImportTables } from '../../../fakes/import-repositories.ts';
import { fakeUnitOfWork } from '../../../fakes/unit-of-work.ts';

// ImportExportService on an in-memory library (no database): all or nothing, idempotent re-imports,
// dry runs that write nothing, the export round trip, and new movies handed on for enrichment.

const CSV = Buffer.from(
  [
    'Title,Year,Format,Edition,Binder,Slot,Watched',
    'Heat,1995,DVD,,Binder A,1,yes',
    "Heat,1995,Blu-ray,Director's Definitive Edition,Binder A,2,yes",
    'Alien,1979,DVD,,Binder B,1,no',
  ].join('\n'),
);

function service(
  tables: FakeImportTables,
  overrides: Partial<ConstructorParameters<typeof ImportExportService>[0]> = {},
) {
  const queued: { ids: number[]; artworkWithoutEnrichment: boolean }[] = [];
  const imports = new ImportExportService({
    ...tables.deps(),
    clock: { now: () => new Date('2026-02-03T04:05:06.000Z') },
    fs: { stat: async () => null },
    newMovies: {
      queue: async (ids, options) => {
        queued.push({ ids, ...options });
        return null;
      },
    },
    ...overrides,
  });
  return { imports, queued };
}

describe('ImportExportService with fake repositories', () => {
  it('imports a CSV, hands the new movies on, and importing it again writes nothing', async () => {
    const tables = new FakeImportTables();
    const { imports, queued } = service(tables);
    const first = await imports.importFile(CSV, 'csv');
    assert.equal(first.dry_run, false);
    assert.equal(first.created.movies, 2);
    assert.deepEqual(
      tables.t.movies.map((m) => [m.title, m.year, m.watched]),
      [
        ['Heat', 1995, 1],
        ['Alien', 1979, 0],
      ],
    );
    assert.deepEqual(
      (await tables.copies()).map((c) => [c.binder, c.slot]),
      [
        ['Binder A', '1'],
        ['Binder A', '2'],
        ['Binder B', '1'],
      ],
    );
    assert.deepEqual(queued, [{ ids: tables.t.movies.map((m) => m.id), artworkWithoutEnrichment: false }]);

    const writes = tables.writes.length;
    const again = await imports.importFile(CSV, 'csv');
    assert.equal(again.created.movies, 0);
    assert.equal(again.unchanged.movies, 2);
    assert.equal(tables.writes.length, writes, 'a re-import writes nothing');
    assert.equal(queued.length, 1, 'no new movie, nothing handed on');
  });

  it('a dry run counts and writes nothing', async () => {
    const tables = new FakeImportTables();
    const { imports, queued } = service(tables);
    const result = await imports.importFile(CSV, null, { dryRun: true });
    assert.deepEqual([result.dry_run, result.created.movies], [true, 2]);
    assert.deepEqual([tables.writes, tables.t.movies, queued], [[], [], []]);
  });

  it('a bad row refuses the whole file with every problem listed', async () => {
    const tables = new FakeImportTables();
    const { imports } = service(tables);
    const bad = Buffer.from('Title,Year,Format,Binder,Slot\nGood One,2001,DVD,Z,1\nBad Year,19x9,DVD,Z,2\n');
    await assert.rejects(imports.importFile(bad, 'csv'), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'import_invalid');
      return true;
    });
    assert.deepEqual(tables.writes, []);
  });

  it('a write that fails half-way leaves the library as it was (one transaction)', async () => {
    const tables = new FakeImportTables();
    const failing = fakeUnitOfWork(tables, {
      reads: tables,
      writer: Object.assign(Object.create(tables) as FakeImportTables, {
        insertCopies: () => Promise.reject(new Error('disk full')),
      }),
    });
    const { imports, queued } = service(tables, { store: failing });
    await assert.rejects(imports.importFile(CSV, 'csv'), /disk full/);
    assert.ok(tables.writes.length > 0, 'movies were written before the failing write');
    assert.deepEqual([tables.t.movies, tables.t.editions, tables.t.binders], [[], [], []]);
    assert.deepEqual(queued, []);
  });

  it('the JSON export of a library, imported into an empty one, exports the same document', async () => {
    const source = new FakeImportTables();
    await service(source).imports.importFile(CSV, 'csv');
    const exported = await service(source).imports.export('json');
    const copy = new FakeImportTables();
    const { imports } = service(copy);
    const result = await imports.importFile(Buffer.from(exported.body), null);
    assert.equal(result.created.movies, 2);
    assert.equal((await imports.export('json')).body, exported.body);
  });
});
