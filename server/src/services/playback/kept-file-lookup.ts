import type { ListingChange } from '../../domain/library-listing/changes.ts';
import type { LibraryFileRow } from '../../repositories/library.repository.ts';
import type { MediaFileLookup } from './artifact.service.ts';

/** Files kept at most (a library's playing files are a handful; a full cache starts again). */
const MAX_FILES = 5_000;

export interface FileWrites {
  /** Calls `listener` with the files (or everything) every write statement touched. */
  subscribe(listener: (change: ListingChange) => void): () => void;
  /** Moves when another process commits (SQLite's data_version): everything may have changed. */
  externalVersion(): number;
}

/**
 * The media file rows playback decides with (every master playlist, media playlist and segment
 * request asks `file(id)`), kept in memory: a playing film is not held behind an import's or a
 * scan's transaction, which holds the one SQLite connection until it commits. A row is forgotten as
 * soon as a write statement touches it (the listing's write observer, db/listing-writes.ts, sees
 * every statement — a touched file by id, or "everything"), and everything is forgotten when
 * another process committed. A read started before a write is not kept after it.
 */
export class KeptFileLookup implements MediaFileLookup {
  private readonly files = new Map<number, LibraryFileRow>();
  private epoch = 0;
  private seenVersion: number;

  constructor(
    private readonly source: MediaFileLookup,
    /** None (a database not opened by openDatabase): nothing is kept, every look-up reads. */
    private readonly writes: FileWrites | undefined,
  ) {
    this.seenVersion = writes?.externalVersion() ?? 0;
    writes?.subscribe((change) => this.changed(change));
  }

  private changed(change: ListingChange): void {
    if (change.all === true) {
      this.forgetAll();
      return;
    }
    if (change.files === undefined) return;
    this.epoch++;
    for (const id of change.files) this.files.delete(id);
  }

  private forgetAll(): void {
    this.epoch++;
    this.files.clear();
  }

  /** The file's row without a person's watch state (what streams decide with); others ask the database. */
  async file(id: number, userId: number | null = null): Promise<LibraryFileRow | undefined> {
    if (userId !== null || this.writes === undefined) return this.source.file(id, userId);
    const version = this.writes.externalVersion();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.forgetAll();
    }
    const kept = this.files.get(id);
    if (kept !== undefined) return kept;
    const epoch = this.epoch;
    const row = await this.source.file(id);
    if (row !== undefined && epoch === this.epoch) {
      if (this.files.size >= MAX_FILES) this.files.clear();
      this.files.set(id, row);
    }
    return row;
  }
}
