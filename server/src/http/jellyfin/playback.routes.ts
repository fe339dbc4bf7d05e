import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import { readDeviceProfile } from '../../domain/jellyfin/device-profile-input.ts';
import { queryValue, type RawQuery } from '../../domain/jellyfin/items-query.ts';
import { withDefaultAudio, withStartOffset } from '../../domain/jellyfin/playback-info.ts';
import { ticksToSeconds, toWireJson } from '../../domain/jellyfin/wire.ts';
import type { TokenHolder } from '../../domain/playback-token.ts';
import { AppError, validationFailed } from '../../errors.ts';
import type {
  JellyfinPlaybackService,
  PlaybackInfoRequest,
  PlaybackUrlMaker,
} from '../../services/jellyfin/jellyfin-playback.service.ts';
import type { HlsService } from '../../services/playback/hls.service.ts';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import type { StreamService } from '../../services/playback/stream.service.ts';
import { principalOf } from '../principal.ts';
import { sendBytes, sendFile, sendHlsFile, sendPlaylist, STREAM_CACHE_CONTROL } from '../stream-response.ts';
import { WEBVTT_CONTENT_TYPE } from '../routes/subtitles.routes.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';

export interface JellyfinPlaybackRouteDeps {
  playback: JellyfinPlaybackService;
  streams: Pick<StreamService, 'target'>;
  hls: HlsService;
  plays: Pick<NowPlayingService, 'seen'>;
}

const V = `${JELLYFIN_PREFIX}/videos/:itemid`;

const RENDITION = /^(v|a[0-9]{1,3}|s[0-9]{1,4})$/;

type ItemRequest = FastifyRequest<{ Params: { itemid: string } }>;

function holderOf(request: FastifyRequest): TokenHolder {
  const principal = principalOf(request);
  return { userId: principal.userId, credential: principal.credential };
}

/** The token the app sent (header or query): the stream URLs handed back carry it as `ApiKey`. */
function tokenOf(request: FastifyRequest): string {
  return readJellyfinCredentials(request.headers, (request.query ?? {}) as RawQuery).token ?? '';
}

function numberOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value.trim())) return Number(value);
  return null;
}

/** A body key in PascalCase or camelCase (the SDK sends PascalCase; some apps camelCase). */
function bodyValue(body: Record<string, unknown>, key: string): unknown {
  const wanted = key.toLowerCase();
  for (const [name, value] of Object.entries(body)) if (name.toLowerCase() === wanted) return value;
  return undefined;
}

/** PlaybackInfo's inputs: the body's PlaybackInfoDto, each overridden by the query when given there. */
function readPlaybackInfo(request: FastifyRequest): PlaybackInfoRequest {
  const query = (request.query ?? {}) as RawQuery;
  const raw = request.body;
  const body =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const pick = (key: string) => queryValue(query, key) ?? bodyValue(body, key);
  const profile = readDeviceProfile(bodyValue(body, 'DeviceProfile'));
  if (!profile.ok) throw validationFailed(profile.field, profile.message);
  const text = pick('MediaSourceId');
  return {
    mediaSourceId: typeof text === 'string' ? text : null,
    deviceProfile: profile.profile,
    maxStreamingBitrate: numberOrNull(pick('MaxStreamingBitrate')),
    startTimeTicks: numberOrNull(pick('StartTimeTicks')),
    audioStreamIndex: numberOrNull(pick('AudioStreamIndex')),
    subtitleStreamIndex: numberOrNull(pick('SubtitleStreamIndex')),
  };
}

/** URLs relative to the app's base (`http://h:p/jellyfin` + `/Videos/…`), each with the app's token. */
function urlMaker(token: string): PlaybackUrlMaker {
  const key = encodeURIComponent(token);
  return {
    direct: (itemId, sourceId, container) =>
      `/Videos/${itemId}/stream${container === null ? '' : `.${container}`}?static=true&mediaSourceId=${sourceId}&ApiKey=${key}`,
    transcoding: (itemId, _sourceId, query) =>
      `/Videos/${itemId}/master.m3u8?${new URLSearchParams({ ...query, ApiKey: token }).toString()}`,
    subtitle: (itemId, sourceId, index, format) =>
      `/Videos/${itemId}/${sourceId}/Subtitles/${index}/0/Stream.${format}?ApiKey=${key}`,
  };
}

/**
 * Playback through the Jellyfin facade (players.md §1.7): `PlaybackInfo` (the app's DeviceProfile
 * decided by reelshelf's one engine), the static stream with ranges, reelshelf's HLS under
 * `/Videos/{id}/…` (so `basePath + TranscodingUrl` works whatever the app's base) and text subtitles
 * as files. The person is the token's (a revoked session fails in the auth hook, at once); a film
 * above their limit is a 404 like an unknown id.
 */
export function registerJellyfinPlaybackRoutes(app: FastifyInstance, deps: JellyfinPlaybackRouteDeps): void {
  const { playback, streams, hls, plays } = deps;

  const info = async (request: ItemRequest, reply: FastifyReply) => {
    const principal = principalOf(request);
    const params = request.params as { userid?: string };
    const userId = params.userid ?? queryValue((request.query ?? {}) as RawQuery, 'userId');
    if (!playback.isOwnUser(principal, userId)) {
      throw new AppError('forbidden', {
        message: 'A token plays only for its own person.',
        hint: 'Leave userId out or send the Id that AuthenticateByName returned.',
      });
    }
    const answer = await playback.playbackInfo(
      principal,
      request.params.itemid,
      readPlaybackInfo(request),
      urlMaker(tokenOf(request)),
    );
    reply.type('application/json; charset=utf-8');
    return toWireJson(answer);
  };
  for (const url of [
    `${JELLYFIN_PREFIX}/items/:itemid/playbackinfo`,
    `${JELLYFIN_PREFIX}/users/:userid/items/:itemid/playbackinfo`,
  ]) {
    app.get(url, info);
    app.post(url, info);
  }

  const staticStream = async (request: ItemRequest, reply: FastifyReply) => {
    const query = (request.query ?? {}) as RawQuery;
    const fileId = await playback.fileOf(
      principalOf(request),
      request.params.itemid,
      queryValue(query, 'mediaSourceId'),
    );
    const target = await streams.target(fileId, playback.staticDevice);
    if (target.kind !== 'file') throw new Error('a static stream is always the file itself');
    await plays.seen({ holder: holderOf(request), fileId, device: playback.staticDevice, mode: 'direct' });
    return sendFile(request, reply, target);
  };
  for (const url of [`${V}/stream`, `${V}/stream.:container`]) {
    app.route({ method: ['GET', 'HEAD'], url, compress: false, handler: staticStream });
  }

  /** The file, device and burn-in an HLS URL names, and the query its playlists' URIs carry on. */
  const hlsContext = async (request: ItemRequest) => {
    const query = (request.query ?? {}) as RawQuery;
    const sourceId = queryValue(query, 'MediaSourceId');
    const fileId = await playback.fileOf(principalOf(request), request.params.itemid, sourceId);
    const device = queryValue(query, 'device') ?? 'web';
    const burnText = queryValue(query, 'burn_subtitle');
    const burn = burnText !== null && /^\d{1,4}$/.test(burnText) ? Number(burnText) : undefined;
    await plays.seen({ holder: holderOf(request), fileId, device });
    const carried = new URLSearchParams({
      device,
      ApiKey: tokenOf(request),
      ...(sourceId === null ? {} : { MediaSourceId: sourceId }),
      ...(burn === undefined ? {} : { burn_subtitle: String(burn) }),
    });
    return { fileId, device, burn, carried: carried.toString(), query };
  };

  app.get(`${V}/master.m3u8`, async (request: ItemRequest, reply) => {
    const { fileId, device, burn, carried, query } = await hlsContext(request);
    const start = ticksToSeconds(queryValue(query, 'StartTimeTicks'));
    // The seek thumbnails as Jellyfin announces them: its own sheets at Trickplay/{width}/tiles.m3u8.
    const text = await hls.masterPlaylist(fileId, device, carried, burn, (made) => ({
      variant: 'sheets',
      uri: `Trickplay/${made.layout.thumbnailWidth}/tiles.m3u8?${carried}`,
    }));
    // The app's AudioStreamIndex, as the reelshelf track PlaybackInfo put in the URL.
    const audioText = queryValue(query, 'audio_track');
    const audioTrack = audioText !== null && /^\d{1,3}$/.test(audioText) ? Number(audioText) : null;
    return sendPlaylist(request, reply, withDefaultAudio(withStartOffset(text, start), audioTrack));
  });

  const renditionOf = (request: FastifyRequest<{ Params: { rendition: string } }>) => {
    const { rendition } = request.params;
    if (!RENDITION.test(rendition)) {
      throw new AppError('not_found', { message: 'HLS renditions are v, a<n> and s<n>.' });
    }
    return rendition;
  };

  app.get(
    `${V}/hls/:rendition/index.m3u8`,
    async (request: FastifyRequest<{ Params: { itemid: string; rendition: string } }>, reply) => {
      const rendition = renditionOf(request);
      const { fileId, device, burn, carried } = await hlsContext(request);
      const text = rendition.startsWith('s')
        ? await hls.subtitlePlaylist(fileId, device, Number(rendition.slice(1)), carried, burn)
        : await hls.mediaPlaylist(fileId, device, rendition, carried, burn);
      return sendPlaylist(request, reply, text);
    },
  );

  app.route<{ Params: { itemid: string; rendition: string; segment: string } }>({
    method: ['GET', 'HEAD'],
    url: `${V}/hls/:rendition/:segment`,
    compress: false,
    handler: async (request, reply) => {
      const rendition = renditionOf(request);
      const { fileId, device, burn } = await hlsContext(request);
      const { segment } = request.params;
      if (rendition.startsWith('s')) {
        const part = /^(\d{1,6})\.vtt$/.exec(segment);
        if (part === null) throw new AppError('not_found', { message: 'Subtitle segments are <n>.vtt.' });
        const vtt = await hls.subtitleSegment(
          fileId,
          device,
          Number(rendition.slice(1)),
          Number(part[1]),
          burn,
        );
        return sendBytes(
          request,
          reply,
          { body: vtt.body, etag: vtt.etag, lastModified: null, contentType: WEBVTT_CONTENT_TYPE },
          STREAM_CACHE_CONTROL,
        );
      }
      const type = (ts: boolean) =>
        ts ? 'video/mp2t' : rendition.startsWith('a') ? 'audio/mp4' : 'video/mp4';
      if (segment === 'init.mp4')
        return sendHlsFile(request, reply, await hls.init(fileId, device, rendition, burn), type(false));
      const match = /^(\d{1,6})\.(m4s|ts)$/.exec(segment);
      if (match === null) {
        throw new AppError('not_found', {
          message: 'HLS files are index.m3u8, init.mp4, <n>.ts and <n>.m4s.',
        });
      }
      const served = await hls.segment(fileId, device, rendition, Number(match[1]), burn);
      return sendHlsFile(request, reply, served, type(match[2] === 'ts'));
    },
  });

  const subtitle = async (
    request: FastifyRequest<{
      Params: { itemid: string; mediasourceid: string; index: string; format: string };
    }>,
    reply: FastifyReply,
  ) => {
    const { itemid, mediasourceid, index, format } = request.params;
    if (!/^\d{1,4}$/.test(index))
      throw new AppError('not_found', { message: 'A subtitle index is a number.' });
    const fileId = await playback.fileOf(principalOf(request), itemid, mediasourceid);
    const served = await playback.subtitle(fileId, Number(index), format);
    if ('vtt' in served) {
      const { vtt } = served;
      return sendFile(
        request,
        reply,
        { file: vtt.file, etag: vtt.etag, lastModified: vtt.lastModified, contentType: WEBVTT_CONTENT_TYPE },
        STREAM_CACHE_CONTROL,
      );
    }
    return sendBytes(
      request,
      reply,
      { body: served.body, etag: served.etag, lastModified: null, contentType: served.contentType },
      STREAM_CACHE_CONTROL,
    );
  };
  for (const url of [
    `${V}/:mediasourceid/subtitles/:index/stream.:format`,
    `${V}/:mediasourceid/subtitles/:index/:startticks/stream.:format`,
  ]) {
    app.route({ method: ['GET', 'HEAD'], url, handler: subtitle });
  }
}
