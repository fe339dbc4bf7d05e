import { systemClock, type Clock } from '../../adapters/clock.ts';
import {
  operatingSystem,
  SsdpSocket,
  type InterfaceReader,
  type SsdpSocketEvents,
} from '../../adapters/ssdp-socket.ts';
import { isLanAddress } from '../../domain/dlna/lan-address.ts';
import {
  aliveNotify,
  byebyeNotify,
  descriptionLocation,
  deviceTargets,
  locationOn,
  matchingTargets,
  parseSearch,
  serverHeader,
  SSDP_MAX_AGE_SECONDS,
  SSDP_PORT,
  searchAnswer,
  type Ipv4Interface,
  type SsdpIdentity,
  type SsdpTarget,
} from '../../domain/dlna/ssdp.ts';

/**
 * The MediaServer's SSDP (issue 24 §2, UDA 1.1 §1): announces the device with `NOTIFY ssdp:alive` on
 * every interface at start (twice, since UDP may lose one), again every max-age/2 and on every address
 * that appears later; answers M-SEARCH from LAN addresses only (isLanAddress: DLNA has no sign-in),
 * after a random delay within the search's MX (at once for a unicast search), with LOCATION on the
 * address of the interface the search came in on; says `ssdp:byebye` on a clean stop.
 */

/** What the service needs of the socket (adapters/ssdp-socket.ts; a fake in unit tests). */
export interface SsdpTransport {
  open(events: SsdpSocketEvents): Promise<void>;
  interfaces(): readonly Ipv4Interface[];
  sendMulticast(text: string, fromAddress: string): Promise<void>;
  sendUnicast(text: string, address: string, port: number): Promise<void>;
  close(): Promise<void>;
}

export interface SsdpLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface SsdpServiceOptions {
  /** The device's UDN (`uuid:…`, with or without the prefix), kept in the data dir by the caller. */
  udn: string;
  /** The main HTTP port, where DLNA_DESCRIPTION_PATH is served. */
  httpPort: number;
  /** reelshelf's version, for SERVER. */
  version: string;
  transport: SsdpTransport;
  log: SsdpLog;
  clock?: Clock;
  os?: { name: string; release: string };
  /** Between two rounds of announcements: max-age/2 (900 s); shorter only in tests. */
  announceIntervalMs?: number;
  /** Between the two rounds sent at start (and on a new address). */
  repeatMs?: number;
  /** [0, 1): where within MX an answer goes. */
  random?: () => number;
  /** CONFIGID.UPNP.ORG: moves when the device description changes. */
  configId?: number;
}

/** Answers waiting for their MX delay; past this, searches are dropped (a flood gets no amplifier). */
const MAX_PENDING_ANSWERS = 128;
const DEFAULT_REPEAT_MS = 1_000;

export class SsdpService {
  readonly #targets: SsdpTarget[];
  readonly #transport: SsdpTransport;
  readonly #log: SsdpLog;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #announceIntervalMs: number;
  readonly #repeatMs: number;
  readonly #httpPort: number;
  readonly #identity: SsdpIdentity;
  readonly #timers = new Set<NodeJS.Timeout>();
  #periodic: NodeJS.Timeout | null = null;
  #state: 'new' | 'running' | 'stopped' = 'new';
  /** Whether anything was announced (a stop before that owes the network no byebye). */
  #announced = false;

  constructor(options: SsdpServiceOptions) {
    this.#targets = deviceTargets(options.udn);
    this.#transport = options.transport;
    this.#log = options.log;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#announceIntervalMs = options.announceIntervalMs ?? (SSDP_MAX_AGE_SECONDS / 2) * 1000;
    this.#repeatMs = options.repeatMs ?? DEFAULT_REPEAT_MS;
    this.#httpPort = options.httpPort;
    const os = options.os ?? { name: 'unknown', release: 'unknown' };
    this.#identity = {
      server: serverHeader(os.name, os.release, options.version),
      // UDA 1.1 §1.2.2: a number that grows with every boot; seconds since 1970 do, within 31 bits.
      bootId: Math.floor(this.#clock.now().getTime() / 1000) % 2 ** 31,
      configId: options.configId ?? 1,
      maxAgeSeconds: SSDP_MAX_AGE_SECONDS,
    };
  }

  /** What every message of this run says (BOOTID, SERVER…). */
  get identity(): SsdpIdentity {
    return this.#identity;
  }

  /** Opens the socket (rejects if port 1900 cannot be had) and announces the device everywhere. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error('ssdp: start() called twice');
    this.#state = 'running';
    try {
      await this.#transport.open({
        datagram: (datagram, sender) => this.#onDatagram(datagram, sender),
        addressesAdded: (added) => {
          this.#log.info({ addresses: added.map((a) => a.address) }, 'ssdp: announcing on new addresses');
          this.#announceTwice(added);
        },
      });
    } catch (err) {
      this.#state = 'stopped';
      await this.#transport.close();
      throw err;
    }
    // stop() called while the socket was opening: it has sent nothing; close what has just opened.
    if (this.#state !== 'running') {
      await this.#transport.close();
      return;
    }
    this.#announced = true;
    this.#announceTwice(this.#transport.interfaces());
    this.#periodic = setInterval(
      () => void this.#announce(this.#transport.interfaces()),
      this.#announceIntervalMs,
    );
    this.#periodic.unref();
  }

  /** Cancels pending answers, says byebye for every target on every address, closes the socket. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    if (this.#periodic !== null) clearInterval(this.#periodic);
    this.#periodic = null;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    if (this.#announced) {
      const sends: Promise<void>[] = [];
      for (const { address } of this.#transport.interfaces()) {
        for (const target of this.#targets) {
          sends.push(this.#transport.sendMulticast(byebyeNotify(target, this.#identity), address));
        }
      }
      await Promise.all(sends);
    }
    await this.#transport.close();
  }

  #announce(addresses: readonly Ipv4Interface[]): Promise<void> {
    if (this.#state !== 'running') return Promise.resolve();
    const sends: Promise<void>[] = [];
    for (const { address } of addresses) {
      const location = locationOn(address, this.#httpPort);
      for (const target of this.#targets) {
        sends.push(this.#transport.sendMulticast(aliveNotify(target, location, this.#identity), address));
      }
    }
    return Promise.all(sends).then(() => undefined);
  }

  #announceTwice(addresses: readonly Ipv4Interface[]): void {
    void this.#announce(addresses);
    this.#later(this.#repeatMs, () => void this.#announce(addresses));
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  #onDatagram(datagram: Buffer, sender: { address: string; port: number }): void {
    if (this.#state !== 'running' || !isLanAddress(sender.address)) return;
    const search = parseSearch(datagram);
    if (search === null) return;
    const targets = matchingTargets(search.searchTarget, this.#targets);
    if (targets.length === 0) return;
    if (this.#timers.size >= MAX_PENDING_ANSWERS) {
      this.#log.debug({ sender: sender.address }, 'ssdp: too many searches waiting; this one dropped');
      return;
    }
    const answer = () => {
      const location = descriptionLocation(sender.address, this.#transport.interfaces(), this.#httpPort);
      const date = this.#clock.now();
      for (const target of targets) {
        void this.#transport.sendUnicast(
          searchAnswer(target, location, this.#identity, date),
          sender.address,
          sender.port,
        );
      }
    };
    if (search.mxSeconds === null) answer();
    else this.#later(Math.floor(this.#random() * search.mxSeconds * 1000), answer);
  }
}

export interface SsdpFactoryOptions {
  udn: string;
  httpPort: number;
  version: string;
  log: SsdpLog;
  clock?: Clock;
  /** UDP port: 1900 (the only one control points use); another only in tests. */
  port?: number;
  interfaces?: InterfaceReader;
  rereadMs?: number;
  announceIntervalMs?: number;
}

/** The service on a real socket: call `start()` after the HTTP server listens, `stop()` before it closes. */
export function createSsdpService(options: SsdpFactoryOptions): SsdpService {
  const transport = new SsdpSocket({
    port: options.port ?? SSDP_PORT,
    interfaces: options.interfaces,
    rereadMs: options.rereadMs,
    log: options.log,
  });
  return new SsdpService({
    udn: options.udn,
    httpPort: options.httpPort,
    version: options.version,
    transport,
    log: options.log,
    clock: options.clock,
    os: operatingSystem(),
    announceIntervalMs: options.announceIntervalMs,
  });
}
