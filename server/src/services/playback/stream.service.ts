import { extname } from 'node:path';
import type { DataStore, GrowingFile } from '../../adapters/data-store.ts';
import type { CheckedFile } from '../../adapters/file-system.ts';
import type { CredentialKind, TokenHolder } from '../../domain/playback-token.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import { contentTypeFor, strongEtag } from '../../domain/http-range.ts';
import { AppError } from '../../errors.ts';
import type { ArtifactService } from './artifact.service.ts';
import type { DeviceProfileService } from './device-profile.service.ts';
import type { PlaybackEditionPresenter } from './edition-presenter.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { PlaybackTokenService } from './playback-token.service.ts';

export type StreamTarget =
  | {
      kind: 'file';
      /** The bytes, checked to lie inside their library root or the artifacts area. */
      file: CheckedFile;
      lastModified: Date;
      etag: string;
      contentType: string;
      artifactKey: string | null;
    }
  | {
      kind: 'growing';
      /** The artifact ffmpeg is writing, read through the storage adapter. */
      file: GrowingFile;
      /**
       * Once the build has ended: the size of the finished artifact, or null when the build left none
       * (failed or cancelled). It starts nothing, unlike asking for the target again.
       */
      finishedSize: () => Promise<number | null>;
      jobId: number;
      /** The epoch of the build's run whose part this follows (a take-over writes another part). */
      epoch: number;
      contentType: string;
      artifactKey: string;
    };

const TOKEN_MESSAGES = {
  missing: 'A playback token is required.',
  malformed: 'The playback token is malformed.',
  forged: 'The playback token is not valid for this file and device.',
  expired: 'The playback token has expired.',
  outdated: 'The playback token is of an older format (before people).',
  stopped: 'An admin stopped this play.',
  revoked: 'The session or key this playback token was made from has ended (signed out, revoked or expired).',
} as const;

function refused(why: keyof typeof TOKEN_MESSAGES): AppError {
  return new AppError('unauthorized', {
    message: TOKEN_MESSAGES[why],
    hint:
      why === 'revoked' || why === 'stopped'
        ? 'Sign in again (or ask an admin), then open the film from the library for a fresh URL.'
        : 'Use the stream_url of the edition from GET /library (it carries a fresh token).',
    extra: { reason: why },
  });
}

/**
 * Whether a playback token's session or key still holds for its person (AuthenticationService: from
 * memory, so a stream is not held behind a write transaction; ended on the very next request).
 */
export interface CredentialCheck {
  isLive(kind: CredentialKind, id: number | null, userId: number): Promise<boolean>;
}

/** Decides what GET /stream/media_file/{id} serves: the file, a finished artifact, or a growing one. */
export class StreamService {
  constructor(
    private readonly tokens: PlaybackTokenService,
    private readonly devices: DeviceProfileService,
    private readonly editions: PlaybackEditionPresenter,
    private readonly artifacts: ArtifactService,
    private readonly paths: MediaPathService,
    private readonly store: DataStore,
    private readonly credentials: CredentialCheck,
    private readonly visibility: Pick<VisibilityService, 'assertVisibleToUser'> | null = null,
  ) {}

  /**
   * Checks the playback token (or a bearer the auth hook already accepted) before anything else is
   * looked up, and says whom the request plays for. A token's session or key is read on every
   * request: once it is revoked or expired, its tokens are refused.
   * @param bearer the person of a valid `Authorization` header that may play, else null
   * @throws AppError 401 unauthorized: missing, malformed, forged, expired, stopped or revoked
   */
  async authorize(
    fileId: number,
    device: string,
    token: string | undefined,
    bearer: TokenHolder | null,
  ): Promise<TokenHolder> {
    if (bearer !== null) return bearer;
    if (token === undefined || token === '') throw refused('missing');
    const check = this.tokens.verify(token, fileId, device);
    if (!check.ok) throw refused(check.reason);
    const { holder } = check.grant;
    const live = await this.credentials.isLive(holder.credential.kind, holder.credential.id, holder.userId);
    if (!live) throw refused('revoked');
    // A bearer's request was checked by the visibility guard; a token's person is checked here, so a
    // token for a film its person may no longer see (a lowered limit) serves nothing.
    await this.visibility?.assertVisibleToUser(holder.userId, { mediaFileId: fileId });
    return holder;
  }

  async target(fileId: number, device: string): Promise<StreamTarget> {
    const profile = this.devices.resolve(device);
    const needs = await this.artifacts.needs(fileId, profile.id);
    const { file, decision } = needs;
    if (file.status === 'missing') {
      throw new AppError('file_missing', {
        status: 404,
        message: 'The media file is missing from its library root.',
        hint: 'Rescan the library root.',
      });
    }
    if (decision.prediction === 'direct') {
      const media = await this.paths.openInsideRoot(file.root_path, file.relative_path);
      const container = this.editions.capabilitiesOf(file)?.container ?? extname(media.path).slice(1);
      return {
        kind: 'file',
        file: media,
        lastModified: new Date(media.mtimeMs),
        etag: strongEtag(['f', file.id, media.sizeBytes, media.mtimeMs, file.fingerprint ?? '']),
        contentType: contentTypeFor(container),
        artifactKey: null,
      };
    }
    if (!decision.isPlayable) throw this.artifacts.incompatible(needs);
    const state = await this.artifacts.start(fileId, profile.id);
    if (state.status === 'ready') {
      // Only a file of the artifacts area is served (a row naming another path, or a symlink out, is not).
      const name = this.store.locate('artifacts', state.artifact.path);
      const stored = name === null ? null : await this.store.stat('artifacts', name).catch(() => null);
      if (stored !== null) {
        await this.artifacts.touch(state.artifact.artifact_key);
        // Whole milliseconds, as the ETag was made before (FileSystemAdapter.stat floors them).
        const mtimeMs = Math.floor(stored.mtimeMs);
        return {
          kind: 'file',
          file: stored,
          lastModified: new Date(mtimeMs),
          etag: strongEtag(['a', state.artifact.artifact_key, stored.sizeBytes, mtimeMs]),
          contentType: 'video/mp4',
          artifactKey: state.artifact.artifact_key,
        };
      }
    }
    if (state.status === 'building') {
      const key = state.artifact.artifact_key;
      // The part of the build's current run (each run of a build job writes its own).
      const part = this.store.locate('artifacts', this.artifacts.partPath(key, state.epoch));
      const final = this.store.locate('artifacts', this.artifacts.finalPath(key));
      if (part === null || final === null) throw new Error(`artifact ${key} lies outside the artifacts area`);
      return {
        kind: 'growing',
        file: this.store.growing('artifacts', part, final),
        finishedSize: async () =>
          (await this.store.stat('artifacts', final).catch(() => null))?.sizeBytes ?? null,
        jobId: state.jobId,
        epoch: state.epoch,
        contentType: 'video/mp4',
        artifactKey: state.artifact.artifact_key,
      };
    }
    throw new AppError('artifact_unavailable', {
      status: 503,
      message: state.status === 'not_ready' ? state.reason : 'The playback file could not be prepared.',
      headers: { 'retry-after': '5' },
    });
  }

  /**
   * A response of an artifact was opened: every node's cleaner counts the artifact in use until
   * the returned function is called (when the response closes, ended or broken).
   */
  reading(artifactKey: string): () => void {
    return this.artifacts.readers.opened(artifactKey);
  }

  /** Whether the build a growing target follows still runs (under the epoch whose part it reads). */
  isBuilding(target: { jobId: number; epoch: number }): Promise<boolean> {
    return this.artifacts.isBuilding(target.jobId, target.epoch);
  }
}
