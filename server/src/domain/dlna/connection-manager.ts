/**
 * ConnectionManager:1 for a server that only serves HTTP GET (CM §2.4): no connections are ever
 * prepared, so the one connection is 0; `GetProtocolInfo`'s `Source` is what reelshelf can send.
 * Pure: the list is derived once from protocol-info.ts, so a profile it learns to name is announced.
 */
import { dlnaProfileOf, imageProtocolInfo, SRT_PROTOCOL_INFO, type StreamShape } from './protocol-info.ts';

/** The MIME types of what reelshelf serves whole (files) or converted (MP4, MPEG-TS). */
export const SOURCE_MIME_TYPES = [
  'video/mp4',
  'video/mpeg',
  'video/vnd.dlna.mpeg-tts',
  'video/x-matroska',
  'video/webm',
  'video/quicktime',
  'video/x-msvideo',
] as const;

/** Which MIME type a container's DLNA profiles are announced under. */
const MIME_OF_CONTAINER: Record<string, string> = {
  mp4: 'video/mp4',
  mpegts: 'video/mpeg',
  m2ts: 'video/vnd.dlna.mpeg-tts',
};

/** Every DLNA profile `dlnaProfileOf` can name, by container: found by asking it about every shape it tells apart. */
function namedProfiles(): [container: string, profile: string][] {
  const found = new Map<string, [string, string]>();
  const sizes: [number, number][] = [
    [720, 480],
    [720, 576],
    [1280, 720],
    [1920, 1080],
  ];
  const audios: [string, number][] = [
    ['aac', 2],
    ['aac', 6],
    ['ac3', 6],
    ['mp3', 2],
    ['mp2', 2],
  ];
  for (const container of Object.keys(MIME_OF_CONTAINER)) {
    for (const videoCodec of ['h264', 'mpeg2video']) {
      for (const videoProfile of ['Main', 'High']) {
        for (const [width, height] of sizes) {
          for (const framesPerSecond of [24, 25, 29.97, 50, 60]) {
            for (const [audioCodec, audioChannels] of audios) {
              const shape: StreamShape = {
                container,
                videoCodec,
                videoProfile,
                width,
                height,
                framesPerSecond,
                audioCodec,
                audioChannels,
              };
              const profile = dlnaProfileOf(shape);
              if (profile !== null) found.set(`${container}/${profile}`, [container, profile]);
            }
          }
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
}

/** `GetProtocolInfo`'s `Source`: art, the profiled streams, then every type without a profile, then SRT. */
export function sourceProtocolInfo(): string {
  const entries = [
    imageProtocolInfo('JPEG_TN'),
    imageProtocolInfo('JPEG_SM'),
    ...namedProfiles().map(
      ([container, profile]) =>
        `http-get:*:${MIME_OF_CONTAINER[container] ?? 'video/mpeg'}:DLNA.ORG_PN=${profile}`,
    ),
    ...SOURCE_MIME_TYPES.map((mime) => `http-get:*:${mime}:*`),
    SRT_PROTOCOL_INFO,
  ];
  return entries.join(',');
}

/** The only connection of an HTTP-GET-only server (CM §2.4.2: "0" when PrepareForConnection is absent). */
export const DEFAULT_CONNECTION_ID = '0';

/** `GetCurrentConnectionInfo` of connection 0, in the SCPD's output order. */
export const DEFAULT_CONNECTION_INFO: [string, string][] = [
  ['RcsID', '-1'],
  ['AVTransportID', '-1'],
  ['ProtocolInfo', ''],
  ['PeerConnectionManager', ''],
  ['PeerConnectionID', '-1'],
  ['Direction', 'Output'],
  ['Status', 'OK'],
];
