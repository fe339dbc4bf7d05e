import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import type { LocalAddress } from '../domain/jellyfin/discovery.ts';

/**
 * The UDP side of Jellyfin's discovery (REELSHELF_JELLYFIN_DISCOVERY_PORT, Jellyfin's 7359): one
 * IPv4 socket that hands each datagram and its sender to `answer` and sends what it returns back to
 * the sender, unicast. It never sends anything unasked (no broadcast, no multicast). What to answer
 * is decided by domain/jellyfin/discovery.ts; server.ts wires the two.
 */
export type DiscoveryAnswerer = (datagram: Buffer, senderAddress: string) => string | null;

export interface DiscoveryLog {
  warn(fields: object, message: string): void;
}

export class JellyfinDiscoverySocket {
  #socket: Socket | null = null;

  constructor(
    private readonly answer: DiscoveryAnswerer,
    private readonly log: DiscoveryLog,
  ) {}

  /** Binds host:port (0 = any free port; an IPv6 host binds every IPv4 address) and returns the port bound. */
  listen(host: string, port: number): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    this.#socket = socket;
    socket.on('message', (datagram, remote) => {
      let reply: string | null;
      try {
        reply = this.answer(datagram, remote.address);
      } catch (err) {
        this.log.warn({ err, sender: remote.address }, 'jellyfin discovery: no answer');
        return;
      }
      if (reply === null) return;
      socket.send(reply, remote.port, remote.address, (err) => {
        if (err) this.log.warn({ err, sender: remote.address }, 'jellyfin discovery: answer not sent');
      });
    });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ port, address: host.includes(':') ? '0.0.0.0' : host }, () => {
        socket.off('error', reject);
        // A later socket error (an ICMP report on some systems) is logged, never fatal.
        socket.on('error', (err) => this.log.warn({ err }, 'jellyfin discovery socket error'));
        resolve(socket.address().port);
      });
    });
  }

  close(): Promise<void> {
    const socket = this.#socket;
    this.#socket = null;
    if (socket === null) return Promise.resolve();
    return new Promise((resolve) => {
      try {
        socket.close(() => resolve());
      } catch {
        resolve(); // never bound
      }
    });
  }
}

/** The machine's addresses now (read per question: a DHCP lease or a VPN may have changed them). */
export function localAddresses(): LocalAddress[] {
  const out: LocalAddress[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      out.push({
        address: entry.address,
        netmask: entry.netmask,
        family: entry.family === 'IPv4' ? 'IPv4' : 'IPv6',
        internal: entry.internal,
      });
    }
  }
  return out;
}
