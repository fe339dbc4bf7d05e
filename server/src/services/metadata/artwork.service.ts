import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { buffer } from 'node:stream/consumers';
import type { ArtworkJob } from '@reelshelf/contract';
import sharp from 'sharp';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { DataStore, StoredFile } from '../../adapters/data-store.ts';
import type { CheckedFile, FileSystemAdapter } from '../../adapters/file-system.ts';
import type { ImageDownloader } from '../../adapters/image-downloader.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type { JobContext, JobRunner } from '../../jobs/job-runner.ts';
import { jobProgress } from '../../domain/job-progress.ts';
import type { ArtworkKind, ArtworkRepository } from '../../repositories/artwork.repository.ts';
import type { LibraryRootRepository } from '../../repositories/library-root.repository.ts';
import { isWithin } from '../../domain/path-within.ts';
import type { MediaPathService } from '../library/media-path.service.ts';

/** Widths served by `?w=`; a request is rounded up to the next one so the cache stays small. */
export const ARTWORK_WIDTHS = [92, 154, 185, 342, 500, 780, 1280] as const;

/** Files beside the media that win over downloads (Jellyfin/Kodi names), in order of preference. */
const LOCAL_NAMES: Record<ArtworkKind, string[]> = {
  poster: ['poster.jpg', 'poster.png', 'folder.jpg', 'folder.png', 'cover.jpg'],
  backdrop: ['fanart.jpg', 'fanart.png', 'backdrop.jpg', 'backdrop.png', 'background.jpg'],
};

/** TMDb image paths look like `/kqjL17yufvn9OVLyXYpvtyrFfak.jpg`; nothing else is ever fetched. */
const TMDB_PATH = /^\/[A-Za-z0-9_-]{5,64}\.(jpg|jpeg|png|webp)$/;

export type ArtworkReport = NonNullable<ArtworkJob['report']>;

export interface ServedImage {
  /** The image, checked to lie in the artwork area or a library root (the route streams it). */
  file: CheckedFile;
  etag: string;
  lastModified: Date;
  contentType: string;
}

interface ArtworkPayload {
  movieIds: number[] | null;
}

/**
 * Where images are read and written: downloads and resized copies in the data dir's `artwork`
 * area (the storage adapter), local images beside the media (inside a library root, checked).
 */
export interface ArtworkFiles {
  store: DataStore;
  fs: FileSystemAdapter;
  paths: MediaPathService;
}

/**
 * Posters and backdrops: local files beside the media win; otherwise the TMDb images named by
 * enrichment are downloaded from the configured TMDb image base (and only from there), kept under
 * the data dir, and resized on demand with sharp (bounded widths, cached).
 */
export class ArtworkService {
  constructor(
    private readonly artworkRows: ArtworkRepository,
    /** Local images are served only from inside a library root. */
    private readonly roots: Pick<LibraryRootRepository, 'list'>,
    private readonly jobs: JobRunner,
    private readonly downloader: ImageDownloader,
    private readonly clock: Clock,
    private readonly files: ArtworkFiles,
    private readonly tmdbImageBase: string,
  ) {
    jobs.register<ArtworkPayload>('artwork', { concurrency: 1, run: (ctx) => this.run(ctx) });
  }

  /** Starts a fetch job for some movies (all when none are named). */
  async start(movieIds: number[] | null): Promise<number> {
    const { id } = await this.jobs.enqueue<ArtworkPayload>(
      'artwork',
      { movieIds },
      movieIds === null ? 'all' : null,
    );
    return id;
  }

  async wait(jobId: number): Promise<ArtworkJob> {
    const job = await this.jobs.wait(jobId);
    if (job === undefined) throw notFound('artwork job', jobId);
    return {
      id: job.id,
      status: job.status,
      progress: jobProgress(job.progress_done, job.progress_total),
      report: job.result_json === null ? null : (JSON.parse(job.result_json) as ArtworkReport),
      error: job.error,
    };
  }

  private async run(ctx: JobContext<ArtworkPayload>): Promise<ArtworkReport> {
    const repo = this.artworkRows;
    const ids = ctx.payload.movieIds ?? (await repo.movieIds());
    const report: ArtworkReport = {
      movies: ids.length,
      local: 0,
      downloaded: 0,
      failed: 0,
      unchanged: 0,
      errors: [],
    };
    let done = 0;
    ctx.progress(0, ids.length);
    for (const movieId of ids) {
      if (ctx.signal.aborted) break;
      for (const kind of ['poster', 'backdrop'] as const) {
        const outcome = await this.refresh(movieId, kind);
        if (outcome.kind === 'error') {
          report.failed++;
          report.errors.push({ movie_id: movieId, kind, error: outcome.error });
        } else report[outcome.kind]++;
      }
      ctx.progress(++done, ids.length);
    }
    return report;
  }

  /** Brings one image of one movie up to date. */
  private async refresh(
    movieId: number,
    kind: ArtworkKind,
  ): Promise<{ kind: 'local' | 'downloaded' | 'unchanged' } | { kind: 'error'; error: string }> {
    const repo = this.artworkRows;
    const now = isoNow(this.clock);
    const local = await this.localImage(movieId, kind);
    const row = await repo.get(movieId);
    if (local !== null) {
      await repo.setImage(movieId, kind, { state: 'ready', source: 'local', path: local }, now, null);
      return { kind: 'local' };
    }
    const source = row === undefined ? null : kind === 'poster' ? row.poster_source : row.backdrop_source;
    const state = row === undefined ? 'none' : kind === 'poster' ? row.poster_state : row.backdrop_state;
    const path = row === undefined ? null : kind === 'poster' ? row.poster_path : row.backdrop_path;
    if (source === null || !source.startsWith('tmdb:')) return { kind: 'unchanged' };
    if (state === 'ready' && path !== null && (await this.downloaded(path)) !== null)
      return { kind: 'unchanged' };
    const filePath = source.slice('tmdb:'.length);
    if (!TMDB_PATH.test(filePath)) {
      await repo.setImage(
        movieId,
        kind,
        { state: 'failed', source, path: null },
        now,
        'unexpected TMDb image path',
      );
      return { kind: 'error', error: 'unexpected TMDb image path' };
    }
    try {
      const image = await this.downloader.download(`${this.tmdbImageBase}/original${filePath}`);
      const name = `${movieId}/${kind}${filePath.slice(filePath.lastIndexOf('.'))}`;
      await this.files.store.writeAtomic('artwork', name, image.bytes);
      // The path as the data dir names it (not its real path), so `locate` finds it again.
      const path = this.files.store.resolve('artwork', name);
      await repo.setImage(movieId, kind, { state: 'ready', source, path }, now, null);
      return { kind: 'downloaded' };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await repo.setImage(movieId, kind, { state: 'failed', source, path: null }, now, message);
      return { kind: 'error', error: message };
    }
  }

  /** A poster/backdrop file beside one of the movie's media files, if any. */
  private async localImage(movieId: number, kind: ArtworkKind): Promise<string | null> {
    const folders = new Map<string, { root: string; folder: string }>();
    for (const f of await this.artworkRows.mediaFolders(movieId)) {
      const folder = dirname(f.relative_path);
      folders.set(join(f.root_path, folder), { root: f.root_path, folder });
    }
    for (const { root, folder } of folders.values()) {
      // The library path rule, as for the film: the folder and then the image (a link into the data
      // dir, or out of the root when links are not followed, is passed over).
      const real = await this.files.paths.resolveInsideRoot(root, folder, 'directory').catch(() => null);
      const entries = real === null ? null : await this.files.fs.list(real);
      if (real === null || entries === null) continue;
      const byLower = new Map(entries.map((e) => [e.toLowerCase(), e]));
      for (const name of LOCAL_NAMES[kind]) {
        const found = byLower.get(name);
        if (found === undefined) continue;
        const image = join(folder, found);
        if ((await this.files.paths.resolveInsideRoot(root, image).catch(() => null)) === null) continue;
        // Stored as named under the root (not its real path), so serving it finds its root and
        // checks it again by the same rule.
        return join(root, image);
      }
    }
    return null;
  }

  /** The file to serve for an image at a width (resized and cached on first request). */
  async image(movieId: number, kind: ArtworkKind, width: number | undefined): Promise<ServedImage> {
    const row = await this.artworkRows.get(movieId);
    const path = row === undefined ? null : kind === 'poster' ? row.poster_path : row.backdrop_path;
    const state = row === undefined ? 'none' : kind === 'poster' ? row.poster_state : row.backdrop_state;
    const original = state !== 'ready' || path === null ? null : await this.readable(path);
    if (original === null) {
      throw new AppError('not_found', {
        message: `Movie ${movieId} has no ${kind}.`,
        hint: 'POST /api/artwork/fetch fetches artwork.',
      });
    }
    if (width === undefined) return served(original);
    const target = ARTWORK_WIDTHS.find((w) => w >= width) ?? ARTWORK_WIDTHS[ARTWORK_WIDTHS.length - 1];
    if (width < 1 || target === undefined) throw validationFailed('w', 'must be a positive width in pixels');
    const resized = `${movieId}/${kind}-w${target}-${createHash('sha1')
      .update(path ?? '')
      .update(String(original.mtimeMs))
      .digest('hex')
      .slice(0, 8)}.jpg`;
    const cached = await this.files.store.stat('artwork', resized);
    if (cached !== null) return served(cached);
    // sharp gets the bytes read through the checked file, never a path of its own to open.
    const bytes = await sharp(await buffer(original.read()))
      .resize({ width: target, withoutEnlargement: true })
      .jpeg({ quality: 82 })
      .toBuffer();
    // Written whole then renamed: a request racing this one reads the old state or the full image.
    return served(await this.files.store.writeAtomic('artwork', resized, bytes));
  }

  /** A downloaded image (in the artwork area), or null when the path is elsewhere or gone. */
  private async downloaded(path: string): Promise<StoredFile | null> {
    const name = this.files.store.locate('artwork', path);
    return name === null ? null : this.files.store.stat('artwork', name).catch(() => null);
  }

  /**
   * The image file a stored path names, opened only where images may live: the artwork area, or a
   * library root (a local poster beside the media, checked with symlinks resolved). Null otherwise.
   */
  private async readable(path: string): Promise<CheckedFile | null> {
    const inArea = await this.downloaded(path);
    if (inArea !== null || this.files.store.locate('artwork', path) !== null) return inArea;
    const roots = await this.roots.list();
    const root = roots.find((r) => isWithin(r.path, path));
    if (root === undefined) return null;
    return this.files.paths.openInsideRoot(root.path, relative(root.path, path)).catch(() => null);
  }
}

function served(file: CheckedFile): ServedImage {
  const ext = file.path.slice(file.path.lastIndexOf('.') + 1).toLowerCase();
  return {
    file,
    etag: `"${createHash('sha1').update(`${file.path}|${file.sizeBytes}|${file.mtimeMs}`).digest('hex').slice(0, 20)}"`,
    lastModified: new Date(file.mtimeMs),
    contentType: ext === 'png' ? 'image/png' : ext === 'webp' ? 'image/webp' : 'image/jpeg',
  };
}
