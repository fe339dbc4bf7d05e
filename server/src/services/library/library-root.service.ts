import type { CollectionView, LibraryRootView } from '@reelshelf/contract';
import { basename, isAbsolute, normalize } from 'node:path';
import { isWithin } from '../../domain/path-within.ts';
import { type Clock, isoNow } from '../../adapters/clock.ts';
import type { FileSystemAdapter } from '../../adapters/file-system.ts';
import type { UnitOfWork } from '../../repositories/unit-of-work.ts';
import { AppError, notFound, validationFailed } from '../../errors.ts';
import type {
  LibraryRootRepository,
  RootWithCollection,
} from '../../repositories/library-root.repository.ts';

function toView(r: RootWithCollection): LibraryRootView {
  return {
    id: r.id,
    path: r.path,
    name: r.name,
    collection: r.collection,
    file_count: r.file_count,
    created_at: r.created_at,
    last_scan_at: r.last_scan_at,
  };
}

/** Library roots: folders the scanner walks; grouped into collections. */
export class LibraryRootService {
  constructor(
    private readonly roots: LibraryRootRepository,
    /** Registering a root (and its collection) is one transaction. */
    private readonly store: UnitOfWork<LibraryRootRepository>,
    private readonly fs: FileSystemAdapter,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<LibraryRootView[]> {
    return (await this.roots.list()).map(toView);
  }

  async get(id: number): Promise<LibraryRootView> {
    const root = await this.roots.get(id);
    if (root === undefined) throw notFound('library root', id);
    return toView(root);
  }

  /** Finds the root holding `path` (exact), if registered. */
  async findByPath(path: string): Promise<LibraryRootView | undefined> {
    const real = (await this.fs.realpath(path)) ?? normalize(path);
    return (await this.list()).find((r) => r.path === real);
  }

  /**
   * Registers a folder: absolute, existing, a directory, and neither inside nor around another root
   * (a file must belong to exactly one root). The stored path is the real path (symlinks resolved).
   */
  async create(input: { path: string; name?: string; collection?: string }): Promise<LibraryRootView> {
    if (!isAbsolute(input.path)) {
      throw validationFailed(
        'path',
        'must be an absolute path',
        'Give the full path, e.g. /srv/media/movies.',
      );
    }
    const stat = await this.fs.stat(input.path);
    if (stat === null) {
      throw validationFailed(
        'path',
        `${input.path} does not exist`,
        'Mount the disk or create the folder first.',
      );
    }
    if (!stat.isDirectory) throw validationFailed('path', `${input.path} is a file, not a folder`);
    const real = (await this.fs.realpath(input.path)) ?? normalize(input.path);
    const repo = this.roots;
    for (const other of await repo.list()) {
      if (other.path === real) {
        throw new AppError('root_exists', {
          status: 409,
          message: `${real} is already library root ${other.id}.`,
          extra: { root_id: other.id },
        });
      }
      if (isWithin(other.path, real) || isWithin(real, other.path)) {
        throw new AppError('root_overlaps', {
          status: 409,
          message: `${real} overlaps library root ${other.id} (${other.path}).`,
          hint: 'A folder may belong to one root only: register the outer folder, or remove the other root.',
          extra: { root_id: other.id },
        });
      }
    }
    const now = isoNow(this.clock);
    const id = await this.store.transaction(async (r) => {
      const collectionId =
        input.collection === undefined ? null : await r.getOrCreateCollection(input.collection.trim(), now);
      return r.insert({
        path: real,
        name: input.name?.trim() || basename(real) || real,
        collection_id: collectionId,
        created_at: now,
      });
    });
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    if (!(await this.roots.delete(id))) throw notFound('library root', id);
  }

  async listCollections(): Promise<CollectionView[]> {
    return this.roots.listCollections();
  }
}
