import { createHash } from 'node:crypto';
import type { DataStore, StoredFile } from '../../adapters/data-store.ts';
import type { FfmpegRunOptions } from '../../adapters/ffmpeg.ts';
import type { CheckedFile } from '../../adapters/file-system.ts';
import { decodeText, TextDecodingError } from '../../adapters/text-decoding.ts';
import { strongEtag } from '../../domain/http-range.ts';
import {
  buildSubtitleExtractionArgs,
  type ExtractedStream,
  extractionFormat,
} from '../../domain/subtitles/extract-command.ts';
import type { SubtitleTrack, SubtitleTrackSource } from '../../domain/subtitles/subtitle-track.ts';
import {
  type ConvertOptions,
  SubtitleFormatError,
  subripTimings,
  toWebVtt,
} from '../../domain/subtitles/webvtt.ts';
import { AppError, notFound } from '../../errors.ts';
import type { MediaFileRepository, MediaFileRow } from '../../repositories/media-file.repository.ts';
import { readCapabilities } from './edition-presenter.ts';
import type { MediaPathService } from '../library/media-path.service.ts';

/** Raised by the cache-key version when the converter changes what it writes: old files are not served. */
const CONVERTER_VERSION = 1;
/** A sidecar larger than this is not a subtitle file (the biggest karaoke ASS files are a few MB). */
const MAX_SIDECAR_BYTES = 32 * 1024 * 1024;
/** An extraction reads the whole film once; a slow disk may take minutes, a stuck one is stopped. */
const EXTRACTION_TIMEOUT_MS = 15 * 60_000;
/** Failures remembered (per cache key) so a broken track does not rerun ffmpeg on every request. */
const MAX_REMEMBERED_FAILURES = 500;

/** The part of FfmpegAdapter this service uses. */
export interface SubtitleFfmpeg {
  run(args: string[], options?: FfmpegRunOptions): Promise<void>;
}

export interface SubtitleVttDeps {
  /** A media file with its root (`MediaFileRepository`). */
  files: Pick<MediaFileRepository, 'getWithRoot'>;
  tracks: SubtitleTrackSource;
  paths: MediaPathService;
  store: DataStore;
  ffmpeg: SubtitleFfmpeg;
  ffmpegAvailable: boolean;
}

/** A track's WebVTT file, ready to be served with its validators. */
export interface SubtitleVtt {
  file: StoredFile;
  etag: string;
  lastModified: Date;
  track: SubtitleTrack;
}

type MediaFile = MediaFileRow & { root_path: string };

const hint = {
  unreadable:
    'Replace the subtitle file (or remux the film with a good track) and rescan; the other tracks still play.',
  image:
    'Image subtitles (PGS, VobSub, DVB) cannot be sent as text: add &burn_subtitle={index} to the HLS URL (hls_url of GET /api/media-file/{id}/playback) to have them burned into the picture.',
} as const;

/**
 * The WebVTT of a media file's subtitle track: text tracks, embedded or sidecar, converted once and
 * kept in the data dir's `subtitles` area.
 *
 * Cache key (one folder per content, one file per track): the file's content key — its fingerprint,
 * so copies of the same film share it; `file-<id>-<size>-<mtime>` when it has none (a size alone is
 * shared by unrelated files) — then, for an embedded track, its stream number; for a sidecar, a hash
 * of its path and its size and mtime as read now (a sidecar edited since the last scan is converted
 * again; its older versions are removed). The converter's version is in every name.
 *
 * Embedded tracks are extracted with one ffmpeg run for all the file's text tracks (the whole film is
 * read once, not once per track). Errors: 404 for an unknown file or track, 409 `subtitle_is_image`
 * for an image track, 422 `subtitle_unreadable` for a track that is not what it says (binary, no cue,
 * an encoding or codec that cannot be read), 503 when an embedded track needs an ffmpeg this server
 * lacks.
 */
export class SubtitleVttService {
  private readonly inflight = new Map<string, Promise<StoredFile>>();
  private readonly runs = new Map<string, Promise<Map<number, Extracted | Error>>>();
  private readonly failures = new Map<string, AppError>();

  constructor(private readonly deps: SubtitleVttDeps) {}

  /**
   * @throws AppError not_found (file or track), file_missing, subtitle_is_image (409),
   *   subtitle_unreadable (422), service_unavailable (503, no ffmpeg for an embedded track)
   */
  async vtt(fileId: number, index: number): Promise<SubtitleVtt> {
    const file = await this.deps.files.getWithRoot(fileId);
    if (file === undefined) throw notFound('media file', fileId);
    if (file.status === 'missing') {
      throw new AppError('file_missing', {
        status: 404,
        message: 'The media file is missing from its library root.',
        hint: 'Rescan the library root.',
      });
    }
    const tracks = await this.deps.tracks.tracks(fileId);
    const track = tracks.find((t) => t.index === index);
    if (track === undefined) {
      throw new AppError('not_found', {
        message: `Media file ${fileId} has no subtitle track ${index} (it has ${tracks.length}).`,
        hint: `GET /api/media-file/${fileId}/playback lists its subtitle tracks with their URLs.`,
      });
    }
    if (track.kind === 'image') {
      throw new AppError('subtitle_is_image', {
        message: `Subtitle track ${index} is an image track (${track.format}): it has no text to send as WebVTT.`,
        hint: hint.image.replace('{index}', String(index)),
        extra: { index, format: track.format },
      });
    }
    const stored =
      track.source.kind === 'sidecar' ? await this.sidecar(file, track) : await this.embedded(file, track);
    const mtimeMs = Math.floor(stored.mtimeMs);
    return {
      file: stored,
      etag: strongEtag(['vtt', stored.path, stored.sizeBytes, mtimeMs]),
      lastModified: new Date(mtimeMs),
      track,
    };
  }

  private contentKey(file: MediaFile): string {
    return file.fingerprint ?? `file-${file.id}-${file.size_bytes}-${file.mtime_ms}`;
  }

  /** Serves the cached file, else converts once (concurrent requests share the work). */
  private async cached(key: string, make: () => Promise<StoredFile>): Promise<StoredFile> {
    const hit = await this.deps.store.stat('subtitles', key);
    if (hit !== null) return hit;
    const failed = this.failures.get(key);
    if (failed !== undefined) throw failed;
    let pending = this.inflight.get(key);
    if (pending === undefined) {
      pending = make()
        .catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'subtitle_unreadable') this.remember(key, err);
          throw err;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private remember(key: string, err: AppError): void {
    if (this.failures.size >= MAX_REMEMBERED_FAILURES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(key, err);
  }

  // -------------------------------------------------------------------------------------------------
  // Sidecars

  private async sidecar(file: MediaFile, track: SubtitleTrack): Promise<StoredFile> {
    if (track.source.kind !== 'sidecar') throw new Error('not a sidecar track');
    const relativePath = track.source.relativePath;
    const source = await this.deps.paths
      .openInsideRoot(file.root_path, relativePath)
      .catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'file_missing') {
          throw new AppError('file_missing', {
            status: 404,
            message: `The subtitle file ${relativePath} is not at its recorded path.`,
            hint: 'Rescan the library root.',
          });
        }
        throw err;
      });
    const folder = this.contentKey(file);
    const prefix = `x${createHash('sha256').update(relativePath).digest('hex').slice(0, 16)}-`;
    const name = `${prefix}${source.sizeBytes}-${Math.floor(source.mtimeMs)}-v${CONVERTER_VERSION}.vtt`;
    const key = `${folder}/${name}`;
    return this.cached(key, async () => {
      if (source.sizeBytes > MAX_SIDECAR_BYTES) {
        throw unreadable(
          track,
          `the file is ${Math.round(source.sizeBytes / 1024 / 1024)} MB, too large for a subtitle file`,
        );
      }
      const bytes = await readWhole(source);
      const vtt = this.convert(bytes, track.format, track, { frameRate: frameRateOf(file) });
      const stored = await this.deps.store.writeAtomic('subtitles', key, vtt);
      // Older conversions of this sidecar (it was edited since) are no longer served.
      const old = (await this.deps.store.list('subtitles', folder).catch(() => [])).filter(
        (n) => n.startsWith(prefix) && n !== name,
      );
      await Promise.all(
        old.map((n) => this.deps.store.remove('subtitles', `${folder}/${n}`).catch(() => undefined)),
      );
      return stored;
    });
  }

  /** Bytes → WebVTT text, or 422 subtitle_unreadable saying why. */
  private convert(bytes: Uint8Array, format: string, track: SubtitleTrack, options: ConvertOptions): string {
    let text: string;
    try {
      text = decodeText(bytes, { language: track.language }).text;
    } catch (err) {
      if (err instanceof TextDecodingError) throw unreadable(track, err.message);
      throw err;
    }
    try {
      return toWebVtt(text, format, options).vtt;
    } catch (err) {
      if (err instanceof SubtitleFormatError)
        throw unreadable(track, lowerFirst(err.message.replace(/\.$/, '')));
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Embedded tracks

  private embeddedKey(file: MediaFile, stream: number): string {
    return `${this.contentKey(file)}/s${stream}-v${CONVERTER_VERSION}.vtt`;
  }

  private async embedded(file: MediaFile, track: SubtitleTrack): Promise<StoredFile> {
    if (track.source.kind !== 'embedded') throw new Error('not an embedded track');
    const stream = track.source.stream;
    const key = this.embeddedKey(file, stream);
    return this.cached(key, async () => {
      if (!this.deps.ffmpegAvailable) {
        throw new AppError('service_unavailable', {
          status: 503,
          message: 'Embedded subtitles are extracted with ffmpeg, which this server does not have.',
          hint: 'Install ffmpeg (or set REELSHELF_FFMPEG); GET /api/health says which tools were found.',
        });
      }
      const tracks = await this.deps.tracks.tracks(file.id);
      const text = tracks.filter(
        (t): t is SubtitleTrack & { source: { kind: 'embedded'; stream: number } } =>
          t.source.kind === 'embedded' && t.kind === 'text',
      );
      // Every text track of the file in one read of it; the one asked for alone when that run fails.
      let outputs = await this.extract(
        file,
        text.map((t) => ({ stream: t.source.stream, codec: t.format })),
        true,
      );
      let mine = outputs.get(stream);
      if (mine instanceof Error) {
        outputs = await this.extract(file, [{ stream, codec: track.format }], false);
        mine = outputs.get(stream);
      }
      if (mine === undefined || mine instanceof Error) {
        throw unreadable(track, `ffmpeg could not extract it: ${mine?.message ?? 'no output'}`);
      }
      let result: StoredFile | null = null;
      for (const other of text) {
        const extracted = outputs.get(other.source.stream);
        if (extracted === undefined || extracted instanceof Error) continue;
        const otherKey = this.embeddedKey(file, other.source.stream);
        if (other.source.stream !== stream) {
          // Another request that shares this run stores its own track; a stored one is not
          // rewritten (a second write would change its mtime, and with it the ETag a player holds).
          if (this.inflight.has(otherKey)) continue;
          if ((await this.deps.store.stat('subtitles', otherKey)) !== null) continue;
        }
        try {
          const exactTimes =
            extracted.timings === null
              ? undefined
              : subripTimings(Buffer.from(extracted.timings).toString('latin1'));
          const vtt = this.convert(extracted.text, extractionFormat(other.format), other, {
            frameRate: frameRateOf(file),
            ...(exactTimes === undefined ? {} : { exactTimes }),
          });
          const stored = await this.deps.store.writeAtomic('subtitles', otherKey, vtt);
          if (other.source.stream === stream) result = stored;
        } catch (err) {
          if (other.source.stream === stream) throw err;
          if (err instanceof AppError) this.remember(otherKey, err);
        }
      }
      if (result === null) throw unreadable(track, 'ffmpeg wrote nothing for it');
      return result;
    });
  }

  /**
   * Runs (or joins) one extraction of these streams: each stream's text (and, for ASS, its SubRip
   * rendering for exact times), or the run's error.
   */
  private extract(
    file: MediaFile,
    streams: ExtractedStream[],
    timings: boolean,
  ): Promise<Map<number, Extracted | Error>> {
    const runKey = `${file.id}|${streams.map((s) => s.stream).join(',')}|${timings}`;
    let run = this.runs.get(runKey);
    if (run === undefined) {
      run = (async () => {
        const source = await this.deps.paths.resolveInsideRoot(file.root_path, file.relative_path);
        const command = buildSubtitleExtractionArgs(source, streams, { timings });
        const chunks = command.outputs.map(() => [] as Buffer[]);
        const outputs = new Map<number, Extracted | Error>();
        try {
          await this.deps.ffmpeg.run(command.args, {
            outputs: command.outputs.length,
            onOutput: (n, chunk) => chunks[n]?.push(chunk),
            signal: AbortSignal.timeout(EXTRACTION_TIMEOUT_MS),
          });
          command.outputs.forEach((output, n) => {
            const bytes = Buffer.concat(chunks[n] ?? []);
            const entry = outputs.get(output.stream);
            const current =
              entry instanceof Error || entry === undefined
                ? { text: new Uint8Array(), timings: null }
                : entry;
            outputs.set(
              output.stream,
              output.role === 'text' ? { ...current, text: bytes } : { ...current, timings: bytes },
            );
          });
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          if (error.name === 'TimeoutError') {
            throw new AppError('service_unavailable', {
              status: 503,
              message: `Extracting the subtitles took longer than ${EXTRACTION_TIMEOUT_MS / 60_000} minutes and was stopped.`,
              hint: 'Try again; a film on a slow or sleeping disk is read faster the second time.',
              headers: { 'retry-after': '30' },
            });
          }
          for (const s of streams) outputs.set(s.stream, error);
        }
        return outputs;
      })().finally(() => this.runs.delete(runKey));
      this.runs.set(runKey, run);
    }
    return run;
  }
}

/** One stream out of an extraction run. */
interface Extracted {
  text: Uint8Array;
  /** For ASS: the SubRip rendering of the same stream, for its millisecond times. */
  timings: Uint8Array | null;
}

function unreadable(track: SubtitleTrack, why: string): AppError {
  const what =
    track.source.kind === 'sidecar'
      ? `The subtitle file ${track.source.relativePath}`
      : `Subtitle track ${track.index}`;
  return new AppError('subtitle_unreadable', {
    message: `${what} cannot be read as ${formatLabel(track.format)}: ${why}.`,
    hint: hint.unreadable,
    extra: { index: track.index, format: track.format },
  });
}

function formatLabel(format: string): string {
  const labels: Record<string, string> = {
    srt: 'SubRip',
    ass: 'ASS',
    ssa: 'SSA',
    webvtt: 'WebVTT',
    microdvd: 'MicroDVD',
    mov_text: 'MP4 timed text',
  };
  return labels[format] ?? `${format} subtitles`;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The video's frame rate (for MicroDVD, whose times are frames); null when unknown. */
function frameRateOf(file: MediaFile): number | null {
  return readCapabilities(file.capabilities_json)?.video?.frame_rate ?? null;
}

/** The whole of a (small, checked) file. */
async function readWhole(file: CheckedFile): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of file.read()) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > MAX_SIDECAR_BYTES) break;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
