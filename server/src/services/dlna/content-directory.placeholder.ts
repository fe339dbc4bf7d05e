/**
 * REPLACED AT MERGE: the ContentDirectory handler until the dlna-tree branch's
 * ContentDirectoryService (services/dlna/content-directory.service.ts) is wired in its place in
 * dlna-services.ts. Every action fails with UPnP 501 "Action Failed", so a TV browsing a build
 * without the tree is told so instead of being shown an empty library.
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
