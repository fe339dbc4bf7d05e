import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GrowingFile } from '../adapters/data-store.ts';
import type { CheckedFile } from '../adapters/file-system.ts';
import { accelRedirectUri } from '../domain/accel-redirect.ts';
import { evaluatePreconditions, type Validators } from '../domain/http-conditional.ts';
import { contentRangeHeader, parseRange, strongEtag, unsatisfiedRangeHeader } from '../domain/http-range.ts';
import { AppError } from '../errors.ts';
import type { HlsFile } from '../services/playback/hls.service.ts';
import type { StreamTarget } from '../services/playback/stream.service.ts';
import { writeFileRange } from './file-body.ts';

/** How long a range beyond what a growing artifact has written may wait before 503. */
const GROWING_WAIT_MS = 15_000;
const POLL_MS = 50;

/** Streams are revalidated on every use: the same URL may serve a rebuilt artifact. */
export const STREAM_CACHE_CONTROL = 'private, max-age=0, must-revalidate';

type FileTarget = Extract<StreamTarget, { kind: 'file' }>;
type GrowingTarget = Extract<StreamTarget, { kind: 'growing' }>;

/**
 * A complete file with its validators: a stream target, an artwork image, later a segment. The
 * bytes come from `file`, which the service got from an adapter that checked where it lies (this
 * layer never opens a path of its own).
 */
export interface ServedFile {
  file: CheckedFile;
  lastModified: Date;
  /** A strong ETag (`"…"`): If-Match and If-Range compare strongly. */
  etag: string;
  contentType: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one place a byte-serving route applies RFC 9110 preconditions (evaluated by
 * `evaluatePreconditions`): sets the validator and Cache-Control headers, then answers 304 (no
 * body, no Content-Type) or 412 itself, or hands back the Range to honour (undefined: send all).
 * HLS segments and WebVTT files call it the same way before writing their body.
 */
export function applyPreconditions(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: Validators,
  cacheControl: string,
): { answered: FastifyReply } | { range: string | undefined } {
  if (validators.etag !== null) reply.header('etag', validators.etag);
  if (validators.lastModified !== null) {
    reply.header('last-modified', validators.lastModified.toUTCString());
  }
  reply.header('cache-control', cacheControl);
  const outcome = evaluatePreconditions(request.method, request.headers, validators);
  if (outcome.kind === 'proceed') return { range: outcome.range };
  if (outcome.kind === 'not_modified') {
    // A 304 describes no body: drop what a growing-file answer may have set before the build ended.
    for (const name of ['content-type', 'content-length', 'content-range', 'accept-ranges']) {
      reply.removeHeader(name);
    }
    return { answered: reply.code(304).send() };
  }
  const err = new AppError('precondition_failed', {
    message: `The ${outcome.field} condition does not hold: the file is not the version the request names.`,
    hint: 'Fetch it again without the condition to get the current version and its ETag.',
  });
  const body = request.method === 'HEAD' ? undefined : err.toBody();
  return { answered: reply.code(412).type('application/json; charset=utf-8').send(body) };
}

/**
 * A complete file with RFC 9110 semantics: preconditions first (304 / 412), then 200 / 206 / 416
 * with exact Content-Range and Content-Length, strong ETag, Last-Modified, If-Range; HEAD answers
 * as GET without Range would. The body streams from disk (no buffering); a client that goes away
 * stops the stream and the file descriptor is closed.
 */
export function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: ServedFile,
  cacheControl: string = STREAM_CACHE_CONTROL,
): FastifyReply {
  const size = file.file.sizeBytes;
  const checked = applyPreconditions(
    request,
    reply,
    { etag: file.etag, lastModified: file.lastModified },
    cacheControl,
  );
  if ('answered' in checked) return checked.answered;
  reply.header('accept-ranges', 'bytes');
  reply.header('content-type', file.contentType);
  const range = parseRange(checked.range, size);
  const head = request.method === 'HEAD';
  if (range.kind === 'unsatisfiable') {
    reply.header('content-range', unsatisfiedRangeHeader(size));
    const err = new AppError('range_not_satisfiable', {
      status: 416,
      message: `The requested range is outside the file (${size} bytes).`,
    });
    return reply
      .code(416)
      .type('application/json; charset=utf-8')
      .send(head ? undefined : err.toBody());
  }
  if (range.kind === 'partial' && range.end !== null) {
    const length = range.end - range.start + 1;
    reply.code(206).header('content-range', contentRangeHeader(range.start, range.end, size));
    reply.header('content-length', String(length));
    if (head || length === 0) return reply.send();
    return sendBody(request, reply, file, range.start, range.end);
  }
  reply.code(200).header('content-length', String(size));
  if (head || size === 0) return reply.send();
  return sendBody(request, reply, file, 0, size - 1);
}

/** Bytes made in memory (a playlist, an HLS WebVTT segment, a page asset) and their validators. */
export interface ServedBytes {
  body: Buffer | string;
  /** A strong ETag (`"…"`). */
  etag: string;
  lastModified: Date | null;
  contentType: string;
}

/**
 * Bytes made in memory, under the same RFC 9110 preconditions as files (`applyPreconditions`: 304,
 * 412, weak comparison for If-None-Match, lists, `*`). Range is not honoured (RFC 9110 §14.2 lets a
 * server ignore it): these bodies are small, and a text one may be compressed on the way out, which
 * a byte range of the identity bytes would not describe. HEAD answers as GET, without the body.
 */
export function sendBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  served: ServedBytes,
  cacheControl: string,
): FastifyReply {
  const checked = applyPreconditions(
    request,
    reply,
    { etag: served.etag, lastModified: served.lastModified },
    cacheControl,
  );
  if ('answered' in checked) return checked.answered;
  reply.code(200).type(served.contentType);
  return reply.send(request.method === 'HEAD' ? undefined : served.body);
}

/**
 * Hands a complete file to nginx (REELSHELF_ACCEL_REDIRECT, docs/deploy/README.md): the answer names
 * the file under nginx's `internal` location and carries no body; nginx sends the bytes with
 * sendfile and applies Range, If-Range and the conditional headers itself, with its own validators
 * (ETag `"<mtime>-<size>"`, Last-Modified of the file), since the ones a client holds came from it.
 * nginx keeps this answer's Content-Type and Cache-Control (it keeps those, Content-Disposition,
 * Set-Cookie, Expires and Accept-Ranges across the redirect, and drops the rest).
 */
export function sendAccelRedirect(
  reply: FastifyReply,
  file: ServedFile,
  prefix: string,
  cacheControl: string = STREAM_CACHE_CONTROL,
): FastifyReply {
  return reply
    .code(200)
    .header('x-accel-redirect', accelRedirectUri(prefix, file.file.path))
    .header('content-type', file.contentType)
    .header('cache-control', cacheControl)
    .send();
}

/**
 * Sends bytes `start..end` of the file by taking the response over from Fastify and writing it with
 * reused buffers (the measured fast path, the same for media, artifacts and artwork).
 */
function sendBody(
  request: FastifyRequest,
  reply: FastifyReply,
  file: ServedFile,
  start: number,
  end: number,
): FastifyReply {
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = value;
  }
  raw.writeHead(reply.statusCode, headers);
  writeFileRange(raw, file.file, start, end).catch((err: unknown) => {
    request.log.warn({ err }, 'stream aborted');
    raw.destroy();
  });
  return reply;
}

/**
 * The last-pos of an open-ended 206 while the length is unknown (`Content-Range: bytes a-<this>/*`):
 * RFC 8673's way to say "from `a` on, continuing as the content is written", with the value it
 * recommends (2^53 − 1). RFC 9110 requires a last-pos; the bytes written so far would be a lie
 * (the body goes on past them) that makes players stop there.
 */
export const INDETERMINATE_LAST_POS = Number.MAX_SAFE_INTEGER;

/**
 * Follows a file that ffmpeg is still writing, from `start`, yielding bytes as they land, until the
 * build ends. The body is then exactly the finished artifact's bytes from `start` on; a build that
 * ends without one (failed, cancelled) or with another length throws, so the response is aborted
 * instead of ending cleanly (a client must not take a truncated body for the whole film).
 */
async function* follow(
  target: GrowingTarget,
  start: number,
  isBuilding: () => Promise<boolean>,
): AsyncGenerator<Buffer> {
  // The part file is renamed to its final name when the build ends: the same inode, the same bytes.
  const handle = await target.file.open();
  try {
    let position = start;
    const buffer = Buffer.alloc(256 * 1024);
    for (;;) {
      const bytesRead = await handle.read(buffer, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        yield Buffer.from(buffer.subarray(0, bytesRead));
        continue;
      }
      if (await isBuilding()) {
        await sleep(POLL_MS);
        continue;
      }
      // The build ended (ffmpeg has exited): read what is left, then check it was a whole file.
      const last = await handle.read(buffer, buffer.length, position);
      if (last > 0) {
        position += last;
        yield Buffer.from(buffer.subarray(0, last));
        continue;
      }
      const size = await target.finishedSize();
      if (size === null) throw new Error('the artifact build ended without a finished file');
      if (size !== position)
        throw new Error(`the finished artifact has ${size} bytes, ${position} were read`);
      return;
    }
  } finally {
    await handle.close();
  }
}

/**
 * A playback artifact that is still being written (INTERFACE.md "Streaming"; docs/http.md "While an
 * artifact is still being written" says why these answers):
 * - no Range, `bytes=0-` (or a Range not honoured): 200 with no Content-Length and
 *   `Accept-Ranges: none`, the body following the file until the build ends. RFC 9110 §14.2 lets a
 *   server ignore a Range; a 200 of unknown length is a stream to every player, and `none` keeps
 *   ffmpeg from scanning the whole growing file for an index before it plays.
 * - `bytes=a-` (a > 0): 206 `Content-Range: bytes a-9007199254740991/*` (RFC 8673), following too.
 * - `bytes=a-b`: 206 of what is written (`bytes a-b'/*`); a range beyond the written bytes waits
 *   (bounded), then 503. A suffix waits for the final length.
 * HEAD answers as GET without Range (200, no length: it is not known yet).
 */
export async function sendGrowing(
  request: FastifyRequest,
  reply: FastifyReply,
  target: GrowingTarget,
  isBuilding: () => Promise<boolean>,
  whenDone: () => Promise<FileTarget | null>,
): Promise<FastifyReply> {
  const head = request.method === 'HEAD';
  // Still being written: no validators yet, so only `*` conditions can match (and If-Range never).
  const checked = applyPreconditions(request, reply, { etag: null, lastModified: null }, 'no-store');
  if ('answered' in checked) return checked.answered;
  const range = parseRange(checked.range, null);
  reply.header('content-type', target.contentType);
  if (range.kind === 'wait') {
    // A suffix range needs the final length: answer it once the build is done, else ask to retry.
    await waitForBytes(target.file, Number.MAX_SAFE_INTEGER, isBuilding);
    return retryOrFinished(request, reply, whenDone);
  }
  if (range.kind !== 'partial' || (range.start === 0 && range.end === null)) {
    reply.code(200).header('accept-ranges', 'none');
    if (head) return reply.send();
    // Wait for the first bytes (the MP4 header) so a failed build is an error, not an empty 200.
    const first = await waitForBytes(target.file, 1, isBuilding);
    if (first === null || first < 1) return retryOrFinished(request, reply, whenDone);
    return reply.send(Readable.from(follow(target, 0, isBuilding), { objectMode: false }));
  }
  reply.header('accept-ranges', 'bytes');
  const written = await waitForBytes(target.file, range.start + 1, isBuilding);
  if (written === null || written <= range.start) return retryOrFinished(request, reply, whenDone);
  if (range.end === null) {
    reply.code(206).header('content-range', contentRangeHeader(range.start, INDETERMINATE_LAST_POS, null));
    return reply.send(Readable.from(follow(target, range.start, isBuilding), { objectMode: false }));
  }
  const end = Math.min(range.end, written - 1);
  const length = end - range.start + 1;
  reply.code(206).header('content-range', contentRangeHeader(range.start, end, null));
  reply.header('content-length', String(length));
  if (head) return reply.send();
  return reply.send(await target.file.read({ start: range.start, end }));
}

/** Polls until the file holds `bytes` bytes, the build ends, or the wait runs out; returns its size. */
async function waitForBytes(
  file: GrowingFile,
  bytes: number,
  isBuilding: () => Promise<boolean>,
): Promise<number | null> {
  const deadline = Date.now() + GROWING_WAIT_MS;
  for (;;) {
    const size = await file.size();
    if (size !== null && size >= bytes) return size;
    if (!(await isBuilding()) || Date.now() > deadline) return size;
    await sleep(POLL_MS);
  }
}

async function retryOrFinished(
  request: FastifyRequest,
  reply: FastifyReply,
  whenDone: () => Promise<FileTarget | null>,
): Promise<FastifyReply> {
  const done = await whenDone();
  if (done !== null) return sendFile(request, reply, done);
  throw new AppError('artifact_building', {
    status: 503,
    message: 'The playback file is still being prepared and has not reached that point yet.',
    hint: 'Retry shortly.',
    headers: { 'retry-after': '2' },
  });
}

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

/** An HLS playlist, made per request; its ETag is its text's, so a player revalidating gets 304. */
export function sendPlaylist(request: FastifyRequest, reply: FastifyReply, text: string): FastifyReply {
  return sendBytes(
    request,
    reply,
    { body: text, etag: strongEtag(['m3u8', text]), lastModified: null, contentType: PLAYLIST_TYPE },
    STREAM_CACHE_CONTROL,
  );
}

/** A segment or init file of an HLS run, with ranges and its run's ETag. */
export function sendHlsFile(
  request: FastifyRequest,
  reply: FastifyReply,
  served: HlsFile,
  contentType: string,
): FastifyReply {
  return sendFile(
    request,
    reply,
    {
      file: served.file,
      etag: served.etag,
      lastModified: new Date(Math.floor(served.file.mtimeMs)),
      contentType,
    },
    STREAM_CACHE_CONTROL,
  );
}
