import { createHash } from 'node:crypto';

/** What the URL of a stored image is made from (a row of movie_artwork_state). */
export interface ArtworkState {
  movie_id: number;
  poster_state: string;
  poster_path: string | null;
  backdrop_state: string;
  backdrop_path: string | null;
  fetched_at: string | null;
}

/** The URL /library gives for an image, or null when there is none; `v` changes when it does. */
export function artworkUrl(row: ArtworkState | undefined, kind: 'poster' | 'backdrop'): string | null {
  if (row === undefined) return null;
  const state = kind === 'poster' ? row.poster_state : row.backdrop_state;
  if (state !== 'ready') return null;
  const version = createHash('sha1')
    .update(`${row.fetched_at ?? ''}|${kind === 'poster' ? row.poster_path : row.backdrop_path}`)
    .digest('hex')
    .slice(0, 8);
  return `/artwork/${row.movie_id}/${kind}?v=${version}`;
}
