/**
 * `GET|HEAD /Items/{id}/Images/{type}[/{index}]` read into what reelshelf can serve (players.md §1.6).
 * reelshelf stores one poster (`Primary`) and one backdrop (`Backdrop`, index 0) per movie; every
 * other type (`Thumb`, `Logo`, `Banner`, `Art`, …) and any other index is an image that does not
 * exist (404). Size: reelshelf's artwork service resizes by width (rounded up to its fixed widths,
 * never enlarged), so `width`/`fillWidth`/`maxWidth` give the width and a height alone is turned
 * into a width by the image's nominal aspect; `quality`, `format`, `blur` and the rest are ignored
 * (the stored JPEG/PNG is sent as it is, at most resized). Pure: keys in any case.
 */
import type { JellyfinImageKind } from './image-tags.ts';
import { queryValue, type RawQuery } from './items-query.ts';

export interface ImageRequest {
  kind: JellyfinImageKind;
  /** The width wanted, when the client named a size; the artwork service rounds it up. */
  width: number | undefined;
  /** The `tag` the URL carries (the client's ImageTags value), or null. */
  tag: string | null;
}

export type ImageRequestResult = { ok: true; request: ImageRequest } | { ok: false; reason: 'no-such-image' };

const KINDS: Readonly<Record<string, JellyfinImageKind>> = { primary: 'Primary', backdrop: 'Backdrop' };

/** Nominal width ÷ height: posters 2:3, backdrops 16:9 (what a height alone is turned into a width with). */
const ASPECT: Readonly<Record<JellyfinImageKind, number>> = { Primary: 2 / 3, Backdrop: 16 / 9 };

const MAX_PIXELS = 10_000;

function pixels(raw: RawQuery, key: string): number | undefined {
  const value = queryValue(raw, key);
  if (value === null || !/^\d+(\.\d+)?$/.test(value)) return undefined;
  const n = Math.round(Number(value));
  return n >= 1 && n <= MAX_PIXELS ? n : undefined;
}

export function parseImageRequest(
  type: string,
  index: string | undefined,
  raw: RawQuery,
): ImageRequestResult {
  const kind = KINDS[type.toLowerCase()];
  if (kind === undefined) return { ok: false, reason: 'no-such-image' };
  if (index !== undefined && index !== '0') return { ok: false, reason: 'no-such-image' };
  const width = pixels(raw, 'width') ?? pixels(raw, 'fillWidth') ?? pixels(raw, 'maxWidth');
  const height = pixels(raw, 'height') ?? pixels(raw, 'fillHeight') ?? pixels(raw, 'maxHeight');
  return {
    ok: true,
    request: {
      kind,
      width: width ?? (height === undefined ? undefined : Math.max(1, Math.round(height * ASPECT[kind]))),
      tag: queryValue(raw, 'tag'),
    },
  };
}
