import type { FastifyReply } from 'fastify';

/**
 * First come, first served for large bodies: at most `slots` of them are being written at once, the
 * others wait their turn (holding nothing but a reference to the shared buffer). Without it, 200
 * clients reading megabytes at once are served in whatever order their sockets drain: some wait many
 * seconds while others go round several times, and every event-loop turn copies into every socket.
 */
export class SendQueue {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly slots: number) {}

  /** Waits for a slot, then sends `body`; the slot is freed when the body is written or the client goes. */
  async send(reply: FastifyReply, body: Buffer): Promise<FastifyReply> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      this.active--;
      this.waiting.shift()?.();
    };
    reply.raw.once('finish', free);
    reply.raw.once('close', free);
    if (reply.raw.destroyed) free();
    return reply.send(body);
  }
}
