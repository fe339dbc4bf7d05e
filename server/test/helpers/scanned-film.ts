import assert from 'node:assert/strict';

/** The one film of a scanned media folder, as a player of `device` is told to play it. */
export interface ScannedFilm {
  fileId: number;
  prediction: string;
  /** Absolute (on `serverUrl`); null when the film plays directly. */
  hlsUrl: string | null;
}

/**
 * Adds `mediaDir` as a library root on the server at `serverUrl`, scans it to the end (on whichever
 * node claims the scan) and returns its one film's media file and playback answer for `device`.
 */
export async function scanOneFilm(
  serverUrl: string,
  token: string,
  mediaDir: string,
  device = 'web',
): Promise<ScannedFilm> {
  const auth = { authorization: `Bearer ${token}` };
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${serverUrl}${path}`, { headers: auth });
    assert.equal(res.status, 200, `GET ${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  const root = await fetch(`${serverUrl}/api/library-roots`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ path: mediaDir }),
  });
  assert.equal(root.status, 201);
  const { id: rootId } = (await root.json()) as { id: number };
  const scan = await fetch(`${serverUrl}/api/library-roots/${rootId}/scan?wait=true`, {
    method: 'POST',
    headers: auth,
  });
  assert.equal(scan.status, 200);
  const movies = await get<{ items: { id: number }[] }>('/api/movies');
  const movie = await get<{ media_files: { id: number }[] }>(`/api/movies/${movies.items[0]?.id}`);
  const fileId = movie.media_files[0]?.id;
  assert.ok(fileId !== undefined, 'the scan found the film');
  const info = await get<{ prediction: string; hls_url: string | null }>(
    `/api/media-file/${fileId}/playback?device=${device}`,
  );
  return {
    fileId,
    prediction: info.prediction,
    hlsUrl: info.hls_url === null ? null : new URL(info.hls_url, serverUrl).toString(),
  };
}
