/**
 * Microsoft's X_MS_MediaReceiverRegistrar:1, which Xbox and Windows Media Player ask before they
 * browse. Every LAN device is authorised and validated: who may use DLNA is decided by the address
 * (LAN only) and the DLNA person's view, not by a registration. A DlnaServiceHandler.
 */
import { UpnpError } from '../../domain/dlna/soap.ts';
import type { DlnaActionOutcome, DlnaServiceHandler } from './dlna-ports.ts';

export class MediaReceiverRegistrarService implements DlnaServiceHandler {
  handle(action: string): Promise<DlnaActionOutcome> {
    switch (action) {
      case 'IsAuthorized':
      case 'IsValidated':
        return Promise.resolve({ ok: true, values: [['Result', '1']] });
      case 'RegisterDevice':
        // Nothing to register: an empty response message, as Windows' own servers answer.
        return Promise.resolve({ ok: true, values: [['RegistrationRespMsg', '']] });
      default:
        return Promise.resolve({ ok: false, code: UpnpError.InvalidAction });
    }
  }
}
