// M-SEARCH as a control point sends it, and the answers collected — for the DLNA judge only, and
// only ever called inside a private network namespace (netns.ts; the callers prove it first).
import { createSocket } from 'node:dgram';
import { readlinkSync } from 'node:fs';

export const SSDP_GROUP = '239.255.255.250';
export const SSDP_PORT = 1900;

/** One answer to an M-SEARCH: its sender and the headers that matter (names lower-cased). */
export interface SearchAnswer {
  from: string;
  status: string;
  st: string;
  usn: string;
  location: string;
  server: string;
  cacheControl: string;
  /** Whether the EXT header (required, empty) is there. */
  ext: boolean;
}

function parseAnswer(text: string, from: string): SearchAnswer {
  const [status = '', ...lines] = text.split(/\r?\n/);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return {
    from,
    status: status.trim(),
    st: headers.get('st') ?? '',
    usn: headers.get('usn') ?? '',
    location: headers.get('location') ?? '',
    server: headers.get('server') ?? '',
    cacheControl: headers.get('cache-control') ?? '',
    ext: headers.has('ext'),
  };
}

export interface SearchOptions {
  /** The address the search is sent from (127.0.0.1 on lo, 198.18.77.2 in the peer namespace). */
  from: string;
  /** ssdp:all, a device or service type. */
  st: string;
  /** Multicast to 239.255.255.250:1900, or unicast to this address:1900 (UDA 1.1). */
  unicastTo?: string;
  /** MX of a multicast search (seconds); a unicast search has none. */
  mx?: number;
  /** How long answers are collected. */
  waitMs: number;
}

/** Sends one M-SEARCH and returns every answer that arrived within `waitMs`. */
export async function mSearch(options: SearchOptions): Promise<SearchAnswer[]> {
  // The rule, once more where the datagram leaves: never from the host's network namespace.
  const hostNs = process.env.REELSHELF_HOST_NETNS ?? '';
  const ownNs = readlinkSync('/proc/self/ns/net');
  if (hostNs === '' || ownNs === hostNs)
    throw new Error(`refusing to M-SEARCH outside a private network namespace (${ownNs})`);
  const socket = createSocket({ type: 'udp4' });
  const answers: SearchAnswer[] = [];
  socket.on('message', (message, remote) =>
    answers.push(parseAnswer(message.toString('utf8'), remote.address)),
  );
  // A unicast search to a closed port comes back as ICMP port unreachable: an error on this
  // socket, which is "no answer", not a failure.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.bind({ address: options.from, port: 0 }, resolve));
  const host =
    options.unicastTo === undefined ? `${SSDP_GROUP}:${SSDP_PORT}` : `${options.unicastTo}:${SSDP_PORT}`;
  const lines = [
    'M-SEARCH * HTTP/1.1',
    `HOST: ${host}`,
    'MAN: "ssdp:discover"',
    ...(options.unicastTo === undefined ? [`MX: ${options.mx ?? 1}`] : []),
    `ST: ${options.st}`,
    'USER-AGENT: Linux/6 UPnP/1.1 reelshelf-dlna-judge/1.0',
    '',
    '',
  ];
  if (options.unicastTo === undefined) {
    socket.setMulticastInterface(options.from);
    socket.setMulticastTTL(2);
  }
  await new Promise<void>((resolve, reject) =>
    socket.send(lines.join('\r\n'), SSDP_PORT, options.unicastTo ?? SSDP_GROUP, (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, options.waitMs));
  socket.close();
  return answers;
}
