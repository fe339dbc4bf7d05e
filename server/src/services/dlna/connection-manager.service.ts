/**
 * ConnectionManager:1 (CM §2.4) for the control route: what reelshelf can send, and its one
 * connection (0). A DlnaServiceHandler; the route has already checked the action and its arguments
 * against the SCPD.
 */
import {
  DEFAULT_CONNECTION_ID,
  DEFAULT_CONNECTION_INFO,
  sourceProtocolInfo,
} from '../../domain/dlna/connection-manager.ts';
import { UpnpError } from '../../domain/dlna/soap.ts';
import type { DlnaActionOutcome, DlnaServiceHandler } from './dlna-ports.ts';

export class ConnectionManagerService implements DlnaServiceHandler {
  /** Derived once: it only changes with the code. */
  private readonly source = sourceProtocolInfo();

  handle(action: string, args: Readonly<Record<string, string>>): Promise<DlnaActionOutcome> {
    return Promise.resolve(this.answer(action, args));
  }

  private answer(action: string, args: Readonly<Record<string, string>>): DlnaActionOutcome {
    switch (action) {
      case 'GetProtocolInfo':
        // A server sends only; it takes nothing in (Sink empty).
        return {
          ok: true,
          values: [
            ['Source', this.source],
            ['Sink', ''],
          ],
        };
      case 'GetCurrentConnectionIDs':
        return { ok: true, values: [['ConnectionIDs', DEFAULT_CONNECTION_ID]] };
      case 'GetCurrentConnectionInfo': {
        const id = (args.ConnectionID ?? '').trim();
        if (!/^-?\d{1,10}$/.test(id)) {
          return { ok: false, code: UpnpError.InvalidArgs, description: 'ConnectionID is not an integer' };
        }
        if (Number(id) !== 0) return { ok: false, code: UpnpError.InvalidConnectionReference };
        return { ok: true, values: DEFAULT_CONNECTION_INFO };
      }
      default:
        return { ok: false, code: UpnpError.InvalidAction };
    }
  }
}
