import type { KeyScope, Role } from './access.ts';
import type { ContentLimit } from './visibility.ts';

/** How the request proved who it is: the data dir's admin token, a session (cookie or app), a key. */
export interface Credential {
  kind: 'admin-token' | 'session' | 'key';
  /** The session's or key's row id (null for the admin token): playback tokens carry it. */
  id: number | null;
  /** What the credential allows on top of the role: a key's scope, `full` otherwise. */
  scope: KeyScope | 'full';
}

/** The person behind a request and the credential they used. */
export interface Principal {
  userId: number;
  name: string;
  role: Role;
  limit: ContentLimit | null;
  credential: Credential;
}
