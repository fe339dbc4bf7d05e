import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  contentRangeHeader,
  ifRangeAllows,
  parseRange,
  unsatisfiedRangeHeader,
} from '../domain/http-range.ts';
import { AppError } from '../errors.ts';
import type { StreamTarget } from '../services/stream.service.ts';
import { writeFileRange } from './file-body.ts';

/** How long a range beyond what a growing artifact has written may wait before 503. */
const GROWING_WAIT_MS = 15_000;
const POLL_MS = 50;

type FileTarget = Extract<StreamTarget, { kind: 'file' }>;
type GrowingTarget = Extract<StreamTarget, { kind: 'growing' }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

/**
 * A complete file with RFC 9110 range semantics: 200 / 206 / 416, exact Content-Range and
 * Content-Length, strong ETag, Last-Modified, If-Range. The body streams from disk (no buffering);
 * a client that goes away destroys the stream and closes the file descriptor.
 */
export function sendFile(request: FastifyRequest, reply: FastifyReply, target: FileTarget): FastifyReply {
  const size = target.sizeBytes;
  reply.header('accept-ranges', 'bytes');
  reply.header('etag', target.etag);
  reply.header('last-modified', target.lastModified.toUTCString());
  reply.header('content-type', target.contentType);
  reply.header('cache-control', 'private, max-age=0, must-revalidate');
  const rangeHeader = request.headers.range;
  const ifRange = request.headers['if-range'];
  const honour = rangeHeader !== undefined && ifRangeAllows(ifRange, target.etag, target.lastModified);
  const range = parseRange(honour ? rangeHeader : undefined, size);
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
    return sendBody(request, reply, target.path, range.start, range.end);
  }
  reply.code(200).header('content-length', String(size));
  if (head || size === 0) return reply.send();
  return sendBody(request, reply, target.path, 0, size - 1);
}

/** Takes the response over from Fastify and streams the file bytes with reused buffers. */
function sendBody(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
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
  writeFileRange(raw, path, start, end).catch((err: unknown) => {
    request.log.warn({ err }, 'stream aborted');
    raw.destroy();
  });
  return reply;
}

/** Follows a file that ffmpeg is still writing until the build ends, yielding bytes as they land. */
async function* tail(
  path: string,
  finalPath: string,
  start: number,
  isBuilding: () => boolean,
): AsyncGenerator<Buffer> {
  // The part file is renamed to its final name when the build ends; the bytes are the same.
  const handle = await open(path, 'r').catch(() => open(finalPath, 'r'));
  try {
    let position = start;
    const buffer = Buffer.alloc(256 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        yield Buffer.from(buffer.subarray(0, bytesRead));
        continue;
      }
      if (!isBuilding()) {
        // The build ended: read what is left once more, then stop.
        const last = await handle.read(buffer, 0, buffer.length, position);
        if (last.bytesRead === 0) return;
        position += last.bytesRead;
        yield Buffer.from(buffer.subarray(0, last.bytesRead));
        continue;
      }
      await sleep(POLL_MS);
    }
  } finally {
    await handle.close();
  }
}

/**
 * A playback artifact that is still being written (INTERFACE.md "Streaming"): without Range the
 * body follows the file until the build ends; a range is served from what is written, with
 * `Content-Range: bytes a-b/*`; a range beyond the written bytes waits (bounded), then 503.
 */
export async function sendGrowing(
  request: FastifyRequest,
  reply: FastifyReply,
  target: GrowingTarget,
  finalPath: string,
  isBuilding: () => boolean,
  whenDone: () => Promise<FileTarget | null>,
): Promise<FastifyReply> {
  const head = request.method === 'HEAD';
  const range = parseRange(request.headers.range, null);
  reply.header('accept-ranges', 'bytes');
  reply.header('content-type', target.contentType);
  reply.header('cache-control', 'no-store');
  if (range.kind === 'wait') {
    // A suffix range needs the final length: answer it once the build is done, else ask to retry.
    await waitForBytes(target.path, Number.MAX_SAFE_INTEGER, isBuilding);
    return retryOrFinished(request, reply, whenDone);
  }
  if (range.kind !== 'partial') {
    reply.code(200);
    if (head) return reply.send();
    // Wait for the first bytes (the MP4 header) so a failed build is an error, not an empty 200.
    const first = await waitForBytes(target.path, 1, isBuilding);
    if (first === null || first < 1) return retryOrFinished(request, reply, whenDone);
    return reply.send(Readable.from(tail(target.path, finalPath, 0, isBuilding), { objectMode: false }));
  }
  const written = await waitForBytes(target.path, range.start + 1, isBuilding);
  if (written === null || written <= range.start) return retryOrFinished(request, reply, whenDone);
  const end = Math.min(range.end ?? written - 1, written - 1);
  const length = end - range.start + 1;
  reply.code(206).header('content-range', contentRangeHeader(range.start, end, null));
  reply.header('content-length', String(length));
  if (head) return reply.send();
  return reply.send(createReadStream(target.path, { start: range.start, end }));
}

/** Polls until the file holds `bytes` bytes, the build ends, or the wait runs out; returns its size. */
async function waitForBytes(path: string, bytes: number, isBuilding: () => boolean): Promise<number | null> {
  const deadline = Date.now() + GROWING_WAIT_MS;
  for (;;) {
    const size = await sizeOf(path);
    if (size !== null && size >= bytes) return size;
    if (!isBuilding() || Date.now() > deadline) return size;
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
