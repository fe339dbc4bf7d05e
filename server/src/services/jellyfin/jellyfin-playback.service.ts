import { randomUUID } from 'node:crypto';
import {
  type JellyfinDeviceProfile,
  translateDeviceProfile,
  type TranslatedProfile,
} from '../../domain/jellyfin/device-profile.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import {
  type MediaSourceDto,
  mediaSourceInfo,
  noCompatibleStreamMessage,
  subtitleFormatFor,
  trackOfStreamIndex,
} from '../../domain/jellyfin/playback-info.ts';
import { vttToSrt } from '../../domain/subtitles/srt.ts';
import type { PlaybackDecision } from '../../domain/playback/decision-types.ts';
import type { DeviceProfile } from '../../domain/playback/device-profile-types.ts';
import { AppError, notFound } from '../../errors.ts';
import type { ListingViewer } from '../library/library.service.ts';
import type { VisibilityService } from '../people/visibility.service.ts';
import type { ArtifactService } from '../playback/artifact.service.ts';
import type { DeviceProfileService } from '../playback/device-profile.service.ts';
import type { PlaybackEditionPresenter } from '../playback/edition-presenter.ts';
import type { SubtitleVttService } from '../playback/subtitle-vtt.service.ts';
import type { JellyfinLibraryService } from './jellyfin-library.service.ts';

/** What an app asks in PlaybackInfo (body and query merged by the route). */
export interface PlaybackInfoRequest {
  mediaSourceId: string | null;
  deviceProfile: JellyfinDeviceProfile | null;
  maxStreamingBitrate: number | null;
  startTimeTicks: number | null;
  audioStreamIndex: number | null;
  /** -1 = subtitles off. */
  subtitleStreamIndex: number | null;
}

export interface PlaybackInfoResponse {
  MediaSources: MediaSourceDto[];
  PlaySessionId: string;
  ErrorCode?: 'NoCompatibleStream';
  /** Not Jellyfin's: reelshelf's incompatibility detail and hint, for a person reading the answer. */
  ErrorMessage?: string;
}

/** The reelshelf device a static stream is read with: plays every analysed file as it is. */
const STATIC_DEVICE = 'full';
/** Formats reelshelf delivers a text subtitle track in (WebVTT made by ffmpeg, SubRip from it). */
const DELIVERABLE_SUBTITLES = ['vtt', 'srt'] as const;

export interface JellyfinPlaybackDeps {
  library: Pick<JellyfinLibraryService, 'itemDto'>;
  ids: JellyfinIds;
  devices: Pick<DeviceProfileService, 'adopt' | 'resolve'>;
  /** The decision of a file on a device: the same one /library, /stream and HLS use. */
  decisions: Pick<ArtifactService, 'needs'>;
  editions: Pick<PlaybackEditionPresenter, 'capabilitiesOf'>;
  visibility: Pick<VisibilityService, 'canSee'>;
  subtitles: Pick<SubtitleVttService, 'vtt'>;
}

/** The URLs handed to the app, made by the route (it knows the token the app sent). */
export interface PlaybackUrlMaker {
  direct(itemId: string, sourceId: string, container: string | null): string;
  transcoding(itemId: string, sourceId: string, query: Record<string, string>): string;
  subtitle(itemId: string, sourceId: string, index: number, format: string): string;
}

/**
 * Playback through the Jellyfin facade (players.md §1.7): the app's DeviceProfile becomes a reelshelf
 * device profile (domain/jellyfin/device-profile.ts), adopted under an id made from its content so the
 * stream, HLS and subtitle services resolve it like any device; each media source is then decided by
 * the one engine (`ArtifactService.needs` → edition presenter → decidePlayback) and mapped to
 * `MediaSourceInfo`. Files are reached only through an item the person may see.
 */
export class JellyfinPlaybackService {
  constructor(private readonly deps: JellyfinPlaybackDeps) {}

  /** Whether a `userId` an app sent names the caller (an empty one does). */
  isOwnUser(viewer: ListingViewer, userId: string | null): boolean {
    return userId === null || userId === '' || this.deps.ids.decodeAs('user', userId) === viewer.userId;
  }

  /** The reelshelf profile for a posted one (adopted, so its id resolves on the stream URLs). */
  adoptProfile(
    posted: JellyfinDeviceProfile | null,
    maxBitrate: number | null,
  ): TranslatedProfile | DeviceProfile {
    if (posted === null) return this.deps.devices.resolve(undefined);
    const withCap = maxBitrate === null ? posted : { ...posted, MaxStreamingBitrate: maxBitrate };
    const translated = translateDeviceProfile(withCap);
    this.deps.devices.adopt(translated.profile);
    return translated;
  }

  async playbackInfo(
    viewer: ListingViewer,
    itemId: string,
    request: PlaybackInfoRequest,
    urls: PlaybackUrlMaker,
  ): Promise<PlaybackInfoResponse> {
    const item = await this.deps.library.itemDto(viewer, itemId);
    if (item === null) throw notFound('item', itemId.slice(0, 64));
    const allSources = (item.MediaSources ?? []).map((s) => s.Id);
    const wanted =
      request.mediaSourceId === null || request.mediaSourceId === ''
        ? null
        : request.mediaSourceId.toLowerCase();
    // The item's own id as MediaSourceId means its default (first) source (docs/jellyfin.md).
    const sources =
      wanted === null
        ? allSources
        : wanted === item.Id
          ? allSources.slice(0, 1)
          : allSources.filter((id) => id === wanted);
    if (sources.length === 0) throw notFound('media source', (wanted ?? '').slice(0, 64));
    const chosen = this.adoptProfile(request.deviceProfile, request.maxStreamingBitrate);
    const profile = 'profile' in chosen ? chosen.profile : chosen;
    const externalFormats = 'profile' in chosen ? chosen.externalSubtitleFormats : ['vtt'];
    const playSessionId = randomUUID().replaceAll('-', '');
    const out: MediaSourceDto[] = [];
    let firstProblem: PlaybackDecision['incompatibility'] = null;
    for (const sourceId of sources) {
      const fileId = this.deps.ids.decodeAs('media-source', sourceId);
      if (fileId === null) continue;
      const decided = await this.decide(fileId, profile.id, request.subtitleStreamIndex);
      const { decision, caps, file } = decided;
      const audioRef =
        request.audioStreamIndex === null || caps === null
          ? null
          : trackOfStreamIndex(caps, request.audioStreamIndex);
      if (!decision.isPlayable) firstProblem ??= decision.incompatibility;
      const burn = decision.selectedSubtitle?.delivery === 'burn_in' ? decision.selectedSubtitle.track : null;
      const query: Record<string, string> = {
        MediaSourceId: sourceId,
        device: profile.id,
        PlaySessionId: playSessionId,
        ...(request.audioStreamIndex === null ? {} : { AudioStreamIndex: String(request.audioStreamIndex) }),
        // The track it names, for the master playlist's default audio rendition.
        ...(audioRef?.kind === 'audio' ? { audio_track: String(audioRef.track) } : {}),
        ...(request.subtitleStreamIndex === null
          ? {}
          : { SubtitleStreamIndex: String(request.subtitleStreamIndex) }),
        ...(burn === null ? {} : { burn_subtitle: String(burn), SubtitleMethod: 'Encode' }),
        ...(request.startTimeTicks === null || request.startTimeTicks <= 0
          ? {}
          : { StartTimeTicks: String(Math.floor(request.startTimeTicks)) }),
      };
      const container = caps?.container ?? null;
      const dto = mediaSourceInfo(
        {
          id: sourceId,
          name: item.MediaSources?.find((s) => s.Id === sourceId)?.Name ?? item.Name,
          container,
          sizeBytes: Number(file.size_bytes),
          etag: `${file.id}-${file.fingerprint ?? file.size_bytes}`,
          caps,
          decision,
          externalFormats,
          deliverable: DELIVERABLE_SUBTITLES,
        },
        {
          direct: urls.direct(item.Id, sourceId, container),
          transcoding: urls.transcoding(item.Id, sourceId, query),
          subtitle: (index, format) => urls.subtitle(item.Id, sourceId, index, format),
        },
      );
      if (dto.TranscodeReasons !== undefined) {
        dto.TranscodingUrl = urls.transcoding(item.Id, sourceId, {
          ...query,
          TranscodeReasons: dto.TranscodeReasons.join(','),
        });
      }
      out.push(dto);
    }
    const response: PlaybackInfoResponse = { MediaSources: out, PlaySessionId: playSessionId };
    if (out.length > 0 && out.every((s) => !s.SupportsDirectPlay && !s.SupportsTranscoding)) {
      response.ErrorCode = 'NoCompatibleStream';
      response.ErrorMessage = noCompatibleStreamMessage(firstProblem);
    }
    return response;
  }

  /** The decision with the subtitle track the app picked (burned in when its profile cannot show it). */
  private async decide(fileId: number, device: string, subtitleStreamIndex: number | null) {
    const first = await this.deps.decisions.needs(fileId, device);
    const caps = this.deps.editions.capabilitiesOf(first.file);
    if (subtitleStreamIndex === null || subtitleStreamIndex < 0 || caps === null) return { ...first, caps };
    const ref = trackOfStreamIndex(caps, subtitleStreamIndex);
    if (ref?.kind !== 'subtitle') return { ...first, caps };
    const picked = await this.deps.decisions.needs(fileId, device, ref.track);
    return { ...picked, caps };
  }

  /**
   * The media file an app's stream URL names: `mediaSourceId` (kind media-source), else the item id
   * itself when it is one; only when the person may see it (else 404, as for an unknown id).
   */
  async fileOf(viewer: ListingViewer, itemId: string, mediaSourceId: string | null): Promise<number> {
    const ids = this.deps.ids;
    // No source named, or the item's own id (Jellyfin's single-version convention): its first source.
    const named =
      mediaSourceId !== null && mediaSourceId !== '' && normalId(mediaSourceId) !== normalId(itemId);
    const fromSource = named ? ids.decodeAs('media-source', mediaSourceId) : null;
    // A source named but not one (a forged id, another kind): unknown, as PlaybackInfo says (it
    // silently fell back to the first source before).
    if (named && fromSource === null) throw notFound('media source', mediaSourceId.slice(0, 64));
    if (ids.decodeAs('movie', itemId) !== null) {
      // A movie: one of its sources (its first when none is named), read through the item the person sees.
      const item = await this.deps.library.itemDto(viewer, itemId);
      const sources = (item?.MediaSources ?? []).map((s) => ids.decodeAs('media-source', s.Id));
      const fileId = fromSource ?? sources[0] ?? null;
      if (fileId !== null && sources.includes(fileId)) return fileId;
    } else {
      // A file matched to no movie is an item whose id is its source's.
      const fileId = ids.decodeAs('media-source', itemId);
      const same = fromSource === null || fromSource === fileId;
      if (fileId !== null && same && (await this.deps.visibility.canSee(viewer, { mediaFileId: fileId })))
        return fileId;
    }
    throw notFound('item', itemId.slice(0, 64));
  }

  /** The reelshelf device a static stream (`static=true`) reads a file with: as it is. */
  get staticDevice(): string {
    return STATIC_DEVICE;
  }

  /**
   * A text subtitle track as a file: WebVTT as reelshelf makes it, or SubRip converted from it.
   * @param index the Jellyfin stream index of the track
   */
  async subtitle(
    fileId: number,
    index: number,
    format: string,
  ): Promise<
    | { body: Buffer; etag: string; contentType: string }
    | { vtt: Awaited<ReturnType<SubtitleVttService['vtt']>> }
  > {
    const needs = await this.deps.decisions.needs(fileId, STATIC_DEVICE);
    const caps = this.deps.editions.capabilitiesOf(needs.file);
    const ref = caps === null ? null : trackOfStreamIndex(caps, index);
    if (ref?.kind !== 'subtitle') {
      throw new AppError('not_found', {
        message: `Stream ${index} of this media source is not a subtitle track.`,
        hint: 'Use the DeliveryUrl of a subtitle stream from PlaybackInfo.',
      });
    }
    const wanted = format.toLowerCase();
    if (subtitleFormatFor([wanted], DELIVERABLE_SUBTITLES) === null) {
      throw new AppError('not_found', {
        message: `Subtitles are served as ${DELIVERABLE_SUBTITLES.join(' or ')}, not ${wanted.slice(0, 16)}.`,
      });
    }
    const vtt = await this.deps.subtitles.vtt(fileId, ref.track);
    if (wanted === 'vtt') return { vtt };
    const chunks: Buffer[] = [];
    for await (const chunk of vtt.file.read()) chunks.push(Buffer.from(chunk as Uint8Array));
    const text = Buffer.concat(chunks).toString('utf8');
    return {
      body: Buffer.from(vttToSrt(text), 'utf8'),
      etag: vtt.etag.replace(/"$/, '-srt"'),
      contentType: 'application/x-subrip; charset=utf-8',
    };
  }
}

/** Ids as the apps send them: any case, dashed or not. */
function normalId(id: string): string {
  return id.toLowerCase().replaceAll('-', '');
}
