/**
 * HTTP byte ranges (RFC 9110 §14), pure: parse `Range`, format `Content-Range`, pick a
 * `Content-Type` for a container and make strong ETags. No I/O; the byte-serving routes use these.
 * Whether a Range is honoured at all (method, If-Range) is decided in http-conditional.ts.
 */
import { createHash } from 'node:crypto';

/**
 * What to send for a `Range` header.
 * - `full`: 200 with the whole body (no Range, a malformed one, or another unit: RFC 9110 says ignore).
 * - `partial`: 206 for bytes `start`..`end` inclusive. `end` is `null` only while the length is
 *   unknown (a growing file asked `bytes=a-`): send what is written from `start` on.
 * - `unsatisfiable`: 416 with `Content-Range: bytes *\/<size>`.
 * - `wait`: the length is unknown and only a suffix (`bytes=-n`) was asked. It cannot be answered
 *   until the file is complete: wait for the final size, then call `parseRange` again with it.
 */
export type RangeResult =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number | null }
  | { kind: 'unsatisfiable' }
  | { kind: 'wait'; suffixLength: number };

type RangeSpec = { type: 'int'; first: number; last: number | null } | { type: 'suffix'; length: number };

const DIGITS = /^\d+$/;
const MAX_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A non-negative integer of digits only, of any length (RFC 9110 sets no limit: `bytes=0-` followed
 * by twenty digits is a valid range to clamp, not a malformed one); null if not digits.
 */
function parsePosition(text: string): bigint | null {
  return DIGITS.test(text) ? BigInt(text) : null;
}

/**
 * A position as a number, capped at Number.MAX_SAFE_INTEGER. Every size this server serves is far
 * below the cap, so a capped first-pos is still past the end and a capped last-pos still clamps.
 */
function capped(value: bigint): number {
  return Number(value > MAX_POSITION ? MAX_POSITION : value);
}

/** One `range-spec`: `a-b`, `a-` or `-n` (whitespace around the dash tolerated); null if malformed. */
function parseSpec(text: string): RangeSpec | null {
  const dash = text.indexOf('-');
  if (dash < 0) return null;
  const firstText = text.slice(0, dash).trim();
  const lastText = text.slice(dash + 1).trim();
  if (firstText === '') {
    const length = parsePosition(lastText);
    return length === null ? null : { type: 'suffix', length: capped(length) };
  }
  const first = parsePosition(firstText);
  if (first === null) return null;
  if (lastText === '') return { type: 'int', first: capped(first), last: null };
  const last = parsePosition(lastText);
  // Compared before capping, so `b < a` is exact however long the numbers are.
  if (last === null || last < first) return null;
  return { type: 'int', first: capped(first), last: capped(last) };
}

/** The specs of a `bytes=` header, or null when the header is absent, malformed or another unit. */
function parseSpecs(header: string | undefined): RangeSpec[] | null {
  if (header === undefined) return null;
  const equals = header.indexOf('=');
  if (equals < 0) return null;
  if (header.slice(0, equals).trim().toLowerCase() !== 'bytes') return null;
  // `1#range-spec`: empty list elements are tolerated, at least one spec is required.
  const parts = header
    .slice(equals + 1)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return null;
  const specs: RangeSpec[] = [];
  for (const part of parts) {
    const spec = parseSpec(part);
    if (spec === null) return null;
    specs.push(spec);
  }
  return specs;
}

type Resolved = RangeResult | null;

function resolveKnown(spec: RangeSpec, size: number): Resolved {
  if (spec.type === 'suffix') {
    if (spec.length === 0) return null;
    // A non-zero suffix of an empty representation is the whole (empty) representation.
    if (size === 0) return { kind: 'full' };
    return { kind: 'partial', start: Math.max(0, size - spec.length), end: size - 1 };
  }
  if (spec.first >= size) return null;
  const end = spec.last === null ? size - 1 : Math.min(spec.last, size - 1);
  return { kind: 'partial', start: spec.first, end };
}

function resolveUnknown(spec: RangeSpec): Resolved {
  if (spec.type === 'suffix') return spec.length === 0 ? null : { kind: 'wait', suffixLength: spec.length };
  return { kind: 'partial', start: spec.first, end: spec.last };
}

/**
 * Parses a `Range` header against a representation of `size` bytes.
 *
 * - `bytes=a-b`, `bytes=a-`, `bytes=-n`; the unit is case-insensitive and whitespace is tolerated.
 * - The end is clamped to `size - 1`; a suffix longer than the file means the whole file as a 206.
 *   Numbers of any length are read (`bytes=0-18446744073709551616` is the whole file as a 206).
 * - `start >= size` (however large) and `bytes=-0` are unsatisfiable.
 * - A malformed header, `b < a` or another unit: `full` (RFC 9110 §14.2: ignore it).
 * - Several ranges (`bytes=0-1,5-9`): this server sends no multipart bodies, so the first
 *   satisfiable range is served alone (allowed: a server may ignore or coalesce ranges); when none
 *   is satisfiable, the result is `unsatisfiable`.
 * - `size === null` (a growing file whose length is not known yet): `a-b` and `a-` are served as
 *   asked (`end` null for `a-`, with no clamping: the caller serves what exists), and a suffix
 *   yields `wait` because its start depends on the final length. An int range wins over a suffix.
 */
export function parseRange(header: string | undefined, size: number | null): RangeResult {
  const specs = parseSpecs(header);
  if (specs === null) return { kind: 'full' };
  let pending: Resolved = null;
  for (const spec of specs) {
    const resolved = size === null ? resolveUnknown(spec) : resolveKnown(spec, size);
    if (resolved === null) continue;
    if (resolved.kind !== 'wait') return resolved;
    pending ??= resolved;
  }
  return pending ?? { kind: 'unsatisfiable' };
}

/** `bytes a-b/size`, or `bytes a-b/*` while the complete length is unknown. */
export function contentRangeHeader(start: number, end: number, size: number | null): string {
  return `bytes ${start}-${end}/${size === null ? '*' : size}`;
}

/** The `Content-Range` of a 416: `bytes *\/size`. */
export function unsatisfiedRangeHeader(size: number): string {
  return `bytes */${size}`;
}

const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  ts: 'video/mp2t',
  m2ts: 'video/mp2t',
  mts: 'video/mp2t',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  vob: 'video/mpeg',
  asf: 'video/x-ms-asf',
  wmv: 'video/x-ms-asf',
  ogg: 'video/ogg',
  ogv: 'video/ogg',
};

/** The MIME type for a normalised container id (or a file extension, with or without the dot). */
export function contentTypeFor(container: string): string {
  const key = container.trim().toLowerCase().replace(/^\./, '');
  return CONTENT_TYPES[key] ?? 'application/octet-stream';
}

/**
 * A quoted strong ETag from a SHA-256 of the parts (e.g. `[fileId, size, mtimeMs]`): 24 hex digits.
 * The parts are hashed as JSON, so `1` and `'1'` or `['a,b']` and `['a','b']` differ.
 */
export function strongEtag(parts: (string | number)[]): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return `"${digest.slice(0, 24)}"`;
}
