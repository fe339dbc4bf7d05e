import { join } from 'node:path';
import { type CheckedFile, checkedFileAt, type FileSystemAdapter } from '../../adapters/file-system.ts';
import { AppError } from '../../errors.ts';
import { isWithin } from '../../domain/path-within.ts';

/**
 * The one gate between a database path and the filesystem: a media file is opened only when its
 * real path (symlinks resolved) lies inside the real path of its library root.
 */
export class MediaPathService {
  constructor(private readonly fs: FileSystemAdapter) {}

  /**
   * The media file, checked to lie inside its library root, ready to be read (the adapter opens it
   * on read, at the real path this check approved).
   * @throws AppError file_missing (404) when it is not there, forbidden (403) when it leads out.
   */
  async openInsideRoot(rootPath: string, relativePath: string): Promise<CheckedFile> {
    // The stat goes with the two realpaths, not after them: one round through the thread pool
    // instead of two. It follows the same links to the same file; a link swapped in between is no
    // worse than one swapped after the check, and the bytes are read from the checked real path.
    const [realFile, stat] = await Promise.all([
      this.resolveInsideRoot(rootPath, relativePath),
      this.fs.stat(join(rootPath, relativePath)),
    ]);
    if (stat === null || !stat.isFile) {
      throw new AppError('file_missing', { status: 404, message: 'The media file is missing.' });
    }
    return checkedFileAt(realFile, stat.sizeBytes, stat.mtimeMs);
  }

  /**
   * The real path of a file or folder inside its library root, for a tool that takes a path
   * (ffmpeg's input) or a listing; bytes are read through {@link openInsideRoot}.
   */
  async resolveInsideRoot(rootPath: string, relativePath: string): Promise<string> {
    const [realRoot, realFile] = await Promise.all([
      this.fs.realpath(rootPath),
      this.fs.realpath(join(rootPath, relativePath)),
    ]);
    if (realRoot === null || realFile === null) {
      throw new AppError('file_missing', {
        status: 404,
        message: 'The media file is not at its recorded path.',
        hint: 'Rescan the library root.',
      });
    }
    if (!isWithin(realRoot, realFile)) {
      throw new AppError('forbidden', {
        status: 403,
        message: 'The media file resolves outside its library root and is not served.',
      });
    }
    return realFile;
  }
}
