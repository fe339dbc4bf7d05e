/**
 * A reelshelf movie as a Jellyfin `BaseItemDto` (players.md §1.6): one `Movie` per movie (or per
 * file matched to no movie), one `MediaSource` per edition named by its label, the person's own
 * watch state as `UserData`, image tags instead of URLs, and a disc-only film as Jellyfin's
 * placeholder item saying where the disc is. Pure: the caller hands in the listing item as
 * `/library` builds it for that person, and the facts `/library` does not carry.
 *
 * The shapes are our own, written PascalCase with nulls for what is absent (`toWireJson` leaves
 * them out); a unit test checks they are assignable to `@jellyfin/sdk`'s generated models.
 */
import type { LibraryEdition, LibraryMovieItem, PhysicalCopyInfo } from '@reelshelf/contract';
import type { ImageTagger } from './image-tags.ts';
import type { JellyfinIds } from './ids.ts';
import { jellyfinDate, secondsToTicks } from './wire.ts';
import { loanLine } from '../loans.ts';

export interface UserDataDto {
  PlaybackPositionTicks: number;
  PlayedPercentage: number | null;
  PlayCount: number;
  IsFavorite: boolean;
  Played: boolean;
  LastPlayedDate: string | null;
  Key: string;
  ItemId: string;
}

export interface MediaSourceDto {
  Id: string;
  Name: string;
  Protocol: 'File';
  Type: 'Default' | 'Placeholder';
  Container: string | null;
  Size: number | null;
  RunTimeTicks: number | null;
  IsRemote: false;
  SupportsProbing: boolean;
  RequiresOpening: false;
  RequiresClosing: false;
  VideoType: 'VideoFile';
  MediaStreams: [];
  Formats: [];
}

/** A credited person as `BaseItemPerson` (Type: Jellyfin's PersonKind). */
export interface PersonDto {
  Name: string;
  Id: string;
  Role: string | null;
  Type: 'Actor' | 'Director' | 'Writer' | 'Producer' | 'Composer';
}

/** Jellyfin's `NameGuidPair` (studios, genre items). */
export interface NameIdDto {
  Name: string;
  Id: string;
}

export interface MovieDto {
  Type: 'Movie';
  Id: string;
  ServerId: string;
  ParentId: string;
  Name: string;
  SortName: string;
  Overview: string | null;
  ProductionYear: number | null;
  PremiereDate: string | null;
  DateCreated: string | null;
  OfficialRating: string | null;
  CommunityRating: number | null;
  CriticRating: number | null;
  Genres: string[];
  People: PersonDto[];
  Studios: NameIdDto[];
  RunTimeTicks: number | null;
  IsFolder: false;
  IsPlaceHolder: boolean | null;
  LocationType: 'FileSystem' | 'Virtual';
  MediaType: 'Video';
  VideoType: 'VideoFile';
  ImageTags: Record<string, string> | null;
  BackdropImageTags: string[];
  PrimaryImageAspectRatio: number | null;
  MediaSources: MediaSourceDto[] | null;
  UserData: UserDataDto;
}

/** A credit as reelshelf keeps it (person_movie), already named in Jellyfin's kinds. */
export interface PersonFact {
  personId: number;
  name: string;
  kind: PersonDto['Type'];
  /** The character played (actors), else null. */
  role: string | null;
}

/** What the Jellyfin mapping needs beyond the listing item (facts /library does not carry). */
export interface MovieFacts {
  genres: readonly string[];
  certification: string | null;
  /** IMDb's score out of 10 (OMDb "Internet Movie Database"). */
  communityRating: number | null;
  /** Rotten Tomatoes' percentage. */
  criticRating: number | null;
  people: readonly PersonFact[];
  studios: readonly { id: number; name: string }[];
  /** The release date when known (`yyyy-mm-dd`). */
  releasedOn: string | null;
  /** When the movie came into the library (SQLite or ISO text). */
  addedAt: string | null;
  isFavorite: boolean;
  lastPlayedAt: string | null;
  /** Per media file id: the container and size the scan recorded. */
  files: ReadonlyMap<number, { container: string | null; sizeBytes: number | null }>;
}

export interface DtoContext {
  /** Only encode and serverId are used: the catalogue hands in a memoising one. */
  ids: Pick<JellyfinIds, 'encode' | 'serverId'>;
  /** The tags of the person the listing is for (image-tags.ts: a tag names its person). */
  tags: ImageTagger;
  /** The view (CollectionFolder) the movie is listed under. */
  parentId: string;
}

/** Poster aspect ratio Jellyfin reports for movies (2:3). */
const POSTER_ASPECT = 2 / 3;
/** Sort names drop a leading article, as Jellyfin's default sort-name rule does. */
const LEADING_ARTICLE = /^(?:the|a|an)\s+/i;

/** "Blu-ray, binder A, slot 12": where a disc is, in the words a person looks for it with. */
export function discLocation(copy: PhysicalCopyInfo): string {
  const binder = copy.binder.trim();
  const slot = copy.slot.trim();
  const parts = [
    copy.format?.trim() ?? '',
    binder === '' ? '' : /^binder\b/i.test(binder) ? binder : `binder ${binder}`,
    slot === '' ? '' : `slot ${slot}`,
  ];
  return parts.filter((p) => p !== '').join(', ') || 'location not recorded';
}

/**
 * The item id: the movie's, or for a file matched to no movie the file's media-source id, so that
 * its one MediaSource has the item's id (Jellyfin's own convention for a single-version item).
 */
export function movieItemId(item: LibraryMovieItem, ids: DtoContext['ids']): string | null {
  if (item.movie_id !== null) return ids.encode('movie', item.movie_id);
  const first = item.editions[0];
  return first === undefined ? null : ids.encode('media-source', first.media_file_id);
}

function userDataOf(item: LibraryMovieItem, itemId: string, facts: MovieFacts): UserDataDto {
  const ordered = [item.editions[item.default_edition_index], ...item.editions].filter(
    (e): e is LibraryEdition => e !== undefined,
  );
  const resumed = ordered.find((e) => (e.resume_position_seconds ?? 0) > 0);
  const position = resumed?.resume_position_seconds ?? 0;
  const duration = resumed?.duration_seconds ?? 0;
  const played = item.editions.some((e) => e.watched === true);
  // The id's copies first, next to the item's own Id (see movieDto): gzip then refers back a few
  // bytes instead of a few hundred — the whole-library sync is ~3 % smaller.
  return {
    Key: itemId,
    ItemId: itemId,
    PlaybackPositionTicks: secondsToTicks(position),
    PlayedPercentage: position > 0 && duration > 0 ? Math.min(100, (position / duration) * 100) : null,
    PlayCount: played ? 1 : 0,
    IsFavorite: facts.isFavorite,
    Played: played,
    LastPlayedDate: facts.lastPlayedAt === null ? null : jellyfinDate(facts.lastPlayedAt),
  };
}

function mediaSourceOf(edition: LibraryEdition, facts: MovieFacts, ids: DtoContext['ids']): MediaSourceDto {
  const file = facts.files.get(edition.media_file_id);
  return {
    Id: ids.encode('media-source', edition.media_file_id),
    Name: edition.label,
    Protocol: 'File',
    Type: 'Default',
    Container: file?.container ?? null,
    Size: file?.sizeBytes ?? null,
    RunTimeTicks: edition.duration_seconds === undefined ? null : secondsToTicks(edition.duration_seconds),
    IsRemote: false,
    SupportsProbing: true,
    RequiresOpening: false,
    RequiresClosing: false,
    VideoType: 'VideoFile',
    MediaStreams: [],
    Formats: [],
  };
}

function imageTagsOf(
  item: LibraryMovieItem,
  itemId: string,
  tags: ImageTagger,
): Pick<MovieDto, 'ImageTags' | 'BackdropImageTags'> {
  // The artwork URL /library gives changes when the picture does (`?v=`): it is the version.
  const poster = item.poster_url ?? null;
  const backdrop = item.backdrop_url ?? null;
  return {
    // Infuse fails on an empty `ImageTags: {}`: none at all is left out.
    ImageTags: poster === null ? null : { Primary: tags.tag(itemId, 'Primary', poster) },
    BackdropImageTags: backdrop === null ? [] : [tags.tag(itemId, 'Backdrop', backdrop)],
  };
}

/** The `BaseItemDto` of one listing item, or null for an item with neither a movie nor a file. */
export function movieDto(item: LibraryMovieItem, facts: MovieFacts, context: DtoContext): MovieDto | null {
  const id = movieItemId(item, context.ids);
  if (id === null) return null;
  const placeholder = item.editions.length === 0;
  const copies = item.physical_copies ?? [];
  const discLine =
    placeholder && copies.length > 0 ? `On disc: ${copies.map(discLocation).join('; ')}.` : null;
  // The disc a player would be sent to fetch may not be on the shelf (docs/collector.md "Loans").
  const loanLines = placeholder
    ? copies.flatMap((c) => (c.loan === undefined ? [] : [`${loanLine(c.loan)}.`])).join(' ')
    : '';
  const overview = [
    discLine === null || loanLines === '' ? discLine : `${discLine} ${loanLines}`,
    item.overview ?? null,
  ]
    .filter((t): t is string => t !== null && t !== '')
    .join('\n\n');
  const chosen = item.editions[item.default_edition_index] ?? item.editions[0];
  const runtime = chosen?.duration_seconds;
  const images = imageTagsOf(item, id, context.tags);
  return {
    Type: 'Movie',
    Id: id,
    // Right after the Id: its Key and ItemId repeat the Id, 32 incompressible hex digits (the order of
    // members means nothing to a JSON reader).
    UserData: userDataOf(item, id, facts),
    ServerId: context.ids.serverId,
    ParentId: context.parentId,
    Name: item.title,
    SortName: item.title.replace(LEADING_ARTICLE, '').toLowerCase(),
    Overview: overview === '' ? null : overview,
    ProductionYear: item.year ?? null,
    // A year alone is not a premiere date: Jellyfin sorts by it, so a guessed 1 January would mislead.
    PremiereDate: facts.releasedOn === null ? null : jellyfinDate(facts.releasedOn),
    DateCreated: facts.addedAt === null ? null : jellyfinDate(facts.addedAt),
    OfficialRating: facts.certification,
    CommunityRating: facts.communityRating,
    CriticRating: facts.criticRating,
    Genres: [...facts.genres],
    People: facts.people.map((p) => ({
      Name: p.name,
      Id: context.ids.encode('person', p.personId),
      Role: p.role,
      Type: p.kind,
    })),
    Studios: facts.studios.map((st) => ({ Name: st.name, Id: context.ids.encode('studio', st.id) })),
    RunTimeTicks: runtime === undefined ? null : secondsToTicks(runtime),
    IsFolder: false,
    IsPlaceHolder: placeholder ? true : null,
    LocationType: placeholder ? 'Virtual' : 'FileSystem',
    MediaType: 'Video',
    VideoType: 'VideoFile',
    ...images,
    PrimaryImageAspectRatio: images.ImageTags === null ? null : POSTER_ASPECT,
    // Infuse fails on `MediaSources: []`: a placeholder has none at all.
    MediaSources: placeholder ? null : item.editions.map((e) => mediaSourceOf(e, facts, context.ids)),
  };
}
