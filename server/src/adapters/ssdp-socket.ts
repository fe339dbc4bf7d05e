import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces, release, type } from 'node:os';
import {
  addedAddresses,
  membershipPlan,
  SSDP_MULTICAST_ADDRESS,
  SSDP_MULTICAST_TTL,
  type Ipv4Interface,
} from '../domain/dlna/ssdp.ts';

/**
 * The UDP side of SSDP (UDA 1.1 §1): one udp4 socket on 0.0.0.0:1900 (SO_REUSEADDR, so that it shares
 * the port with another UPnP stack on the machine, as every SSDP implementation does), a member of
 * 239.255.255.250 on every IPv4 interface (loopback too when it takes multicast), multicast sends
 * through one chosen interface (TTL 2), unicast answers to a sender. The interfaces are re-read every
 * `rereadMs`: a new interface (or a new address of one) is joined and reported so the service
 * announces on it; a vanished one is left. What to send, when and to whom is the service's
 * (services/dlna/ssdp.service.ts); what the datagrams say is domain/dlna/ssdp.ts.
 */
export type InterfaceReader = () => Ipv4Interface[];

export interface SsdpSocketLog {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface SsdpSocketOptions {
  /** 1900 for real control points; another port only in tests. */
  port: number;
  /** Every IPv4 address of the machine now (readIpv4Interfaces by default). */
  interfaces?: InterfaceReader;
  /** How often the interfaces are read again. */
  rereadMs?: number;
  log: SsdpSocketLog;
}

export interface SsdpSocketEvents {
  /** A datagram and who sent it. */
  datagram(datagram: Buffer, sender: { address: string; port: number }): void;
  /** Addresses that appeared since the last reading (never called for the first one). */
  addressesAdded(added: Ipv4Interface[]): void;
}

/** os.networkInterfaces(), IPv4 only, in one flat list. */
export function readIpv4Interfaces(): Ipv4Interface[] {
  const out: Ipv4Interface[] = [];
  for (const [name, list] of Object.entries(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.family !== 'IPv4') continue;
      out.push({ name, address: entry.address, netmask: entry.netmask, internal: entry.internal });
    }
  }
  return out;
}

/** The operating system's name and release, for the SERVER header (`Linux/6.1.0`). */
export function operatingSystem(): { name: string; release: string } {
  return { name: type(), release: release() };
}

export const DEFAULT_INTERFACE_REREAD_MS = 10_000;

export class SsdpSocket {
  #socket: Socket | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Interface name → the address its membership was joined through. */
  readonly #joined = new Map<string, string>();
  #interfaces: Ipv4Interface[] = [];
  /** Sends one after another: the multicast interface is a socket option, set just before each send. */
  #sending: Promise<void> = Promise.resolve();
  readonly #readInterfaces: InterfaceReader;
  readonly #rereadMs: number;

  constructor(private readonly options: SsdpSocketOptions) {
    this.#readInterfaces = options.interfaces ?? readIpv4Interfaces;
    this.#rereadMs = options.rereadMs ?? DEFAULT_INTERFACE_REREAD_MS;
  }

  /** Binds, joins the group on every interface, and starts re-reading them. Rejects if the port cannot be bound. */
  async open(events: SsdpSocketEvents): Promise<void> {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    this.#socket = socket;
    socket.on('message', (datagram, remote) => {
      try {
        events.datagram(datagram, { address: remote.address, port: remote.port });
      } catch (err) {
        this.options.log.warn({ err, sender: remote.address }, 'ssdp: datagram not handled');
      }
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ port: this.options.port, address: '0.0.0.0' }, () => {
          socket.off('error', reject);
          // A later error (an ICMP report on some systems) is logged, never fatal.
          socket.on('error', (err) => this.options.log.warn({ err }, 'ssdp socket error'));
          resolve();
        });
      });
    } catch (err) {
      this.#socket = null;
      socket.close();
      throw err;
    }
    if (this.#socket !== socket) {
      // close() was called while binding: nothing may outlive it.
      socket.close();
      return;
    }
    socket.setMulticastTTL(SSDP_MULTICAST_TTL);
    // Control points on this very machine (VLC, a test's listener) hear our announcements too.
    socket.setMulticastLoopback(true);
    this.#refresh();
    this.#timer = setInterval(() => {
      const added = this.#refresh();
      if (added.length > 0) events.addressesAdded(added);
    }, this.#rereadMs);
    this.#timer.unref();
  }

  /** The IPv4 addresses as last read. */
  interfaces(): readonly Ipv4Interface[] {
    return this.#interfaces;
  }

  /** Reads the interfaces, leaves and joins as needed; returns the addresses that are new. */
  #refresh(): Ipv4Interface[] {
    const socket = this.#socket;
    if (socket === null) return [];
    let now: Ipv4Interface[];
    try {
      now = this.#readInterfaces();
    } catch (err) {
      this.options.log.warn({ err }, 'ssdp: interfaces not readable; keeping the last list');
      return [];
    }
    const plan = membershipPlan(this.#joined, now);
    for (const { name, address } of plan.leave) {
      this.#joined.delete(name);
      try {
        socket.dropMembership(SSDP_MULTICAST_ADDRESS, address);
      } catch (err) {
        // The address (or the interface) is gone, and the kernel has dropped the membership with it.
        this.options.log.debug({ err, name, address }, 'ssdp: membership already gone');
      }
    }
    for (const { name, address } of plan.join) {
      try {
        socket.addMembership(SSDP_MULTICAST_ADDRESS, address);
        this.#joined.set(name, address);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          // Joined already through another address of the same interface (its old one was removed).
          this.#joined.set(name, address);
        } else {
          // Loopback without multicast, an interface going down: tried again at the next reading.
          this.options.log.debug({ err, name, address }, 'ssdp: group not joined on this interface');
        }
      }
    }
    const added = addedAddresses(this.#interfaces, now);
    this.#interfaces = now;
    return added;
  }

  /** Multicasts `text` to 239.255.255.250:`port` out of the interface holding `fromAddress`. */
  sendMulticast(text: string, fromAddress: string): Promise<void> {
    return this.#send(text, SSDP_MULTICAST_ADDRESS, this.options.port, fromAddress);
  }

  /** Sends `text` to one control point. */
  sendUnicast(text: string, address: string, port: number): Promise<void> {
    return this.#send(text, address, port, null);
  }

  #send(text: string, address: string, port: number, multicastFrom: string | null): Promise<void> {
    const next = this.#sending.then(
      () =>
        new Promise<void>((resolve) => {
          const socket = this.#socket;
          if (socket === null) return resolve();
          try {
            if (multicastFrom !== null) socket.setMulticastInterface(multicastFrom);
            socket.send(text, port, address, (err) => {
              if (err) this.options.log.debug({ err, address, multicastFrom }, 'ssdp: datagram not sent');
              resolve();
            });
          } catch (err) {
            this.options.log.debug({ err, address, multicastFrom }, 'ssdp: datagram not sent');
            resolve();
          }
        }),
    );
    this.#sending = next;
    return next;
  }

  /** Stops re-reading, waits for the sends under way, closes the socket. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#sending;
    const socket = this.#socket;
    this.#socket = null;
    this.#joined.clear();
    if (socket === null) return;
    await new Promise<void>((resolve) => {
      try {
        socket.close(() => resolve());
      } catch {
        resolve(); // never bound
      }
    });
  }
}
