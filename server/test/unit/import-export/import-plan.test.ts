import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LibraryExport } from '../../../src/domain/import-export/index.ts';
import { openTestDatabase } from '../../helpers/test-database.ts';
import { ImportExportRepository } from '../../../src/repositories/import-export.repository.ts';
import { ImportWriteRepository } from '../../../src/repositories/import-write.repository.ts';
import { applyPlan } from '../../../src/services/import/import-apply.ts';
import { loadSnapshot } from '../../../src/services/import/import-input.ts';
import { ImportPlan } from '../../../src/domain/import-export/import-plan.ts';
import {
  NOW,
  binderRow,
  copyRow,
  csvItems,
  editionRow,
  exportMovie,
  extras,
  jsonItems,
  movieRow,
  recordingWriter,
  snapshot,
} from './plan-fixtures.ts';

const heatLib = () =>
  snapshot({
    movies: [movieRow({ id: 1, title: 'Heat', year: 1995 })],
    editions: [editionRow({ id: 10, movie_id: 1, format: 'DVD', barcode: '0012345678905' })],
    copies: [copyRow({ id: 20, movie_id: 1, edition_id: 10, binder: 'A', slot: '1' })],
    binders: [binderRow(5, 'A')],
  });

function doc(parts: Partial<LibraryExport>): LibraryExport {
  return { format_version: 1, movies: [], collections: [], library_roots: [], binders: [], ...parts };
}

describe('ImportPlan (pure: a snapshot and items in, counts, problems and writes out)', () => {
  it('a new movie: its row, edition and copy are written in order, each pointing at the ids before it', async () => {
    const plan = new ImportPlan({
      snapshot: snapshot(),
      now: NOW,
      items: csvItems([{ title: 'Ronin', year: 1998, format: 'Blu-ray', binder: 'B', slot: '3' }]),
      doc: null,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.created, { movies: 1, editions: 1, copies: 1 });
    const { writer, writes } = recordingWriter();
    for (const op of plan.ops) await op(writer);
    assert.deepEqual(
      writes.map((w) => w.method),
      ['insertBinders', 'insertMovies', 'insertEditions', 'insertCopies'],
    );
    // Ids handed out in that order: binder 1000, movie 1001, edition 1002.
    assert.deepEqual(writes[3]?.args[0], [
      { movie_id: 1001, edition_id: 1002, binder_id: 1000, slot: '3', notes: null, created_at: NOW },
    ]);
    assert.deepEqual(
      plan.newMovies.map((r) => r.value),
      [1001],
    );
  });

  it('new binders are one write (RETURNING in any order): each copy points at its own binder', async () => {
    const plan = new ImportPlan({
      snapshot: snapshot(),
      now: NOW,
      items: csvItems([
        { title: 'Ronin', year: 1998, format: 'DVD', binder: 'B', slot: '1' },
        { title: 'Heat', year: 1995, format: 'DVD', binder: 'A', slot: '1' },
        { title: 'Thief', year: 1981, format: 'DVD', binder: 'C', slot: '1' },
        { title: 'Collateral', year: 2004, format: 'DVD', binder: 'A', slot: '2' },
      ]),
      doc: null,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, []);
    const { writer, writes } = recordingWriter();
    for (const op of plan.ops) await op(writer);
    assert.deepEqual(
      writes.map((w) => w.method),
      ['insertBinders', 'insertMovies', 'insertEditions', 'insertCopies'],
    );
    const binders = writes[0]?.args[0] as { name: string }[];
    assert.deepEqual(
      binders.map((b) => b.name),
      ['B', 'A', 'C'],
      'each binder once, in first use order',
    );
    // The recording writer hands out 1000, 1001, 1002 in that order and returns them reversed.
    const idOf = new Map(binders.map((b, i) => [b.name, 1000 + i]));
    const copies = writes[3]?.args[0] as { binder_id: number | null; slot: string | null }[];
    const movies = writes[1]?.args[0] as { title: string }[];
    assert.deepEqual(
      copies.map((c) => c.binder_id),
      ['B', 'A', 'C', 'A'].map((name) => idOf.get(name)),
      `copies of ${movies.map((m) => m.title).join(', ')}`,
    );
  });

  it('the library as the file says: nothing to write, the movie counts as unchanged', () => {
    const plan = new ImportPlan({
      snapshot: heatLib(),
      now: NOW,
      items: csvItems([
        { title: 'Heat', year: 1995, format: 'DVD', barcode: '0012345678905', binder: 'A', slot: '1' },
      ]),
      doc: null,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual([plan.ops.length, plan.unchanged, plan.updated], [0, 1, 0]);
  });

  it('problems that forbid the import are errors; lost barcodes are warnings', () => {
    // Casino is in the library too: its title and year win over the barcode Heat holds.
    const lib = heatLib();
    lib.movies.push(movieRow({ id: 2, title: 'Casino', year: 1995 }));
    const plan = new ImportPlan({
      snapshot: lib,
      now: NOW,
      items: [
        ...csvItems([{ title: 'Ronin', year: 1998, format: 'DVD', binder: 'A', slot: '1' }]),
        ...csvItems([{ title: 'Casino', year: 1995, barcode: '0012345678905' }]),
      ],
      doc: null,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, [
      { row: 2, field: 'slot', message: 'binder "A" slot 1 already holds Heat (1995): one disc per slot' },
    ]);
    assert.deepEqual(plan.warnings, [
      'line 2: barcode 0012345678905 is already on Heat (1995); this edition of Casino is recorded without it',
    ]);
  });

  it('a library root of the document: warned when its folder is not on this machine, refused when it overlaps', () => {
    const roots = doc({
      library_roots: [
        { path: '/films/new', name: 'New', collection: null },
        { path: '/films/old/inner', name: 'Inner', collection: null },
      ],
    });
    const lib = snapshot({
      extras: extras({ roots: [{ id: 1, path: '/films/old', name: 'Old', collection: null }] }),
    });
    const make = (onDisk: string[]) =>
      new ImportPlan({
        snapshot: lib,
        now: NOW,
        items: jsonItems(roots),
        doc: roots,
        rootsOnDisk: new Set(onDisk),
      });
    const missing = make([]);
    assert.equal(
      missing.warnings.filter((w) => w.startsWith('library root /films/new does not exist')).length,
      1,
    );
    assert.deepEqual(
      missing.errors.map((e) => e.field),
      ['library_roots/1/path'],
    );
    const present = make(['/films/new', '/films/old/inner']);
    assert.deepEqual(present.warnings, []);
  });
});

describe('applyPlan on real SQLite', () => {
  it('writes a JSON document, reports progress, and a second plan of the same file writes nothing', async () => {
    const opened = await openTestDatabase();
    try {
      const document = doc({
        binders: [{ name: 'A', capacity: 40 }],
        movies: [
          exportMovie({
            title: 'Heat',
            year: 1995,
            tmdb_id: 949,
            binder: 'A',
            cast: ['Al Pacino', 'Robert De Niro'],
            studios: ['Warner Bros.'],
            ratings: [{ source: 'imdb', value: '8.3/10' }],
            editions: [
              {
                label: null,
                format: 'DVD',
                barcode: '0012345678905',
                region: '2',
                copies: [{ binder: 'A', slot: '1', notes: 'signed' }],
              },
            ],
          }),
        ],
      });
      const plan = async () =>
        new ImportPlan({
          snapshot: await loadSnapshot(new ImportExportRepository(opened.db), true),
          now: NOW,
          items: jsonItems(document),
          doc: document,
          rootsOnDisk: new Set(),
        });
      const first = await plan();
      assert.deepEqual(first.errors, []);
      const progress: [number, number][] = [];
      await opened.db.transaction().execute((trx) =>
        applyPlan(first.ops, new ImportWriteRepository(trx), (done, total) => {
          progress.push([done, total]);
        }),
      );
      // One report after every write (a write may be a 500-row batch), ending at total.
      const n = first.ops.length;
      assert.deepEqual(
        progress,
        Array.from({ length: n }, (_, i) => [i + 1, n]),
      );
      const stored = await loadSnapshot(new ImportExportRepository(opened.db), true);
      assert.deepEqual(
        stored.movies.map((m) => [m.title, m.tmdb_id]),
        [['Heat', 949]],
      );
      assert.deepEqual(
        stored.copies.map((c) => [c.binder, c.slot, c.notes]),
        [['A', '1', 'signed']],
      );
      assert.deepEqual(
        stored.extras?.credits.map((c) => c.name),
        ['Al Pacino', 'Robert De Niro'],
      );
      const second = await plan();
      assert.deepEqual([second.ops.length, second.unchanged], [0, 1]);
    } finally {
      await opened.close();
    }
  });
});

describe('ImportPlan: loans (issue 27)', () => {
  const out = { to: 'Sam', lent_at: '2026-03-01T10:00:00.000Z', due: '2026-03-20', returned_at: null };
  const back = {
    to: 'Kim',
    lent_at: '2026-01-01T10:00:00.000Z',
    due: null,
    returned_at: '2026-01-09T10:00:00.000Z',
  };

  it('a new lent copy is written on its own with its loans; a copy never lent goes in the batch', async () => {
    const document = doc({
      movies: [
        exportMovie({
          title: 'Heat',
          copies: [
            { binder: 'A', slot: '1', notes: null, loans: [back, out] },
            { binder: 'A', slot: '2', notes: null },
          ],
        }),
      ],
    });
    const plan = new ImportPlan({
      snapshot: snapshot(),
      now: NOW,
      items: jsonItems(document),
      doc: document,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.created, { movies: 1, editions: 0, copies: 2 });
    const { writer, writes } = recordingWriter();
    for (const op of plan.ops) await op(writer);
    const lent = writes.find((w) => w.method === 'insertLentCopy');
    assert.deepEqual(lent?.args, [
      { movie_id: 1001, edition_id: null, binder_id: 1000, slot: '1', notes: null, created_at: NOW },
      [back, out],
    ]);
    const batch = writes.find((w) => w.method === 'insertCopies');
    assert.deepEqual(
      (batch?.args[0] as { slot: string }[]).map((c) => c.slot),
      ['2'],
    );
  });

  it('a stored copy the file names gets the file’s loans merged (the writer keeps what it has)', async () => {
    const document = doc({
      movies: [
        exportMovie({
          title: 'Heat',
          year: 1995,
          copies: [{ binder: 'A', slot: '1', notes: null, loans: [out] }],
        }),
      ],
    });
    const plan = new ImportPlan({
      snapshot: heatLib(),
      now: NOW,
      items: jsonItems(document),
      doc: document,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.created, { movies: 0, editions: 0, copies: 0 });
    const { writer, writes } = recordingWriter();
    for (const op of plan.ops) await op(writer);
    assert.deepEqual(
      writes.filter((w) => w.method === 'mergeLoans').map((w) => w.args),
      [[20, [out], NOW]],
    );
    assert.deepEqual(plan.warnings, []);
  });

  it('a stored copy out already: the file’s open loan is left out, and a warning names the film, the copy and both borrowers', () => {
    const document = doc({
      movies: [
        exportMovie({
          title: 'Heat',
          year: 1995,
          copies: [{ binder: 'A', slot: '1', notes: null, loans: [back, out] }],
        }),
      ],
    });
    const stored = {
      physical_copy_id: 20,
      to: 'Alex',
      lent_at: '2026-02-01T10:00:00.000Z',
      due: null,
      returned_at: null,
    };
    const plan = new ImportPlan({
      snapshot: { ...heatLib(), extras: extras({ loans: [stored] }) },
      now: NOW,
      items: jsonItems(document),
      doc: document,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(plan.errors, []);
    assert.deepEqual(plan.warnings, [
      'Heat (1995), copy 20 (binder "A", slot 1): the loan to Sam since 2026-03-01 is not imported: ' +
        'the disc is on loan to Alex since 2026-02-01 (one loan at a time)',
    ]);
    const known = new ImportPlan({
      snapshot: { ...heatLib(), extras: extras({ loans: [{ ...out, physical_copy_id: 20 }] }) },
      now: NOW,
      items: jsonItems(document),
      doc: document,
      rootsOnDisk: new Set(),
    });
    assert.deepEqual(known.warnings, [], 'the same loan (borrower and start) is no conflict');
  });
});
