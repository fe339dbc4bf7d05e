/**
 * Who the MediaServer is (name, UDN) and whose view it serves: the person REELSHELF_DLNA names,
 * resolved on every request through the people cache (AuthenticationService.personNamed), so a
 * person created after the start is used from the next request on, with no restart, and a person
 * removed or renamed stops being used at once. A person that does not exist is no error: the
 * content directory then gets no viewer (lists nothing) and the admin page says why.
 */
import type { UserRow } from '../../repositories/user.repository.ts';
import type { ListingViewer } from '../library/library.service.ts';
import { limitOf } from '../people/principals.ts';

/**
 * DLNA has no sign-in, so no session or key to end: playback tokens made for TVs are held like the
 * admin token's (kind `admin-token`, no row), ended only by the token's expiry and the person's
 * visibility, checked on every request. (A credential kind of its own would need a new token letter
 * and contract value; see docs/dlna.md.)
 */
export const DLNA_CREDENTIAL: ListingViewer['credential'] = { kind: 'admin-token', id: null };

export interface DlnaPeople {
  personNamed(name: string): Promise<UserRow | undefined>;
}

export type DlnaViewerResolution =
  | { viewer: ListingViewer; person: { id: number; name: string } }
  | { viewer: null; reason: 'off' | 'person_not_found'; hint: string };

export interface DlnaIdentityOptions {
  /** REELSHELF_DLNA's person; null = off. */
  person: string | null;
  friendlyName: string;
  /** `uuid:<v4>`, kept in the data dir. */
  udn: string;
  people: DlnaPeople;
}

export class DlnaIdentity {
  readonly enabled: boolean;
  readonly personName: string | null;
  readonly friendlyName: string;
  readonly udn: string;

  constructor(private readonly options: DlnaIdentityOptions) {
    this.enabled = options.person !== null;
    this.personName = options.person;
    this.friendlyName = options.friendlyName;
    this.udn = options.udn;
  }

  /** The DLNA person's view right now, or why there is none. */
  async viewer(): Promise<DlnaViewerResolution> {
    const name = this.options.person;
    if (name === null) {
      return {
        viewer: null,
        reason: 'off',
        hint: 'Set REELSHELF_DLNA to a person’s name to switch DLNA on.',
      };
    }
    const row = await this.options.people.personNamed(name);
    if (row === undefined) {
      return {
        viewer: null,
        reason: 'person_not_found',
        hint: `No person is named “${name}”: create them (people page, or reelshelf user add) or set REELSHELF_DLNA to an existing name; TVs see an empty server until then.`,
      };
    }
    return {
      viewer: { userId: row.id, limit: limitOf(row), credential: DLNA_CREDENTIAL },
      person: { id: row.id, name: row.name },
    };
  }
}
