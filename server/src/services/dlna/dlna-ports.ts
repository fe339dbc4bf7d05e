/**
 * The seams between the DLNA parts (docs/dlna.md): the control routes hand a ContentDirectory action
 * to the content directory service, which lists the DLNA person's films and asks the media service
 * how each file plays on the asking TV. Types only.
 */
import type { DidlResource } from '../../domain/dlna/didl.ts';
import type { UpnpErrorCode } from '../../domain/dlna/soap.ts';

/** The TV that asked, as the DLNA routes read it off the HTTP request. */
export interface DlnaClient {
  /** The peer address (already known to be a LAN address). */
  address: string;
  userAgent: string;
  /** Sony's `X-AV-Client-Info`, null when not sent. */
  avClientInfo: string | null;
  /** `http://<host:port>` as the TV reached us (from the Host header, or the local address): URLs in answers go there. */
  baseUrl: string;
}

/** How one media file is offered to one TV (issue 24 §4–5). */
export interface DlnaFilePresentation {
  /** One `res` per way it plays, best first; empty when nothing plays on this TV. */
  resources: DidlResource[];
  /** Samsung's `sec:CaptionInfoEx` (also offered as a `text/srt` res inside `resources`). */
  captions: { url: string; type: 'srt' }[];
  /** Why it cannot play on this TV ("DTS audio"), null when it plays. */
  cannotPlay: string | null;
}

/** The media service, as the content directory uses it. */
export interface DlnaMediaPort {
  presentFile(fileId: number, client: DlnaClient): Promise<DlnaFilePresentation>;
  /**
   * The film's cover for the TV (JPEG_TN, or JPEG_SM), null when it has none. Asynchronous: whether a
   * film has a cover (and its version, which is in the URL) is read from its artwork row.
   */
  albumArt(
    movieId: number,
    client: DlnaClient,
  ): Promise<{ url: string; profile: 'JPEG_TN' | 'JPEG_SM' } | null>;
}

/** A control action's outcome: output arguments in the SCPD's order, or a UPnP fault. */
export type DlnaActionOutcome =
  | { ok: true; values: [name: string, value: string][] }
  | { ok: false; code: UpnpErrorCode; description?: string };

/** A UPnP service's action handler (ContentDirectory, ConnectionManager, the registrar). */
export interface DlnaServiceHandler {
  handle(
    action: string,
    args: Readonly<Record<string, string>>,
    client: DlnaClient,
  ): Promise<DlnaActionOutcome>;
}
