/**
 * The device description SSDP's LOCATION points at (UDA 1.0 §2.1; players.md §2.1): a MediaServer:1
 * that says DLNA 1.50 (`DMS-1.50`), its name, its stable UDN, its icons and its three services, with
 * URLs from the one path table (paths.ts). URLs are relative to the address the TV fetched the
 * description from (no URLBase: UDA 1.0 resolves them against it), so one document serves every
 * interface.
 */
import {
  DLNA_DEVICE_TYPE,
  DLNA_SERVICES,
  dlnaPaths,
  serviceId,
  serviceType,
  type DlnaServiceName,
} from './paths.ts';
import { element } from './xml.ts';

export interface DeviceIdentity {
  friendlyName: string;
  /** `uuid:<v4>` */
  udn: string;
  /** reelshelf's version (modelNumber). */
  modelNumber: string;
}

export const DLNA_ICON_SIZES = [48, 120] as const;
export type DlnaIconSize = (typeof DLNA_ICON_SIZES)[number];
export const DLNA_ICON_TYPES = ['png', 'jpeg'] as const;
export type DlnaIconType = (typeof DLNA_ICON_TYPES)[number];

/** `/dlna/icon-48.png` → its size and type; null for anything else. */
export function iconOf(path: string): { size: DlnaIconSize; type: DlnaIconType } | null {
  for (const size of DLNA_ICON_SIZES) {
    for (const type of DLNA_ICON_TYPES) if (dlnaPaths.icon(size, type) === path) return { size, type };
  }
  return null;
}

/** The `<service>` entry of one service. */
function serviceEntry(name: DlnaServiceName): string {
  return (
    '<service>' +
    element('serviceType', serviceType(name)) +
    element('serviceId', serviceId(name)) +
    element('SCPDURL', dlnaPaths.scpd(name)) +
    element('controlURL', dlnaPaths.control(name)) +
    element('eventSubURL', dlnaPaths.events(name)) +
    '</service>'
  );
}

function iconEntry(size: DlnaIconSize, type: DlnaIconType): string {
  return (
    '<icon>' +
    element('mimetype', `image/${type}`) +
    element('width', String(size)) +
    element('height', String(size)) +
    element('depth', '24') +
    element('url', dlnaPaths.icon(size, type)) +
    '</icon>'
  );
}

/** `description.xml` (`urn:schemas-upnp-org:device-1-0`). */
export function renderDeviceDescription(device: DeviceIdentity): string {
  const icons = DLNA_ICON_SIZES.flatMap((size) => DLNA_ICON_TYPES.map((type) => iconEntry(size, type)));
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<root xmlns="urn:schemas-upnp-org:device-1-0" xmlns:dlna="urn:schemas-dlna-org:device-1-0">' +
    '<specVersion><major>1</major><minor>0</minor></specVersion>' +
    '<device>' +
    element('deviceType', DLNA_DEVICE_TYPE) +
    element('dlna:X_DLNADOC', 'DMS-1.50') +
    element('dlna:X_DLNACAP', null) +
    element('friendlyName', device.friendlyName) +
    element('manufacturer', 'reelshelf') +
    element('modelDescription', 'reelshelf home film library') +
    element('modelName', 'reelshelf') +
    element('modelNumber', device.modelNumber) +
    element('UDN', device.udn) +
    element('presentationURL', '/') +
    `<iconList>${icons.join('')}</iconList>` +
    `<serviceList>${DLNA_SERVICES.map(serviceEntry).join('')}</serviceList>` +
    '</device></root>'
  );
}

/** A UDN as kept in the data dir: `uuid:` and a lower-case RFC 4122 version-4 UUID. */
export function isDlnaUdn(text: string): boolean {
  return /^uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(text);
}
