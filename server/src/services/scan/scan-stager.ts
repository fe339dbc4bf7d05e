/**
 * @module services/scan/scan-stager
 * One new or changed file of a scan into a staging row: fingerprinted, its name (and NFO) read, and
 * probed when its content is new to the library.
 */
import { type NfoInfo, type ParsedMovieName, nfoPathsFor, parseNfo } from '../../domain/scan/parse-name.ts';
import type { KnownFileRow, NewStagingRow } from '../../repositories/scan.repository.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { AnalysisService } from './analysis.service.ts';

/** Reads small text files beside the media (NFO); null when absent or unreadable. */
export interface TextReader {
  read(path: string, maxBytes: number): Promise<string | null>;
}

/** What staging needs of the analysis: whether ffprobe is there, and a probe of one file. */
export type MediaProbe = Pick<AnalysisService, 'available' | 'probe'>;

export interface StagerDeps {
  fingerprint(path: string): Promise<string>;
  analysis: MediaProbe;
  text: TextReader;
  /** The library path rule: each file is checked again before it is read. */
  paths: Pick<MediaPathService, 'resolveInsideRoot'>;
}

/** The walk of one scan, as staging reads it. */
export interface StagingContext {
  scanId: number;
  rootId: number;
  rootPath: string;
  /** Files that vanished from their known path, by fingerprint: a new path with one of these is a move. */
  vanishedByFingerprint: Map<string, KnownFileRow>;
  /** Ids of vanished files already claimed by a move in this scan. */
  claimed: Set<number>;
  now: string;
  signal: AbortSignal;
  nameOf(relativePath: string): ParsedMovieName;
}

export interface StagedFile {
  relativePath: string;
  absolutePath: string;
  sizeBytes: number;
  mtimeMs: number;
}

type Analysis = { status: string; capabilities: string | null; error: string | null } | null;

export class FileStager {
  constructor(private readonly deps: StagerDeps) {}

  /** Fingerprints, parses and (when needed) probes one new or changed file into a staging row. */
  async stage(
    ctx: StagingContext,
    file: StagedFile,
    existing: KnownFileRow | undefined,
  ): Promise<NewStagingRow> {
    // Hashed and probed at the real path the rule approves now (as a stream will be), not the walk's.
    const realPath = await this.deps.paths.resolveInsideRoot(ctx.rootPath, file.relativePath);
    const fingerprint = await this.deps.fingerprint(realPath);
    const base = {
      scan_id: ctx.scanId,
      library_root_id: ctx.rootId,
      relative_path: file.relativePath,
      size_bytes: file.sizeBytes,
      mtime_ms: file.mtimeMs,
      fingerprint,
      created_at: ctx.now,
    };
    const noParse = {
      parsed_title: null,
      parsed_year: null,
      tmdb_id: null,
      imdb_id: null,
      edition_label: null,
      match_movie_id: null,
    };
    if (existing !== undefined) {
      // Same path, new size/mtime (or back from missing): same identity, re-analysed only if the content changed.
      const sameContent = existing.fingerprint === fingerprint && existing.analysis_status !== 'not_analyzed';
      const analysis = sameContent ? null : await this.analyse(realPath, file.sizeBytes, ctx.signal);
      return { ...base, ...noParse, action: 'changed', media_file_id: existing.id, ...kept(analysis) };
    }
    const moved = ctx.vanishedByFingerprint.get(fingerprint);
    if (moved !== undefined && !ctx.claimed.has(moved.id)) {
      ctx.claimed.add(moved.id);
      const keep = moved.analysis_status !== 'not_analyzed';
      const analysis = keep ? null : await this.analyse(realPath, file.sizeBytes, ctx.signal);
      return { ...base, ...noParse, action: 'moved', media_file_id: moved.id, ...kept(analysis) };
    }
    const parsed = ctx.nameOf(file.relativePath);
    const nfo = await this.readNfo(ctx.rootPath, file.relativePath);
    const analysis = await this.analyse(realPath, file.sizeBytes, ctx.signal);
    return {
      ...base,
      action: 'new',
      media_file_id: null,
      match_movie_id: null,
      parsed_title: nfo?.title ?? (parsed.title === '' ? null : parsed.title),
      parsed_year: nfo?.year ?? parsed.year,
      tmdb_id: nfo?.tmdbId ?? parsed.tmdbId,
      imdb_id: nfo?.imdbId ?? parsed.imdbId,
      edition_label: parsed.editionLabel,
      analysis_status: analysis?.status ?? 'not_analyzed',
      capabilities_json: analysis?.capabilities ?? null,
      analysis_error: analysis?.error ?? null,
    };
  }

  private async analyse(realPath: string, sizeBytes: number, signal: AbortSignal): Promise<Analysis> {
    if (!this.deps.analysis.available) return null;
    const result = await this.deps.analysis.probe(realPath, sizeBytes, signal);
    return {
      status: result.status,
      capabilities: result.capabilities === null ? null : JSON.stringify(result.capabilities),
      error: result.error,
    };
  }

  private async readNfo(rootPath: string, relativePath: string): Promise<NfoInfo | null> {
    for (const candidate of nfoPathsFor(relativePath)) {
      // Read only where the library path rule allows (never the data dir), like the film itself.
      const real = await this.deps.paths.resolveInsideRoot(rootPath, candidate).catch(() => null);
      if (real === null) continue;
      const text = await this.deps.text.read(real, 1024 * 1024);
      if (text === null) continue;
      const parsed = parseNfo(text);
      if (parsed !== null) return parsed;
    }
    return null;
  }
}

/** The analysis columns of a changed or moved file: `keep` leaves the stored analysis as it is. */
function kept(analysis: Analysis) {
  return {
    analysis_status: analysis?.status ?? 'keep',
    capabilities_json: analysis?.capabilities ?? null,
    analysis_error: analysis?.error ?? null,
  };
}
