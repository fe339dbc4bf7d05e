import type { StoredFile } from '../../../adapters/data-store.ts';
import {
  audioCodecString,
  encodedVideoCodecString,
  videoCodecString,
} from '../../../domain/hls/codec-strings.ts';
import { HLS_TIMESTAMP_OFFSET_SECONDS } from '../../../domain/hls/hls-command.ts';
import { hlsFileNames } from '../../../domain/hls/hls-plan.ts';
import { webVttWindow } from '../../../domain/hls/webvtt-window.ts';
import {
  renderMasterPlaylist,
  renderMediaPlaylist,
  type SubtitleRendition,
} from '../../../domain/hls/playlists.ts';
import { defaultSubtitleIndex, subtitleLabel } from '../../../domain/subtitles/subtitle-list.ts';
import type { SubtitleTrack } from '../../../domain/subtitles/subtitle-track.ts';
import { AppError } from '../../../errors.ts';
import type { Presentation } from './presentation.ts';

/** A file's subtitle tracks and their WebVTT (text tracks become the SUBTITLES rendition group). */
export interface HlsSubtitleSource {
  tracks(fileId: number): Promise<SubtitleTrack[]>;
  vtt(fileId: number, index: number): Promise<{ file: StoredFile; etag: string }>;
}

/**
 * The playlists of a presentation (RFC 8216 v7, the whole film listed up front) and its WebVTT
 * subtitle renditions: text only, made from what the presentation and the file's tracks say.
 */
export class HlsPlaylists {
  constructor(private readonly subtitles: HlsSubtitleSource | undefined) {}

  /** @param query the query every URI carries on (device, token, burn-in) */
  async master(s: Presentation, query: string): Promise<string> {
    const video = s.caps.video;
    const plan = s.plan;
    const videoBitrate =
      plan.video === 'copy'
        ? (video?.bitrate_bps ?? Math.max(0, (s.caps.bitrate_bps ?? 8_000_000) - 640_000))
        : (plan.video?.maxBitrateBps ?? estimateEncodedBitrate(video?.width ?? 1280, video?.height ?? 720));
    const size = outputSize(s);
    const videoCodecs =
      video === null
        ? null
        : plan.video === 'copy'
          ? videoCodecString(video, plan.videoTag === null ? {} : { sampleEntry: plan.videoTag })
          : plan.video === null
            ? null
            : encodedVideoCodecString({
                codec: plan.video.codec as 'h264' | 'hevc' | 'av1',
                width: size.width ?? 1280,
                height: size.height ?? 720,
                frameRate: video.frame_rate,
                bitDepth: plan.video.bitDepth,
              });
    const audio = plan.audio.map((a) => ({
      uri: `hls/a${a.track}/index.m3u8?${query}`,
      groupId: 'audio',
      name: a.name,
      language: a.language,
      isDefault: a.isDefault,
      channels: a.channels,
      codecs: audioCodecString({ codec: a.codec, profile: a.profile }),
      bandwidth: a.bitrate,
    }));
    return renderMasterPlaylist({
      video: {
        uri: `hls/v/index.m3u8?${query}`,
        codecs: videoCodecs,
        width: size.width,
        height: size.height,
        frameRate: video?.frame_rate ?? null,
        // Peak: copied video is as the source's average plus headroom; encoded has its cap.
        bandwidth: Math.round(videoBitrate * 1.5),
        averageBandwidth: Math.round(videoBitrate),
      },
      audio,
      subtitles: await this.subtitleRenditions(s, query),
    });
  }

  /** The media playlist of a video or audio rendition. */
  media(s: Presentation, query: string): string {
    const names = hlsFileNames(s.plan.container);
    return renderMediaPlaylist({
      segments: s.segments,
      timelineStart: s.timelineStart,
      initUri: names.init === null ? null : `${names.init}?${query}`,
      segmentUri: (index) => `${index}${names.segment}?${query}`,
    });
  }

  /**
   * The media playlist of a subtitle rendition: WebVTT segments on the media segments' boundaries
   * (VLC 3.0 deadlocks its buffering after a seek on one whole-film segment; Apple's authoring spec
   * asks for subtitle segments as long as the media's).
   */
  async subtitle(s: Presentation, index: number, query: string): Promise<string> {
    await this.requireTextTrack(s, index);
    return renderMediaPlaylist({
      segments: s.segments,
      timelineStart: s.timelineStart,
      initUri: null,
      segmentUri: (segment) => `${segment}.vtt?${query}`,
    });
  }

  /**
   * A WebVTT segment of a subtitle rendition: the track's cues shown during media segment `segment`,
   * with an `X-TIMESTAMP-MAP` saying that cue time 0 is media time
   * {@link HLS_TIMESTAMP_OFFSET_SECONDS} (the segments' timestamps are shifted by it), so players
   * line the cues up with the picture (RFC 8216 §3.5).
   */
  async subtitleSegment(
    s: Presentation,
    index: number,
    segment: number,
  ): Promise<{ body: Buffer; etag: string }> {
    await this.requireTextTrack(s, index);
    const source = this.subtitles;
    if (source === undefined) throw new AppError('not_found', { message: 'No subtitles here.' });
    const window = s.segments[segment];
    if (window === undefined) {
      throw new AppError('not_found', {
        status: 404,
        message: `This presentation has subtitle segments 0 to ${s.segments.length - 1}.`,
      });
    }
    const vtt = await source.vtt(s.fileId, index);
    const chunks: Buffer[] = [];
    for await (const chunk of vtt.file.read())
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    const whole = withTimestampMap(Buffer.concat(chunks).toString('utf8'));
    // The last segment takes every cue to the end (a cue past the film's end is still shown).
    const end = segment === s.segments.length - 1 ? Number.POSITIVE_INFINITY : window.start + window.duration;
    return {
      body: Buffer.from(webVttWindow(whole, window.start, end)),
      etag: `${vtt.etag.slice(0, -1)}-hls-${segment}"`,
    };
  }

  /** Text subtitle tracks as WebVTT renditions (image tracks cannot be: they are burned in on request). */
  private async subtitleRenditions(s: Presentation, query: string): Promise<SubtitleRendition[]> {
    if (this.subtitles === undefined) return [];
    const tracks = await this.subtitles.tracks(s.fileId);
    const audio = s.plan.audio.find((a) => a.isDefault) ?? s.plan.audio[0];
    const shown = defaultSubtitleIndex(tracks, audio?.language ?? null);
    // A track burned into this presentation's picture is not offered again as text.
    const burned = s.plan.video !== null && s.plan.video !== 'copy' ? s.plan.video.burnSubtitle : null;
    return tracks
      .filter((t) => t.kind === 'text' && t.index !== burned)
      .map((t) => ({
        uri: `hls/s${t.index}/index.m3u8?${query}`,
        name: subtitleLabel(t),
        language: t.language,
        isDefault: t.index === shown,
        forced: t.forced,
      }));
  }

  private async requireTextTrack(s: Presentation, index: number): Promise<void> {
    const tracks = (await this.subtitles?.tracks(s.fileId)) ?? [];
    if (!tracks.some((t) => t.index === index && t.kind === 'text')) {
      throw new AppError('not_found', {
        message: `This presentation has no text subtitle track ${index}.`,
        hint: `GET /api/media-file/${s.fileId}/playback lists the subtitle tracks.`,
      });
    }
  }
}

/** MPEG-TS clock ticks per second, the unit of X-TIMESTAMP-MAP's MPEGTS. */
const MPEGTS_HZ = 90_000;

/** The WebVTT with the header line that maps cue time 0 to the segments' first timestamp. */
export function withTimestampMap(vtt: string): string {
  const text = vtt.replace(/^\uFEFF/, '');
  const map = `X-TIMESTAMP-MAP=MPEGTS:${HLS_TIMESTAMP_OFFSET_SECONDS * MPEGTS_HZ},LOCAL:00:00:00.000`;
  const end = text.indexOf('\n');
  const header = end === -1 ? text : text.slice(0, end).replace(/\r$/, '');
  const rest = end === -1 ? '' : text.slice(end + 1);
  return `${header}\n${map}\n${rest.replace(/^X-TIMESTAMP-MAP=[^\n]*\n/, '')}`;
}

/** The picture size the segments have (the encode's cap applied to the source). */
function outputSize(s: Presentation): { width: number | null; height: number | null } {
  const video = s.caps.video;
  if (video === null) return { width: null, height: null };
  const plan = s.plan.video;
  if (plan === null || plan === 'copy' || video.width === null || video.height === null) {
    return { width: video.width, height: video.height };
  }
  const factor = Math.min(
    1,
    plan.maxWidth === undefined ? 1 : plan.maxWidth / video.width,
    plan.maxHeight === undefined ? 1 : plan.maxHeight / video.height,
  );
  const even = (n: number) => Math.max(2, Math.trunc((n * factor) / 2) * 2);
  return { width: even(video.width), height: even(video.height) };
}

/** A CRF encode's typical peak for its picture size (BANDWIDTH when no cap is set). */
function estimateEncodedBitrate(width: number, height: number): number {
  return Math.round(width * height * 25 * 0.15);
}
