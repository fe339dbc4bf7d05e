import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';

/** How long a slot may stay held after its body went to the kernel: the time to read it at 100 MB/s… */
const ASSUMED_READ_BYTES_PER_MS = 100_000;
/** …plus this, at most this. */
const HOLD_EXTRA_MS = 20;
const HOLD_MAX_MS = 5_000;

/**
 * First come, first served for large bodies: at most `slots` of them are being delivered at once, the
 * others wait their turn (holding nothing but a reference to the shared buffer). Without it, 200
 * clients reading megabytes at once are served in whatever order their sockets drain: some wait many
 * seconds while others go round several times, and every event-loop turn copies into every socket.
 *
 * "Delivered" is not "written": Node's `finish` comes once the kernel has taken the body, and a
 * loopback or LAN socket takes ~4 MB, a whole uncompressed listing. Freeing the slot there let 64
 * bodies (192 MB) wait in kernel buffers at once under 200 clients, drained in no order (p99 4 s).
 * So the slot is held until the client shows it has read the body, by sending its next request on
 * the connection ({@link requestArrived}), or closes it, or the time to read the body at 100 MB/s
 * has passed (a client that sends nothing more).
 */
export class SendQueue {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly held = new Map<Socket, () => void>();

  /**
   * @param readBytesPerMs the read rate assumed for a client that sends nothing more after its body
   */
  constructor(
    private readonly slots: number,
    private readonly readBytesPerMs = ASSUMED_READ_BYTES_PER_MS,
  ) {}

  /** Every request the server receives: one on a connection whose body is held frees its slot. */
  requestArrived(socket: Socket): void {
    this.held.get(socket)?.();
  }

  /** Waits for a slot, then sends `body`; the slot is freed once the client has it or goes. */
  async send(reply: FastifyReply, body: Buffer): Promise<FastifyReply> {
    // A freed slot is handed to the first waiter, never left open for a while: a request arriving
    // in between would take it and jump the line.
    if (this.active < this.slots) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let freed = false;
    let finished = false;
    const free = () => {
      if (freed) return;
      freed = true;
      const next = this.waiting.shift();
      if (next === undefined) this.active--;
      else next();
    };
    // Taken now: Node detaches the socket from the response before `finish` reaches us.
    const socket = reply.raw.socket;
    reply.raw.once('finish', () => {
      finished = true;
      if (socket === null || socket.destroyed) return free();
      const release = () => {
        clearTimeout(timer);
        socket.off('close', release);
        if (this.held.get(socket) === release) this.held.delete(socket);
        free();
      };
      const timer = setTimeout(
        release,
        Math.min(HOLD_MAX_MS, HOLD_EXTRA_MS + body.length / this.readBytesPerMs),
      );
      socket.once('close', release);
      this.held.set(socket, release);
    });
    // `close` also follows `finish`; alone it means the client went before the body was written.
    reply.raw.once('close', () => {
      if (!finished) free();
    });
    if (reply.raw.destroyed) free();
    return reply.send(body);
  }
}
