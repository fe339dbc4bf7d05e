import { join, resolve } from 'node:path';
import { type CheckedFile, checkedFileAt, type FileSystemAdapter } from '../../adapters/file-system.ts';
import { type LibraryPathReason, decideLibraryPath, describeLibraryPath } from '../../domain/library-path.ts';
import { AppError } from '../../errors.ts';

/** The symlink rule's settings (domain/library-path.ts). */
export interface LibraryPathRule {
  /** REELSHELF_FOLLOW_SYMLINKS: links out of a root are followed (on) or refused (off). */
  followSymlinks: boolean;
  /** REELSHELF_DATA_DIR: never reached through a root, whatever the setting. */
  dataDir: string;
}

/** Reasons that mean "nothing usable there" (404) rather than "there, and refused" (403). */
const NOT_THERE: ReadonlySet<LibraryPathReason> = new Set([
  'missing',
  'dangling_symlink',
  'symlink_loop',
  'wrong_kind',
]);

/**
 * The one gate between a database path and the filesystem: a media file (a subtitle, an image
 * beside the media) is opened only when the library path rule allows it — inside the real path of
 * its library root, or a symlink out of it followed by the setting, never the data dir, never
 * anything but a regular file or folder.
 */
export class MediaPathService {
  private realDataDir: Promise<string> | undefined;

  constructor(
    private readonly fs: FileSystemAdapter,
    readonly rule: LibraryPathRule,
  ) {}

  /**
   * The media file, checked by the rule, ready to be read (the adapter opens it on read, at the real
   * path this check approved).
   * @throws AppError file_missing (404) when it is not there (or a dangling link, a loop),
   *   forbidden (403, with `reason`) when the rule refuses it.
   */
  async openInsideRoot(rootPath: string, relativePath: string): Promise<CheckedFile> {
    const found = await this.check(rootPath, relativePath, 'file');
    return checkedFileAt(found.realPath, found.sizeBytes, found.mtimeMs);
  }

  /**
   * The real path of a file (or, with `expected` 'directory', a folder) the rule allows, for a tool
   * that takes a path (ffmpeg's input, a fingerprint) or a listing; bytes are read through
   * {@link openInsideRoot}.
   */
  async resolveInsideRoot(
    rootPath: string,
    relativePath: string,
    expected: 'file' | 'directory' = 'file',
  ): Promise<string> {
    return (await this.check(rootPath, relativePath, expected)).realPath;
  }

  private async check(
    rootPath: string,
    relativePath: string,
    expected: 'file' | 'directory',
  ): Promise<{ realPath: string; sizeBytes: number; mtimeMs: number }> {
    // The root's realpath and the file's realpath + stat in one round through the thread pool.
    const [realRoot, target, realDataDir] = await Promise.all([
      this.fs.realpath(rootPath),
      this.fs.facts(join(rootPath, relativePath)),
      (this.realDataDir ??= this.fs.realpath(this.rule.dataDir).then((p) => p ?? resolve(this.rule.dataDir))),
    ]);
    if (realRoot === null) {
      throw new AppError('file_missing', {
        status: 404,
        message: 'The library root of this file is not there (is the disk mounted?).',
        hint: 'Rescan the library root.',
      });
    }
    const decision = decideLibraryPath({
      relativePath,
      target,
      expected,
      realRoot,
      realDataDir,
      followSymlinks: this.rule.followSymlinks,
    });
    if (decision.allowed && decision.realPath !== null) {
      return { realPath: decision.realPath, sizeBytes: target.sizeBytes ?? 0, mtimeMs: target.mtimeMs ?? 0 };
    }
    if (NOT_THERE.has(decision.reason)) {
      throw new AppError('file_missing', {
        status: 404,
        message: `The file is not at its recorded path (${describeLibraryPath(decision.reason)}).`,
        hint: 'Rescan the library root.',
        extra: { reason: decision.reason },
      });
    }
    throw new AppError('forbidden', {
      status: 403,
      message: `The file is not served: ${describeLibraryPath(decision.reason)}.`,
      extra: { reason: decision.reason },
    });
  }
}
