/**
 * DIDL-Lite, the XML a ContentDirectory `Browse`/`Search` answers with (UPnP AV ContentDirectory:1 §2.8,
 * players.md §2.1): containers (folders a person browses) and films as `object.item.videoItem.movie`, each
 * with one `res` per way it plays on the asking TV. Pure: the service decides what is listed and which
 * URLs and protocolInfos each `res` gets; this only writes them correctly.
 */
import { imageProtocolInfo } from './protocol-info.ts';
import { formatNptTime } from './time-seek.ts';
import { element } from './xml.ts';

export const DIDL_NAMESPACES = {
  xmlns: 'urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/',
  'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
  'xmlns:upnp': 'urn:schemas-upnp-org:metadata-1-0/upnp/',
  'xmlns:dlna': 'urn:schemas-dlna-org:metadata-1-0/',
  'xmlns:sec': 'http://www.sec.co.kr/',
} as const;

export interface DidlContainer {
  kind: 'container';
  /** opaque ObjectID; the root is "0" with parent "-1" */
  id: string;
  parentId: string;
  title: string;
  /** null when counting would be costly; the attribute is then left out (it is optional) */
  childCount: number | null;
  /** default `object.container.storageFolder` */
  upnpClass?: string;
}

/** One way to get the film: the file itself, a conversion, or a subtitle. */
export interface DidlResource {
  url: string;
  /** from protocol-info.ts */
  protocolInfo: string;
  sizeBytes?: number | null;
  durationSeconds?: number | null;
  width?: number | null;
  height?: number | null;
  audioChannels?: number | null;
  /** UPnP's `bitrate` is in bytes per second, not bits */
  bytesPerSecond?: number | null;
}

export interface DidlMovie {
  kind: 'movie';
  id: string;
  parentId: string;
  /** the id of the same film in its main container, when this entry is a second placement of it */
  refId?: string | null;
  title: string;
  /** `YYYY-MM-DD` release date; when absent, `year` gives `YYYY-01-01` */
  releaseDate?: string | null;
  year?: number | null;
  genres?: readonly string[];
  actors?: readonly string[];
  directors?: readonly string[];
  description?: string | null;
  albumArt?: { url: string; profile: 'JPEG_TN' | 'JPEG_SM' } | null;
  resources: readonly DidlResource[];
  /** Samsung's subtitle element: `<sec:CaptionInfoEx sec:type="srt">` */
  captions?: readonly { url: string; type: 'srt' }[];
}

export type DidlObject = DidlContainer | DidlMovie;

/** The whole `<DIDL-Lite>` document (without XML declaration: it goes escaped inside a SOAP `Result`). */
export function renderDidl(objects: readonly DidlObject[]): string {
  const attrs = Object.entries(DIDL_NAMESPACES)
    .map(([key, value]) => ` ${key}="${value}"`)
    .join('');
  return `<DIDL-Lite${attrs}>${objects.map(renderObject).join('')}</DIDL-Lite>`;
}

function renderObject(object: DidlObject): string {
  return object.kind === 'container' ? renderContainer(object) : renderMovie(object);
}

function renderContainer(container: DidlContainer): string {
  const open = element('container', null, {
    id: container.id,
    parentID: container.parentId,
    restricted: 1,
    searchable: 1,
    childCount: wholeOrNull(container.childCount),
  }).replace(/\/>$/, '>');
  return (
    open +
    element('dc:title', container.title) +
    element('upnp:class', container.upnpClass ?? 'object.container.storageFolder') +
    '</container>'
  );
}

function renderMovie(movie: DidlMovie): string {
  const open = element('item', null, {
    id: movie.id,
    parentID: movie.parentId,
    refID: movie.refId ?? null,
    restricted: 1,
  }).replace(/\/>$/, '>');
  const parts = [
    open,
    element('dc:title', movie.title),
    element('upnp:class', 'object.item.videoItem.movie'),
  ];
  const date = dateOf(movie);
  if (date !== null) parts.push(element('dc:date', date));
  for (const genre of movie.genres ?? []) parts.push(element('upnp:genre', genre));
  for (const actor of movie.actors ?? []) parts.push(element('upnp:actor', actor));
  for (const director of movie.directors ?? []) parts.push(element('upnp:director', director));
  if (movie.description) parts.push(element('dc:description', movie.description));
  if (movie.albumArt) {
    parts.push(element('upnp:albumArtURI', movie.albumArt.url, { 'dlna:profileID': movie.albumArt.profile }));
  }
  for (const caption of movie.captions ?? []) {
    parts.push(element('sec:CaptionInfoEx', caption.url, { 'sec:type': caption.type }));
  }
  for (const resource of movie.resources) parts.push(renderResource(resource));
  // The art again as a `res`: TVs that ignore albumArtURI (minidlna's form) still find a thumbnail.
  // Not on an item with nothing to play (disc only, cannot play here): its only res would be the
  // cover, and a TV would "play" the picture as the film.
  if (movie.albumArt && movie.resources.length > 0) {
    parts.push(
      element('res', movie.albumArt.url, { protocolInfo: imageProtocolInfo(movie.albumArt.profile) }),
    );
  }
  parts.push('</item>');
  return parts.join('');
}

function renderResource(resource: DidlResource): string {
  const width = positiveOrNull(wholeOrNull(resource.width));
  const height = positiveOrNull(wholeOrNull(resource.height));
  const duration = positiveOrNull(resource.durationSeconds);
  const bitrate = positiveOrNull(resource.bytesPerSecond);
  return element('res', resource.url, {
    protocolInfo: resource.protocolInfo,
    size: wholeOrNull(resource.sizeBytes),
    duration: duration === null ? null : formatNptTime(duration),
    resolution: width === null || height === null ? null : `${width}x${height}`,
    nrAudioChannels: positiveOrNull(wholeOrNull(resource.audioChannels)),
    bitrate: bitrate === null ? null : Math.round(bitrate),
  });
}

function dateOf(movie: DidlMovie): string | null {
  if (movie.releaseDate && /^\d{4}-\d{2}-\d{2}$/.test(movie.releaseDate)) return movie.releaseDate;
  const year = movie.year;
  if (year !== null && year !== undefined && Number.isInteger(year) && year >= 1000 && year <= 9999) {
    return `${year}-01-01`;
  }
  return null;
}

function wholeOrNull(value: number | null | undefined): number | null {
  return value !== null && value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function positiveOrNull(value: number | null | undefined): number | null {
  return value !== null && value !== undefined && Number.isFinite(value) && value > 0 ? value : null;
}
