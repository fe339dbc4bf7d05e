/**
 * Where the DLNA MediaServer lives on the main port (INTERFACE.md "DLNA"). One table so that SSDP's
 * LOCATION, the device description's URLs and the routes agree. Media, art and subtitle URLs are
 * made by the media service (they carry a signed token) under DLNA_MEDIA_PREFIX.
 */
export const DLNA_PREFIX = '/dlna';

/** The device description SSDP's LOCATION points at. */
export const DLNA_DESCRIPTION_PATH = `${DLNA_PREFIX}/description.xml`;

export const DLNA_SERVICES = [
  'ContentDirectory',
  'ConnectionManager',
  'X_MS_MediaReceiverRegistrar',
] as const;
export type DlnaServiceName = (typeof DLNA_SERVICES)[number];

export const DLNA_DEVICE_TYPE = 'urn:schemas-upnp-org:device:MediaServer:1';

/** `urn:…:service:<name>:1` (the registrar's domain is Microsoft's). */
export function serviceType(name: DlnaServiceName): string {
  return name === 'X_MS_MediaReceiverRegistrar'
    ? 'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1'
    : `urn:schemas-upnp-org:service:${name}:1`;
}

export function serviceId(name: DlnaServiceName): string {
  return name === 'X_MS_MediaReceiverRegistrar'
    ? 'urn:microsoft.com:serviceId:X_MS_MediaReceiverRegistrar'
    : `urn:upnp-org:serviceId:${name}`;
}

export const dlnaPaths = {
  scpd: (name: DlnaServiceName) => `${DLNA_PREFIX}/${name}.xml`,
  control: (name: DlnaServiceName) => `${DLNA_PREFIX}/control/${name}`,
  events: (name: DlnaServiceName) => `${DLNA_PREFIX}/events/${name}`,
  icon: (size: 48 | 120, type: 'png' | 'jpeg') =>
    `${DLNA_PREFIX}/icon-${size}.${type === 'png' ? 'png' : 'jpg'}`,
} as const;

/** Media (files, conversions), album art and subtitles: `/dlna/media/…`, owned by the media routes. */
export const DLNA_MEDIA_PREFIX = `${DLNA_PREFIX}/media`;
