/**
 * The ContentDirectory handler of DlnaServices built without one (the control route's own tests;
 * the server always has the real one: dlna-wiring.ts). Every action fails with UPnP 501 "Action
 * Failed", so such a build tells a TV so instead of showing it an empty library.
 */
import { UpnpError } from '../../domain/dlna/soap.ts';
import type { DlnaActionOutcome, DlnaServiceHandler } from './dlna-ports.ts';

export const contentDirectoryPlaceholder: DlnaServiceHandler = {
  handle: (): Promise<DlnaActionOutcome> =>
    Promise.resolve({
      ok: false,
      code: UpnpError.ActionFailed,
      description: 'the content directory is not built into this server yet',
    }),
};
