import type { ContentLimit } from './visibility.ts';

/**
 * The person a read or a play is for: whose watch state, whose history, whose content limit.
 * Services take a Viewer; they never see how the person proved who they are.
 */
export interface Viewer {
  userId: number;
  limit: ContentLimit | null;
}
