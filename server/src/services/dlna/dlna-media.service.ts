import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import type { CheckedFile } from '../../adapters/file-system.ts';
import type { ArtworkState } from '../../domain/artwork-url.ts';
import { artworkUrl } from '../../domain/artwork-url.ts';
import type { DidlResource } from '../../domain/dlna/didl.ts';
import {
  ART_BOX,
  cannotPlayReason,
  conversionShape,
  dlnaMediaPath,
  type DlnaMediaTarget,
  dlnaMimeOf,
  extensionOf,
  fileShape,
} from '../../domain/dlna/media-resources.ts';
import {
  contentFeatures,
  dlnaProfileOf,
  imageProtocolInfo,
  protocolInfo,
  SRT_PROTOCOL_INFO,
} from '../../domain/dlna/protocol-info.ts';
import { type TimeSeekRange } from '../../domain/dlna/time-seek.ts';
import { type TvFamily, tvFamilyOf } from '../../domain/dlna/tv-family.ts';
import { tvProfileId, tvProfiles } from '../../domain/dlna/tv-profiles.ts';
import { planHls } from '../../domain/hls/hls-plan.ts';
import { strongEtag } from '../../domain/http-range.ts';
import { vttToSrt } from '../../domain/subtitles/srt.ts';
import { AppError, notFound } from '../../errors.ts';
import type { LibraryGeneration } from '../library/library-generation.ts';
import type { NowPlayingService } from '../playback/now-playing.service.ts';
import type { ListingViewer } from '../library/library.service.ts';
import type { MediaPathService } from '../library/media-path.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { ArtifactService } from '../playback/artifact.service.ts';
import type { DeviceProfileService } from '../playback/device-profile.service.ts';
import type { PlaybackEditionPresenter } from '../playback/edition-presenter.ts';
import type { SubtitleVttService } from '../playback/subtitle-vtt.service.ts';
import type { DlnaClient, DlnaFilePresentation, DlnaMediaPort } from './dlna-ports.ts';
import type { DlnaTokenPurpose, DlnaTokens } from './dlna-tokens.ts';
import type { ProgressiveConversions, ProgressivePlan } from './progressive-conversion.ts';

/** Whose view DLNA serves (the dlna-server part reads REELSHELF_DLNA); null while DLNA is off. */
export interface DlnaViewerSource {
  viewer(): Promise<ListingViewer | null>;
}

export interface DlnaMediaDeps {
  viewer: DlnaViewerSource;
  devices: Pick<DeviceProfileService, 'register' | 'resolve'>;
  /** The one decision engine: how a file plays on a profile. */
  decisions: Pick<ArtifactService, 'needs'>;
  /** The file's capabilities and subtitle tracks, read from the row the decision had (no query). */
  editions: Pick<PlaybackEditionPresenter, 'capabilitiesOf' | 'encoders' | 'subtitleTracksOf'>;
  visibility: Pick<VisibilityService, 'canSee'>;
  paths: Pick<MediaPathService, 'openInsideRoot'>;
  subtitles: Pick<SubtitleVttService, 'vtt'>;
  /** The film's stored cover, as the artwork service serves it (its original size). */
  artwork: { image(movieId: number, kind: 'poster', width: undefined): Promise<{ file: CheckedFile }> };
  /** The artwork row of a film (whether it has a cover, and its version). */
  artworkState: { get(movieId: number): Promise<ArtworkState | undefined> };
  tokens: DlnaTokens;
  conversions: ProgressiveConversions;
  /** The library's version: a kept offer lasts while it stands (an analysis or rescan moves it). */
  generation: Pick<LibraryGeneration, 'current'>;
  /** Plays and the person's history (a TV reports no progress: a play is its requests). */
  plays: Pick<NowPlayingService, 'seen'>;
}

/** A file to send, with what the DLNA headers of its answer say. */
export interface DlnaServedFile {
  file: CheckedFile;
  etag: string;
  lastModified: Date;
  contentType: string;
  contentFeatures: string;
  durationSeconds: number | null;
  /** The first text subtitle as SRT (Samsung's CaptionInfo.sec), null without one. */
  captionPath: string | null;
}

/** Bytes made here (SRT, resized covers) with their validators. */
export interface DlnaServedBytes {
  body: Buffer;
  etag: string;
  contentType: string;
  contentFeatures: string | null;
}

/** How a file is offered to a TV family, before tokens and URLs (kept per library generation). */
interface Offer {
  resources: (Omit<DidlResource, 'url'> & { target: DlnaMediaTarget })[];
  subtitles: DlnaMediaTarget[];
  cannotPlay: string | null;
}

/** Offers kept at once (a file × a family each; a few hundred bytes each). */
const MAX_OFFERS = 50_000;

/** Resized covers kept in memory: ~5 KB (TN) to ~40 KB (SM) each. */
const ART_CACHE_BYTES = 16 * 1024 * 1024;
/** SubRip with a byte-order mark: Samsung and LG TVs take SRT without one for Latin-1. */
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * How each file plays on each TV (issue 24 §4–5), and what the media routes under /dlna/media
 * serve. The TV's family (from its User-Agent / X-AV-Client-Info) picks its DLNA device profile;
 * `ArtifactService.needs` decides, as for every other player: the file itself where it plays
 * directly (byte seek, DLNA.ORG_OP=01), else the HLS presentation of it joined into one MPEG-TS
 * (time seek, DLNA.ORG_OP=10), else nothing and the reason in a few words. URLs carry a token bound
 * to the DLNA person, the file and the family; every request checks the person may still see it.
 */
export class DlnaMediaService implements DlnaMediaPort {
  private readonly offers = new Map<string, Offer>();
  private offersStamp = '';
  private readonly art = new Map<string, Buffer>();
  private artBytes = 0;

  constructor(private readonly deps: DlnaMediaDeps) {
    // The families' profiles join the device registry, so the decision engine and HLS resolve them.
    for (const profile of tvProfiles()) deps.devices.register(profile);
  }

  /** The family of a TV and its profile id (a user profile file of that id replaces ours). */
  familyOf(client: Pick<DlnaClient, 'userAgent' | 'avClientInfo'>): TvFamily {
    return tvFamilyOf(client.userAgent, client.avClientInfo);
  }

  private url(client: DlnaClient, target: DlnaMediaTarget, token: string, extra = ''): string {
    return `${client.baseUrl}${dlnaMediaPath(target)}?token=${encodeURIComponent(token)}${extra}`;
  }

  async presentFile(fileId: number, client: DlnaClient): Promise<DlnaFilePresentation> {
    const viewer = await this.deps.viewer.viewer();
    if (viewer === null) return { resources: [], captions: [], cannotPlay: 'DLNA is off' };
    const family = this.familyOf(client);
    const offer = await this.offerOf(fileId, family);
    if (offer.cannotPlay !== null) return { resources: [], captions: [], cannotPlay: offer.cannotPlay };
    const token = this.deps.tokens.sign('media', fileId, family, viewer);
    const resources: DidlResource[] = offer.resources.map(({ target, ...res }) => ({
      ...res,
      url: this.url(client, target, token),
    }));
    const subtitleUrls = offer.subtitles.map((target) => this.url(client, target, token));
    for (const url of subtitleUrls) resources.push({ url, protocolInfo: SRT_PROTOCOL_INFO });
    const first = subtitleUrls[0];
    // sec:CaptionInfoEx is Samsung's; other TVs take the text/srt res.
    const captions =
      family === 'samsung' && first !== undefined ? [{ url: first, type: 'srt' as const }] : [];
    return { resources, captions, cannotPlay: null };
  }

  /**
   * How a file is offered to a family, without URLs: decided once per library generation (a Browse
   * of 100 items would otherwise read and decide 100 files; the tokens and URLs are made per answer).
   */
  private async offerOf(fileId: number, family: TvFamily): Promise<Offer> {
    const version = this.deps.generation.current();
    const stamp = `${version.boot}/${version.generation}`;
    if (stamp !== this.offersStamp) {
      this.offers.clear();
      this.offersStamp = stamp;
    }
    const key = `${fileId}/${family}`;
    const kept = this.offers.get(key);
    if (kept !== undefined) return kept;
    const offer = await this.decideOffer(fileId, family);
    if (this.offers.size >= MAX_OFFERS) this.offers.clear();
    this.offers.set(key, offer);
    return offer;
  }

  private async decideOffer(fileId: number, family: TvFamily): Promise<Offer> {
    const needs = await this.deps.decisions.needs(fileId, tvProfileId(family));
    const { file, decision, profile } = needs;
    const caps = this.deps.editions.capabilitiesOf(file);
    if (file.status === 'missing') return { resources: [], subtitles: [], cannotPlay: 'the file is missing' };
    const resources: Offer['resources'] = [];
    if (caps !== null && decision.prediction === 'direct') {
      const shape = fileShape(caps, decision.selectedAudioTrack);
      const mime = dlnaMimeOf(caps.container);
      resources.push({
        target: { kind: 'file', family, fileId, extension: extensionOf(caps.container) },
        protocolInfo: protocolInfo({ mime, profile: dlnaProfileOf(shape), seek: 'byte', converted: false }),
        sizeBytes: file.size_bytes,
        durationSeconds: caps.duration_seconds,
        width: shape.width,
        height: shape.height,
        audioChannels: shape.audioChannels,
        bytesPerSecond: caps.bitrate_bps === null ? null : Math.round(caps.bitrate_bps / 8),
      });
    } else if (caps !== null && decision.isPlayable && caps.duration_seconds !== null) {
      const shape = conversionShape(
        caps,
        planHls({ capabilities: caps, decision, profile, encoders: this.deps.editions.encoders }),
      );
      resources.push({
        target: { kind: 'conversion', family, fileId },
        protocolInfo: protocolInfo({
          mime: 'video/mpeg',
          profile: dlnaProfileOf(shape),
          seek: 'time',
          converted: true,
        }),
        durationSeconds: caps.duration_seconds,
        width: shape.width,
        height: shape.height,
        audioChannels: shape.audioChannels,
      });
    }
    if (resources.length === 0) {
      return { resources, subtitles: [], cannotPlay: cannotPlayReason(decision.incompatibility) };
    }
    const subtitles = this.deps.editions
      .subtitleTracksOf(file)
      .filter((t) => t.kind === 'text')
      .map((t): DlnaMediaTarget => ({ kind: 'subtitle', family, fileId, index: t.index }));
    return { resources, subtitles, cannotPlay: null };
  }

  async albumArt(
    movieId: number,
    client: DlnaClient,
  ): Promise<{ url: string; profile: 'JPEG_TN' | 'JPEG_SM' } | null> {
    const viewer = await this.deps.viewer.viewer();
    if (viewer === null) return null;
    const version = artworkUrl(await this.deps.artworkState.get(movieId), 'poster');
    if (version === null) return null;
    const family = this.familyOf(client);
    // JPEG_TN (≤ 160×160) is the one every TV shows; LG and Sony draw larger tiles from JPEG_SM.
    // Samsung is kept to TN (its profiles cap album art at 480×480, below JPEG_SM's 640×480).
    const profile = family === 'lg' || family === 'sony' ? 'JPEG_SM' : 'JPEG_TN';
    const token = this.deps.tokens.sign('art', movieId, family, viewer);
    const v = /[?&]v=([^&]+)/.exec(version)?.[1] ?? '';
    return { url: this.url(client, { kind: 'art', family, movieId, profile }, token, `&v=${v}`), profile };
  }

  /**
   * A TV's request of a film: the DLNA person's play starts (a history row, now playing under the
   * TV's family) or goes on, as any player's stream requests do.
   */
  played(
    viewer: ListingViewer,
    fileId: number,
    family: TvFamily,
    mode: 'direct' | 'converted',
  ): Promise<void> {
    return this.deps.plays.seen({
      holder: { userId: viewer.userId, credential: viewer.credential },
      fileId,
      device: tvProfileId(family),
      mode,
    });
  }

  /** The protocolInfo of an album-art `res`, for a second `res` beside the video where a TV wants it. */
  artProtocolInfo(profile: 'JPEG_TN' | 'JPEG_SM'): string {
    return imageProtocolInfo(profile);
  }

  /**
   * Who a media request is for: the DLNA person, when the token is theirs for this file (or film) and
   * family and they may see it now.
   * @throws AppError 403 forbidden for a missing, bad, expired or tampered token or another person's;
   *   404 not_found when DLNA is off or the person may not see it (a hidden film and a missing one alike)
   */
  async authorize(
    purpose: DlnaTokenPurpose,
    id: number,
    family: TvFamily,
    token: string | undefined,
  ): Promise<ListingViewer> {
    const viewer = await this.deps.viewer.viewer();
    if (viewer === null) throw new AppError('not_found', { message: 'DLNA is off on this server.' });
    const check = token === undefined ? null : this.deps.tokens.verify(token, purpose, id, family);
    if (check === null || !check.ok) {
      throw new AppError('forbidden', {
        message: `This DLNA URL's token is ${check === null ? 'missing' : check.reason === 'expired' ? 'expired' : 'not valid for it'}.`,
        hint: 'Browse the server again on the TV: it hands out fresh URLs.',
      });
    }
    if (check.grant.holder.userId !== viewer.userId) {
      throw new AppError('forbidden', {
        message: 'This DLNA URL was made for another person.',
        hint: 'Browse the server again on the TV: it hands out fresh URLs.',
      });
    }
    const subject = purpose === 'art' ? { movieId: id } : { mediaFileId: id };
    if (!(await this.deps.visibility.canSee(viewer, subject))) {
      throw notFound(purpose === 'art' ? 'movie' : 'media file', id);
    }
    return viewer;
  }

  private async capsOf(fileId: number, family: TvFamily) {
    const needs = await this.deps.decisions.needs(fileId, tvProfileId(family));
    if (needs.file.status === 'missing') {
      throw new AppError('file_missing', {
        message: 'The media file is missing from its library root.',
        hint: 'Rescan the library root.',
      });
    }
    return { needs, caps: this.deps.editions.capabilitiesOf(needs.file) };
  }

  /** The file itself, as its `res` offers it (byte seek). */
  async file(fileId: number, family: TvFamily, captionToken: string): Promise<DlnaServedFile> {
    const { needs, caps } = await this.capsOf(fileId, family);
    const { file, decision } = needs;
    const media = await this.deps.paths.openInsideRoot(file.root_path, file.relative_path);
    const container = caps?.container ?? '';
    const shape = caps === null ? null : fileShape(caps, decision.selectedAudioTrack);
    const caption = this.deps.editions.subtitleTracksOf(file).find((t) => t.kind === 'text');
    return {
      file: media,
      etag: strongEtag(['dlna-f', file.id, media.sizeBytes, media.mtimeMs, file.fingerprint ?? '']),
      lastModified: new Date(Math.floor(media.mtimeMs)),
      contentType: dlnaMimeOf(container),
      contentFeatures: contentFeatures({
        profile: shape === null ? null : dlnaProfileOf(shape),
        seek: 'byte',
        converted: false,
      }),
      durationSeconds: caps?.duration_seconds ?? null,
      captionPath:
        caption === undefined
          ? null
          : `${dlnaMediaPath({ kind: 'subtitle', family, fileId, index: caption.index })}?token=${encodeURIComponent(captionToken)}`,
    };
  }

  /**
   * The conversion's answer, planned without converting: its segments from the asked time, and its
   * contentFeatures. 400 not_playable when nothing plays on the TV; 416 for a time past the end.
   */
  async conversion(
    fileId: number,
    family: TvFamily,
    seek: TimeSeekRange | null,
  ): Promise<{ plan: ProgressivePlan; contentFeatures: string; durationSeconds: number }> {
    const { needs, caps } = await this.capsOf(fileId, family);
    const { decision, profile } = needs;
    if (!decision.isPlayable || caps === null) {
      throw new AppError('not_playable', {
        message: `This file cannot play on this TV: ${cannotPlayReason(decision.incompatibility)}.`,
      });
    }
    const plan = await this.deps.conversions.plan(fileId, profile.id, seek);
    const shape = conversionShape(
      caps,
      planHls({ capabilities: caps, decision, profile, encoders: this.deps.editions.encoders }),
    );
    return {
      plan,
      contentFeatures: contentFeatures({ profile: dlnaProfileOf(shape), seek: 'time', converted: true }),
      durationSeconds: plan.layout.durationSeconds,
    };
  }

  /** SubRip of a text subtitle track (WebVTT made once by the subtitle service, renumbered here). */
  async subtitle(fileId: number, index: number): Promise<DlnaServedBytes> {
    const vtt = await this.deps.subtitles.vtt(fileId, index);
    const srt = Buffer.concat([
      UTF8_BOM,
      Buffer.from(vttToSrt((await buffer(vtt.file.read())).toString('utf8')), 'utf8'),
    ]);
    return {
      body: srt,
      etag: strongEtag(['srt', vtt.etag]),
      contentType: 'text/srt; charset=utf-8',
      contentFeatures: null,
    };
  }

  /** The cover fitted into the profile's box, as JPEG (made once per version and kept in memory). */
  async albumArtImage(movieId: number, profile: 'JPEG_TN' | 'JPEG_SM'): Promise<DlnaServedBytes> {
    const version = artworkUrl(await this.deps.artworkState.get(movieId), 'poster');
    if (version === null) throw notFound('cover of movie', movieId);
    const key = `${movieId}|${profile}|${version}`;
    let body = this.art.get(key);
    if (body === undefined) {
      const original = await this.deps.artwork.image(movieId, 'poster', undefined);
      const box = ART_BOX[profile];
      // sharp gets the bytes read through the checked file, never a path of its own.
      body = await sharp(await buffer(original.file.read()))
        .resize({ ...box, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#000000' })
        .jpeg({ quality: 85 })
        .toBuffer();
      this.keepArt(key, body);
    }
    return {
      body,
      etag: `"${createHash('sha1').update(key).digest('hex').slice(0, 20)}"`,
      contentType: 'image/jpeg',
      contentFeatures: imageProtocolInfo(profile).split(':')[3] ?? null,
    };
  }

  private keepArt(key: string, body: Buffer): void {
    this.art.set(key, body);
    this.artBytes += body.length;
    for (const [oldKey, old] of this.art) {
      if (this.artBytes <= ART_CACHE_BYTES) break;
      this.art.delete(oldKey);
      this.artBytes -= old.length;
    }
  }

  /** The conversion's bytes from a plan: see ProgressiveConversions.start. */
  stream(plan: ProgressivePlan, signal: AbortSignal): Promise<Readable> {
    return this.deps.conversions.start(plan, signal);
  }

  /** Conversion streams going now. */
  streaming(): number {
    return this.deps.conversions.running();
  }

  /** Ends every conversion stream (the server is closing). */
  close(): void {
    this.deps.conversions.close();
  }
}
