import type { ServerResponse } from 'node:http';
import type { FileReader } from '../adapters/file-system.ts';

const CHUNK_BYTES = 1024 * 1024;
/** Buffers kept for the next response: 16 MiB, enough for 8 streams at once. */
const POOL_LIMIT = 16;
const pool: Buffer[] = [];

/**
 * A 1 MiB buffer from the pool, or a new one. Keeping them matters: a new pair per response is
 * 80 MB/s of external memory at 40 responses/s, and the garbage collection it brought made the
 * throughput swing between ~1,600 and ~3,300 MB/s from one 3 s slice to the next (measured).
 */
function takeBuffer(): Buffer {
  return pool.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
}

function giveBack(buffer: Buffer): void {
  if (pool.length < POOL_LIMIT) pool.push(buffer);
}

/**
 * Writes bytes `start..end` (inclusive) of a checked file (opened through its adapter) to a raw HTTP response with two reusable 1 MiB
 * buffers: while one is being sent the next is read, and a buffer is reused only after the socket
 * has taken it (write callback). That halves allocation and GC against a fresh buffer per chunk
 * and measured ~1.5x faster on loopback. A client that disconnects stops the loop at once and the
 * file descriptor is closed.
 */
export async function writeFileRange(
  res: ServerResponse,
  file: { open(): Promise<FileReader> },
  start: number,
  end: number,
): Promise<void> {
  const handle = await file.open();
  const buffers = [takeBuffer(), takeBuffer()];
  const inFlight: (Promise<void> | null)[] = [null, null];
  let closed = false;
  const onClose = () => {
    closed = true;
  };
  res.once('close', onClose);
  try {
    let position = start;
    let turn = 0;
    while (position <= end && !closed) {
      const slot = turn++ % 2;
      await inFlight[slot];
      if (closed) break;
      const buffer = buffers[slot] ?? takeBuffer();
      const want = Math.min(buffer.length, end - position + 1);
      const bytesRead = await handle.read(buffer, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const chunk = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
      inFlight[slot] = new Promise<void>((resolve) => {
        res.write(chunk, () => resolve());
      });
      if (res.writableNeedDrain) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
      }
    }
    if (!closed) await Promise.all(inFlight);
    if (!closed) res.end();
  } finally {
    res.off('close', onClose);
    // A buffer goes back only once the socket is done with it (its write called back, which a
    // destroyed socket does too); one whose callback never comes is left to the collector.
    void Promise.all(inFlight).then(() => {
      for (const buffer of buffers) giveBack(buffer);
    });
    await handle.close();
  }
}
