import type { CheckedFile } from '../../adapters/file-system.ts';
import { artworkUrl } from '../../domain/artwork-url.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import type { ImageRequest } from '../../domain/jellyfin/image-request.ts';
import type { ImageTags } from '../../domain/jellyfin/image-tags.ts';
import type { Viewer } from '../../domain/people/viewer.ts';
import { notFound } from '../../errors.ts';
import type { ArtworkRepository } from '../../repositories/artwork.repository.ts';
import type { UserRow } from '../../repositories/user.repository.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import { limitOf } from '../people/principals.ts';

/** The stored image to send (the artwork service's answer: a checked file and its validators). */
export interface ServedArtwork {
  file: CheckedFile;
  etag: string;
  lastModified: Date;
  contentType: string;
}

export interface JellyfinImagesDeps {
  ids: JellyfinIds;
  tags: ImageTags;
  /** reelshelf's artwork service: the stored poster/backdrop, resized by width when asked. */
  artwork: {
    image(movieId: number, kind: 'poster' | 'backdrop', width: number | undefined): Promise<ServedArtwork>;
  };
  /** The artwork's state: its version is the one the listing's tags were made from. */
  artworkRows: { get(movieId: number): ReturnType<ArtworkRepository['get']> };
  /** Everyone in the household, to find whom a token-less tag was listed to. */
  people: { list(): Promise<UserRow[]> };
  visibility: Pick<VisibilityService, 'canSee'>;
}

/** What an image request comes to: the image (and whether the URL's tag was right), or credentials needed. */
export type ImageOutcome =
  { kind: 'image'; image: ServedArtwork; tagged: boolean } | { kind: 'credentials-required' };

const ARTWORK_KIND = { Primary: 'poster', Backdrop: 'backdrop' } as const;

/**
 * Images of the Jellyfin facade (`/Items/{id}/Images/{type}`), served by reelshelf's artwork service.
 * With a token: the person's own visibility decides (the tag only earns long caching). Without
 * one, the URL's tag must be the tag of this image as listed to some person (image-tags.ts) who
 * may still see the film now; anything else — no tag, a wrong or stale tag, a film since hidden
 * from that person, an unknown id — asks for credentials, alike, so nothing is told without them.
 */
export class JellyfinImagesService {
  constructor(private readonly deps: JellyfinImagesDeps) {}

  async image(itemId: string, request: ImageRequest, viewer: Viewer | null): Promise<ImageOutcome> {
    const ref = this.deps.ids.decode(itemId);
    // Images hang on movies; a file matched to no movie, or a view, has none.
    const movieId = ref?.kind === 'movie' ? ref.id : null;
    const kind = ARTWORK_KIND[request.kind];
    const version = movieId === null ? null : artworkUrl(await this.deps.artworkRows.get(movieId), kind);
    if (viewer === null) {
      if (request.tag === null || movieId === null || version === null)
        return { kind: 'credentials-required' };
      const canonical = this.deps.ids.encode('movie', movieId);
      const person = await this.personOfTag(request.tag, canonical, request.kind, version);
      if (person === null || !(await this.deps.visibility.canSee(person, { movieId }))) {
        return { kind: 'credentials-required' };
      }
      return {
        kind: 'image',
        image: await this.deps.artwork.image(movieId, kind, request.width),
        tagged: true,
      };
    }
    // A hidden film's image and a missing one answer alike.
    if (movieId === null || version === null || !(await this.deps.visibility.canSee(viewer, { movieId }))) {
      throw notFound('image', itemId.slice(0, 64));
    }
    const canonical = this.deps.ids.encode('movie', movieId);
    const tagged =
      request.tag !== null &&
      this.deps.tags.check(request.tag, canonical, request.kind, version, viewer.userId);
    return { kind: 'image', image: await this.deps.artwork.image(movieId, kind, request.width), tagged };
  }

  /** The person this tag was listed to, as they are now (their current limit), or null. */
  private async personOfTag(
    tag: string,
    itemId: string,
    kind: ImageRequest['kind'],
    version: string,
  ): Promise<Viewer | null> {
    // A household is a handful of people: one HMAC each.
    for (const row of await this.deps.people.list()) {
      if (this.deps.tags.check(tag, itemId, kind, version, row.id))
        return { userId: row.id, limit: limitOf(row) };
    }
    return null;
  }
}
