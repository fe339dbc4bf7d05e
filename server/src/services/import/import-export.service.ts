import type { ExportFormat, ImportResult } from '@reelshelf/contract';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { FileSystemAdapter } from '../../adapters/file-system.ts';
import {
  type ExportCopy,
  type ExportLoan,
  type ExportMovie,
  type LibraryExport,
  type RowError,
  csvRowsFromExport,
  groupImportRows,
  parseCollectionCsv,
  renderCollectionCsv,
  renderLibraryExport,
  validateLibraryExport,
} from '../../domain/import-export/index.ts';
import {
  barcodeKey,
  type InMovie,
  itemsFromDocument,
  itemsFromGroups,
} from '../../domain/import-export/import-items.ts';
import { ImportPlan } from '../../domain/import-export/import-plan.ts';
import type { ImportWriter } from '../../domain/import-export/import-writer.ts';
import type { CopyRow, LibraryReads } from '../../domain/import-export/library-rows.ts';
import { DEFAULT_SLOTS_PER_PAGE } from '../../domain/binders.ts';
import { parseGenres } from '../../domain/genres.ts';
import { AppError } from '../../errors.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import type { NewMovieMetadata } from '../metadata/new-movie-metadata.ts';
import { applyPlan } from './import-apply.ts';
import { loadSnapshot, rootsOnDisk } from './import-input.ts';
import {
  planImportWishes,
  type WishImportPort,
  wishesFromCsv,
  wishesFromDocument,
  wishReport,
  writeImportWishes,
} from './import-wishes.ts';
import type { InWish, WishPlan } from '../../domain/wishes.ts';
import { renderLetterboxdCsv, type WatchedFilm } from '../../domain/import-export/letterboxd-export.ts';
import {
  type CertificationFilter,
  type ContentLimit,
  certificationFilter,
} from '../../domain/people/visibility.ts';

export interface ImportOptions {
  /** Check and count only; nothing is written. */
  dryRun?: boolean;
  /** Called while the writes run (done of total); a promise it returns is awaited (the CLI, tests). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
  /** Called with the id of the `import` job once it exists (writes only: a dry run is no job). */
  onJob?: (jobId: number) => void;
  /** The importing person: a JSON document's watch state becomes theirs (none: the first admin's). */
  userId?: number;
  /** `wishes`: every CSV row is a wish (`?into=wishes`, a Letterboxd watchlist.csv). */
  into?: 'library' | 'wishes';
}

/** Runs an import's writes as a job (listed at GET /api/jobs with progress); the JobRunner does. */
export interface ImportJobs {
  track<T>(
    name: 'import',
    summary: unknown,
    run: (ctx: { progress(done: number, total: number): void }) => Promise<T>,
    onStart?: (jobId: number) => void,
  ): Promise<T>;
}

/** What an import reads and writes in the one transaction its plan is made and written in. */
export interface ImportTransaction {
  reads: LibraryReads;
  writer: ImportWriter;
  /** The wish list, in the import's transaction (none: the import leaves wishes alone). */
  wishes?: WishImportPort;
}

export interface ImportExportDeps {
  /** Whole-library reads outside a transaction (a dry run, the export). */
  reads: LibraryReads;
  /** The wish list outside a transaction (a dry run, the export). */
  wishes?: Pick<WishImportPort, 'list' | 'ownedFilms'>;
  /** The transaction a plan is made and written in. */
  store: UnitOfWork<ImportTransaction>;
  clock: Clock;
  /** Reads whether the library roots a JSON document names exist here (a warning when not). */
  fs: Pick<FileSystemAdapter, 'stat'>;
  /** New movies are handed on for enrichment (and artwork after it) once the import committed. */
  newMovies?: Pick<NewMovieMetadata, 'queue'>;
  /** Imports that write run as `import` jobs, one at a time, reporting progress; none: run inline. */
  jobs?: ImportJobs | null;
  /** What a person watched, through their visibility rule (the Letterboxd export). */
  watched?: { watched(userId: number | null, filter: CertificationFilter | null): Promise<WatchedFilm[]> };
  /** REELSHELF_CERTIFICATION_COUNTRY: the system a person's content limit is in. */
  country?: string;
}

/** A rendered export: the bytes and how to serve them. */
export interface RenderedExport {
  body: string;
  contentType: string;
  filename: string;
}

/** 400 import_invalid: every bad row, nothing written. */
export function importInvalid(rows: RowError[], warnings: string[]): AppError {
  const lines = new Set(rows.map((r) => r.row)).size;
  return new AppError('import_invalid', {
    status: 400,
    message:
      rows.length === 1
        ? 'The file has a problem; nothing was imported.'
        : `The file has ${rows.length} problems on ${lines} row${lines === 1 ? '' : 's'}; nothing was imported.`,
    hint: 'Fix the rows listed in `rows` (row = line of the file, the header being line 1; for JSON the movie item) and import again.',
    extra: { rows, warnings },
  });
}

/** True when a file of unknown kind starts like a JSON object (after an optional BOM and spaces). */
export function looksLikeJson(bytes: Buffer): boolean {
  return /^(\uFEFF)?\s*\{/.test(bytes.subarray(0, 64).toString());
}

/**
 * Import (CSV of a collection, or our JSON export) and export of the whole library. Imports are
 * checked completely before anything is written and then written in one transaction: all or nothing.
 */
export class ImportExportService {
  private readonly jobs: ImportJobs | null;

  constructor(private readonly deps: ImportExportDeps) {
    this.jobs = deps.jobs ?? null;
  }

  /** A collection CSV (our export, CLZ Movies, Letterboxd, DVD Profiler-style sheets…). */
  async importCsv(bytes: Buffer, options: ImportOptions = {}): Promise<ImportResult> {
    const parsed = parseCollectionCsv(bytes, { allWishes: options.into === 'wishes' });
    if (!parsed.ok) throw importInvalid(parsed.errors, parsed.warnings);
    const items = itemsFromGroups(groupImportRows(parsed.rows));
    return this.run(items, null, parsed.warnings, options, wishesFromCsv(parsed.wishes));
  }

  /** Our JSON export (format_version 1), already parsed. */
  async importJson(value: unknown, options: ImportOptions = {}): Promise<ImportResult> {
    if (options.into === 'wishes') {
      // However the JSON came (a body, an upload of any name, the CLI): a document is a library.
      throw new AppError('validation_failed', {
        message:
          'into=wishes takes a CSV (a Letterboxd watchlist.csv, a CLZ export); a JSON export carries its own wishes.',
        extra: { field: 'into' },
      });
    }
    const checked = validateLibraryExport(value);
    if (!checked.ok) throw importInvalid(checked.errors, []);
    const wishes = wishesFromDocument(checked.value);
    return this.run(itemsFromDocument(checked.value), checked.value, [], options, wishes);
  }

  /**
   * A file of either kind (an upload, the CLI): JSON when `kind` says so, or when no kind is given and
   * the text starts with `{`; CSV otherwise.
   */
  async importFile(bytes: Buffer, kind: 'csv' | 'json' | null, options: ImportOptions = {}) {
    const json = kind === 'json' || (kind === null && looksLikeJson(bytes));
    if (!json) return this.importCsv(bytes, options);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
    } catch (err) {
      throw importInvalid(
        [
          {
            row: 0,
            field: 'file',
            message: `not valid JSON (${err instanceof Error ? err.message : String(err)})`,
          },
        ],
        [],
      );
    }
    return this.importJson(value, options);
  }

  private async run(
    items: InMovie[],
    doc: LibraryExport | null,
    warnings: string[],
    options: ImportOptions,
    wishRows: InWish[],
  ): Promise<ImportResult> {
    const now = isoNow(this.deps.clock);
    const wishPlan = (port: Parameters<typeof planImportWishes>[0]) =>
      planImportWishes(port, items, wishRows, now, doc !== null);
    const report = (p: ImportPlan, w: WishPlan | null, dryRun: boolean) => ({
      ...result(p, dryRun, [...warnings, ...(w?.warnings ?? [])]),
      ...wishReport(w, wishRows),
    });
    // Read: the folders first (the filesystem is no part of the transaction), the library inside it.
    const onDisk = await rootsOnDisk(this.deps.fs, doc);
    const plan = async (reads: LibraryReads) => {
      const userId = options.userId ?? null;
      const snapshot = await loadSnapshot(reads, doc !== null, userId);
      const p = new ImportPlan({ snapshot, now, items, doc, rootsOnDisk: onDisk, userId });
      if (p.errors.length > 0) {
        throw importInvalid(
          p.errors.sort((a, b) => a.row - b.row),
          [...warnings, ...p.warnings],
        );
      }
      return p;
    };
    if (options.dryRun === true) {
      return report(await plan(this.deps.reads), await wishPlan(this.deps.wishes), true);
    }
    // Planned and written in one transaction: nothing can change the library between the two.
    const write = (progress: (done: number, total: number) => void | Promise<void>) =>
      this.deps.store.transaction(async (trx) => {
        const p = await plan(trx.reads);
        const w = await wishPlan(trx.wishes);
        await progress(0, p.ops.length);
        await applyPlan(p.ops, trx.writer, progress);
        await writeImportWishes(trx.wishes, w);
        return { created: p.newMovies.map((r) => r.value), result: report(p, w, false) };
      });
    const onProgress = (done: number, total: number) => options.onProgress?.(done, total);
    const done =
      this.jobs === null
        ? await write(onProgress)
        : await this.jobs.track(
            'import',
            { movies: items.length, json: doc !== null },
            (ctx) =>
              write((d, t) => {
                ctx.progress(d, t);
                return onProgress(d, t);
              }),
            options.onJob,
          );
    if (done.created.length > 0) {
      // An imported movie has no files or TMDb images before enrichment: no artwork fetch without it.
      await this.deps.newMovies
        ?.queue(done.created, { artworkWithoutEnrichment: false })
        .catch(() => undefined);
    }
    return done.result;
  }

  /**
   * The whole library as one document (stable order, no ids or timestamps), with the watch state of
   * `userId` (the exporting person; none: the first admin's).
   */
  async buildExport(userId: number | null = null): Promise<LibraryExport> {
    const s = await loadSnapshot(this.deps.reads, true, userId);
    const x = s.extras;
    if (x === null) throw new Error('export: snapshot without extras');
    const group = <T extends { movie_id: number | null }>(rows: readonly T[]) => {
      const map = new Map<number, T[]>();
      for (const r of rows) {
        if (r.movie_id === null) continue;
        const list = map.get(r.movie_id);
        if (list === undefined) map.set(r.movie_id, [r]);
        else list.push(r);
      }
      return map;
    };
    const binderNames = new Map(s.binders.map((b) => [b.id, b.name]));
    const editions = group(s.editions);
    const copies = group(s.copies);
    const files = group(x.mediaFiles);
    const ratings = group(x.ratings);
    const credits = group(x.credits);
    const studios = group(x.movieStudios);
    const watch = new Map(x.watch.map((w) => [w.media_file_id, w]));
    const artwork = new Map(x.artwork.map((a) => [a.movie_id, a]));
    const loans = new Map<number, ExportLoan[]>();
    for (const { physical_copy_id: id, ...loan } of x.loans) loans.set(id, [...(loans.get(id) ?? []), loan]);
    const copy = (c: CopyRow): ExportCopy => {
      const lent = loans.get(c.id);
      return {
        binder: c.binder,
        slot: c.slot,
        notes: c.notes,
        ...(lent === undefined ? {} : { loans: lent }),
      };
    };
    const wishes = (await this.deps.wishes?.list()) ?? [];

    const movies = s.movies.map((m): ExportMovie => {
      const eds = editions.get(m.id) ?? [];
      const index = new Map(eds.map((e, i) => [e.id, i]));
      const own = copies.get(m.id) ?? [];
      const people = credits.get(m.id) ?? [];
      const art = artwork.get(m.id);
      return {
        title: m.title,
        original_title: m.original_title,
        year: m.year,
        overview: m.overview,
        tagline: m.tagline,
        runtime_minutes: m.runtime_minutes,
        tmdb_id: m.tmdb_id,
        imdb_id: m.imdb_id,
        genres: parseGenres(m.genres_json),
        tmdb_collection:
          m.tmdb_collection_id === null ? null : { id: m.tmdb_collection_id, name: m.tmdb_collection_name },
        binder: m.binder_id === null ? null : (binderNames.get(m.binder_id) ?? null),
        has_digital_store_a: m.has_digital_store_a === 1,
        has_digital_store_b: m.has_digital_store_b === 1,
        watched: m.watched === 1,
        ratings: (ratings.get(m.id) ?? []).map((r) => ({ source: r.source, value: r.value })),
        directors: people.filter((p) => p.kind === 'director').map((p) => p.name),
        cast: people.filter((p) => p.kind === 'cast').map((p) => p.name),
        studios: (studios.get(m.id) ?? []).map((r) => r.name),
        artwork:
          art === undefined
            ? null
            : {
                poster: { state: art.poster_state, source: art.poster_source },
                backdrop: { state: art.backdrop_state, source: art.backdrop_source },
              },
        editions: eds.map((e) => ({
          label: e.label,
          format: e.format,
          barcode: e.barcode === null ? null : barcodeKey(e.barcode),
          region: e.region,
          copies: own.filter((c) => c.edition_id === e.id).map(copy),
        })),
        copies: own.filter((c) => c.edition_id === null || !index.has(c.edition_id)).map(copy),
        media_files: (files.get(m.id) ?? []).map((f) => {
          const w = watch.get(f.id);
          return {
            root: f.root_path,
            relative_path: f.relative_path,
            fingerprint: f.fingerprint,
            size_bytes: f.size_bytes,
            edition_label: f.edition_label,
            edition_index: f.edition_id === null ? null : (index.get(f.edition_id) ?? null),
            watch:
              w === undefined ? null : { position_seconds: w.position_seconds, watched: w.watched === 1 },
          };
        }),
      };
    });
    return {
      format_version: 1,
      movies,
      collections: x.collections.map((c) => ({ name: c.name })),
      library_roots: x.roots.map((r) => ({ path: r.path, name: r.name, collection: r.collection })),
      binders: s.binders.map((b) => ({
        name: b.name,
        capacity: b.capacity,
        ...(b.slots_per_page === DEFAULT_SLOTS_PER_PAGE ? {} : { slots_per_page: b.slots_per_page }),
      })),
      // Only when there are some: the exports of a library without wishes keep their bytes.
      ...(wishes.length === 0
        ? {}
        : {
            wishes: wishes.map((w) => ({ title: w.title, year: w.year, tmdb_id: w.tmdb_id, note: w.note })),
          }),
    };
  }

  /**
   * The export rendered as JSON (the restorable document), as a collection CSV, or as the CSV of what
   * the person watched for Letterboxd's importer (through their content limit).
   */
  async export(
    format: ExportFormat,
    userId: number | null = null,
    limit: ContentLimit | null = null,
  ): Promise<RenderedExport> {
    if (format === 'letterboxd') {
      const filter = certificationFilter(this.deps.country ?? 'US', limit);
      return {
        body: renderLetterboxdCsv((await this.deps.watched?.watched(userId, filter)) ?? []),
        contentType: 'text/csv; charset=utf-8',
        filename: 'reelshelf-letterboxd.csv',
      };
    }
    const doc = await this.buildExport(userId);
    if (format === 'csv') {
      return {
        body: renderCollectionCsv(csvRowsFromExport(doc)),
        contentType: 'text/csv; charset=utf-8',
        filename: 'reelshelf-export.csv',
      };
    }
    return {
      body: renderLibraryExport(doc),
      contentType: 'application/json; charset=utf-8',
      filename: 'reelshelf-export.json',
    };
  }
}

function result(plan: ImportPlan, dryRun: boolean, warnings: string[]): ImportResult {
  return {
    dry_run: dryRun,
    created: { ...plan.created },
    updated: { movies: plan.updated },
    unchanged: { movies: plan.unchanged },
    warnings: [...warnings, ...plan.warnings],
  };
}
