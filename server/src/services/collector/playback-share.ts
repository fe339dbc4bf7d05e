import type { StatsDeviceShare } from '@reelshelf/contract';
import type { PlaybackPrediction, PlaybackStatusCode } from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profiles.ts';
import { SHARE_CLASSES, emptyCounts, shareClass } from '../../domain/stats/playback-share.ts';
import type { ChangeSummary } from '../../domain/library-listing/changes.ts';
import type { LibraryFileRow, MovieScope } from '../../repositories/library.repository.ts';

/** The file rows the library lists (the same reader, so the same decision inputs). */
export interface ShareFiles {
  files(scope: MovieScope, userId: number): Promise<LibraryFileRow[]>;
  filesById(ids: readonly number[], userId: number): Promise<LibraryFileRow[]>;
}

/** The library's one playback decision for a file on a device (PlaybackEditionPresenter.decide). */
export type DecideFile = (
  file: LibraryFileRow,
  profile: DeviceProfile,
) => { decision: { prediction: PlaybackPrediction; statusCode: PlaybackStatusCode } };

/** What moves when anything the listing shows (files, films, ready artifacts) changes. */
export interface ShareGeneration {
  current(): { boot: string; generation: number };
  since(base: number, generation: number, user?: number): ChangeSummary;
}

/** One device's counts (the API's shape, contract/src/api.ts). */
export type DeviceShare = StatsDeviceShare;

/** Files decided between two yields to the event loop (~30 ms at six devices). */
const DECIDE_SLICE = 250;

interface Entry {
  movieId: number | null;
  /** One class per device, in the devices' order, as its index in SHARE_CLASSES (counted by index: fast). */
  classes: Uint8Array;
}

/**
 * Playback share per device (issue 27 item 6): each present file's class per device profile, from the
 * library's own decision, kept per library generation. Deciding is ~20 µs a file and device (60,000
 * decisions at 10,000 files and six devices: over a second), so the classes are kept and a change
 * re-decides only the files and films the generation's log names, as the listing does; a request
 * after no change only counts (through the viewer's visible films).
 */
export class PlaybackShareIndex {
  private entries = new Map<number, Entry>();
  private at: { boot: string; generation: number } | null = null;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      files: ShareFiles;
      decide: DecideFile;
      devices: () => readonly DeviceProfile[];
      generation: ShareGeneration;
    },
  ) {}

  /**
   * Counts per device over the present files the viewer sees: films in `visible` (null: every film),
   * and files matched to no film when `unmatched`.
   */
  async share(visible: ReadonlySet<number> | null, unmatched: boolean): Promise<DeviceShare[]> {
    await this.fresh();
    const devices = this.deps.devices();
    const width = SHARE_CLASSES.length;
    const tally = new Int32Array(devices.length * width);
    for (const entry of this.entries.values()) {
      if (entry.movieId === null ? !unmatched : visible !== null && !visible.has(entry.movieId)) continue;
      const { classes } = entry;
      for (let d = 0; d < classes.length; d++) {
        const at = d * width + (classes[d] ?? 0);
        tally[at] = (tally[at] ?? 0) + 1;
      }
    }
    return devices.map((p, d) => {
      const counts = emptyCounts();
      SHARE_CLASSES.forEach((cls, k) => (counts[cls] = tally[d * width + k] ?? 0));
      return { device: p.id, name: p.name, counts };
    });
  }

  /** Brings the classes up to the current generation (one refresh at a time). */
  private async fresh(): Promise<void> {
    for (;;) {
      if (this.pending !== null) {
        await this.pending;
        continue;
      }
      const now = this.deps.generation.current();
      if (this.at !== null && this.at.boot === now.boot && this.at.generation === now.generation) return;
      this.pending = this.refresh(now).finally(() => {
        this.pending = null;
      });
    }
  }

  private async refresh(now: { boot: string; generation: number }): Promise<void> {
    const summary: ChangeSummary =
      this.at === null || this.at.boot !== now.boot
        ? { all: true }
        : // User 0 is no one: one person's watch state changes no file's playback.
          this.deps.generation.since(this.at.generation, now.generation, 0);
    if (summary.all) {
      const next = new Map<number, Entry>();
      await this.putAll(next, await this.deps.files.files(undefined, 0));
      this.entries = next;
    } else {
      const fileIds = [...summary.files];
      const movieIds = [...summary.movies];
      const rows = [
        ...(fileIds.length === 0 ? [] : await this.deps.files.filesById(fileIds, 0)),
        ...(movieIds.length === 0 ? [] : await this.deps.files.files(movieIds, 0)),
      ];
      // A named file or a file of a named film that is not read again is gone (or moved to another film).
      const movies = new Set(movieIds);
      for (const id of fileIds) this.entries.delete(id);
      for (const [id, e] of this.entries)
        if (e.movieId !== null && movies.has(e.movieId)) this.entries.delete(id);
      await this.putAll(this.entries, rows);
    }
    this.at = now;
  }

  /**
   * Decides the files a slice at a time, letting other requests run between slices: a full build
   * at 10,000 files is about a second of deciding, which must not hold a stream's next read.
   */
  private async putAll(into: Map<number, Entry>, files: readonly LibraryFileRow[]): Promise<void> {
    for (let i = 0; i < files.length; i++) {
      if (i > 0 && i % DECIDE_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      this.put(into, files[i] as LibraryFileRow);
    }
  }

  private put(into: Map<number, Entry>, file: LibraryFileRow): void {
    into.delete(file.id);
    if (file.status !== 'present') return;
    const classes = Uint8Array.from(this.deps.devices(), (p) =>
      SHARE_CLASSES.indexOf(shareClass(this.deps.decide(file, p).decision)),
    );
    into.set(file.id, { movieId: file.movie_id, classes });
  }
}
