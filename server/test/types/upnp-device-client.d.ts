// upnp-device-client 1.0.2 ships no types: the part of its API the DLNA judge uses
// (node_modules/upnp-device-client/index.js). Callback style; a UPnP fault comes back as an Error
// with code 'EUPNP', the HTTP status and the UPnP errorCode (a string, as read from the XML).
declare module 'upnp-device-client' {
  interface UpnpServiceDescription {
    serviceType: string;
    SCPDURL: string;
    controlURL: string;
    eventSubURL: string;
  }
  interface UpnpDeviceDescription {
    deviceType: string;
    friendlyName: string;
    manufacturer: string;
    modelName: string;
    UDN: string;
    icons: { mimetype: string; width: string; height: string; url: string }[];
    /** Keyed by serviceId (`urn:upnp-org:serviceId:ContentDirectory`). */
    services: Record<string, UpnpServiceDescription>;
  }
  interface UpnpActionError extends Error {
    code?: string;
    statusCode?: number;
    errorCode?: string;
  }
  class DeviceClient {
    constructor(url: string);
    getDeviceDescription(callback: (err: UpnpActionError | null, desc: UpnpDeviceDescription) => void): void;
    /** `serviceId` without a colon is taken as `urn:upnp-org:serviceId:<serviceId>`. */
    callAction(
      serviceId: string,
      actionName: string,
      params: Record<string, string | number | null>,
      callback: (err: UpnpActionError | null, result: Record<string, string | undefined>) => void,
    ): void;
  }
  export = DeviceClient;
}
