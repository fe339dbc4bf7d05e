import { limitOf } from './principals.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import {
  type CertificationFilter,
  certificationFilter,
  isCertificationVisible,
} from '../../domain/people/visibility.ts';
import { notFound } from '../../errors.ts';
import type { VisibilityRepository } from '../../repositories/visibility.repository.ts';

/** What a by-id request names: a movie, a media file, or a job whose payload names some of them. */
export type Subject = { movieId: number } | { mediaFileId: number } | { jobId: number };

/** The movie ids a job's payload names (`movieIds` of enrich and artwork jobs). */
export function movieIdsOfPayload(payloadJson: string): number[] {
  let payload: unknown;
  try {
    payload = JSON.parse(payloadJson);
  } catch {
    return [];
  }
  if (typeof payload !== 'object' || payload === null) return [];
  const ids: unknown = (payload as { movieIds?: unknown }).movieIds;
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
}

/**
 * Which films a person may see (issue 22 §3): the one rule of domain/people/visibility.ts, applied
 * for every surface. Lists take `filter(viewer)` into their queries (repositories/visibility.repository.ts
 * `movieVisible`) or `visibleMovieIds(viewer)`; a request naming one film by id goes through
 * `assertVisible` (http/plugins/visibility-guard.ts does it for every route of http/route-subjects.ts).
 * A viewer without a limit costs nothing: no query is made.
 */
export class VisibilityService {
  constructor(
    private readonly repo: VisibilityRepository,
    /** REELSHELF_CERTIFICATION_COUNTRY: the system certifications and limits are written in. */
    readonly country: string,
    /**
     * A person's role and limit for `assertVisibleToUser` (every stream request of a token asks):
     * the composition root hands in the people kept in memory (PeopleCache), so a stream is not held
     * behind a write transaction; default the database.
     */
    private readonly people: Pick<VisibilityRepository, 'userLimit'> = repo,
  ) {}

  /** The rule as SQL takes it; null when the viewer sees everything. */
  filter(viewer: Viewer | null): CertificationFilter | null {
    return viewer === null ? null : certificationFilter(this.country, viewer.limit);
  }

  /**
   * A key that is the same for two viewers exactly when they see the same films (cache keys and
   * entity tags of filtered answers); `all` without a limit.
   */
  scopeKey(viewer: Viewer | null): string {
    const limit = viewer?.limit ?? null;
    if (limit === null) return 'all';
    return `${this.country}.${encodeURIComponent(limit.maxCertification.toUpperCase())}.${limit.allowUnrated ? 'u' : 'r'}`;
  }

  /** The ids of the movies the viewer may see; null: every movie. */
  async visibleMovieIds(viewer: Viewer | null): Promise<ReadonlySet<number> | null> {
    const filter = this.filter(viewer);
    if (filter === null) return null;
    return new Set(await this.repo.visibleMovieIds(filter));
  }

  /** Whether the viewer sees files matched to no movie (they are unrated). */
  seesUnmatched(viewer: Viewer | null): boolean {
    return this.isVisible(viewer, null);
  }

  /** The rule for one certification (null: unrated). */
  isVisible(viewer: Viewer | null, certification: string | null): boolean {
    return isCertificationVisible(this.country, viewer?.limit ?? null, certification);
  }

  /**
   * Whether the viewer may see what `subject` names. For a limited viewer an id that names nothing is
   * not visible either, so a hidden film and a missing one answer alike.
   */
  async canSee(viewer: Viewer | null, subject: Subject): Promise<boolean> {
    if ((viewer?.limit ?? null) === null) return true;
    if ('movieId' in subject) {
      const movie = await this.repo.movie(subject.movieId);
      return movie !== undefined && this.isVisible(viewer, movie.certification);
    }
    if ('mediaFileId' in subject) {
      const file = await this.repo.mediaFile(subject.mediaFileId);
      return file !== undefined && this.isVisible(viewer, file.certification);
    }
    const job = await this.repo.job(subject.jobId);
    if (job === undefined) return false;
    for (const movieId of movieIdsOfPayload(job.payload_json)) {
      if (!(await this.canSee(viewer, { movieId }))) return false;
    }
    for (const mediaFileId of job.fileIds) {
      if (!(await this.canSee(viewer, { mediaFileId }))) return false;
    }
    return true;
  }

  /**
   * For a route that checks by itself (a stream route reading the person from its playback token):
   * 404 `not_found` exactly as for a missing movie, media file or job when the viewer may not see it.
   * Routes in http/route-subjects.ts need not call it: the guard there does.
   */
  /**
   * For a request that names only its person (a stream URL's token): that person's limit as it is
   * now (a gone person sees nothing), then `assertVisible`.
   */
  async assertVisibleToUser(userId: number, subject: Subject): Promise<void> {
    const row = await this.people.userLimit(userId);
    const viewer: Viewer =
      row === undefined
        ? { userId, limit: { maxCertification: '', allowUnrated: false } }
        : { userId, limit: limitOf(row) };
    await this.assertVisible(viewer, subject);
  }

  async assertVisible(viewer: Viewer | null, subject: Subject): Promise<void> {
    if (await this.canSee(viewer, subject)) return;
    if ('movieId' in subject) throw notFound('movie', subject.movieId);
    if ('mediaFileId' in subject) throw notFound('media file', subject.mediaFileId);
    throw notFound('job', subject.jobId);
  }
}
