// The DLNA acceptance judge (issue 24): what every MediaServer:1 reelshelf is measured against must
// do, checked with clients no one here wrote where one exists (upnp-device-client for SOAP,
// gssdp-discover for SSDP, ffprobe and VLC for the media), against any target: minidlna now (so
// the judge is known to judge a real server right), reelshelf after the merge. Each check returns
// plain facts (JSON: the judge runs inside a private network namespace and prints them); the test
// outside asserts them with the target's expectations (dlna-judge-asserts.ts).
//
// Runs ONLY inside a namespace made by runInPrivateNetns (netns.ts): its searches multicast.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import DeviceClient from 'upnp-device-client';
import { inPeer, NETNS_ADDRESSES, provePrivateNetns } from './netns.ts';
import { mSearch, type SearchAnswer } from './ssdp-search.ts';

const run = promisify(execFile);

export const MEDIA_SERVER = 'urn:schemas-upnp-org:device:MediaServer:1';
export const CONTENT_DIRECTORY = 'urn:schemas-upnp-org:service:ContentDirectory:1';
export const CONNECTION_MANAGER = 'urn:schemas-upnp-org:service:ConnectionManager:1';

/** A server under judgement. */
export interface DlnaTarget {
  name: string;
  /** The device description URL, as reached from inside the namespace (loopback). */
  location: string;
  /** Title → how many distinct objects (copies: one per file for minidlna) the walk must find. */
  films: Record<string, number>;
  /** A film whose first `res` is the file itself, and that file on disk (compared byte for byte). */
  directTitle: string;
  directFile: string;
  /** A film whose `res` is a conversion (reelshelf only; minidlna hands out files as they are). */
  conversionTitle?: string;
  /** A word for `dc:title contains`, and the titles it must find. */
  titleWord: string;
}

/** How the judge runs its checks (the same for every target). */
export interface JudgeOptions {
  /** Seconds VLC plays a res for (10 in the acceptance test). */
  vlcSeconds: number;
  /** Page size of the walk (small, so that every container is paged). */
  pageSize: number;
}

// ---------------------------------------------------------------------------------------------
// HTTP without keep-alive (libupnp servers drop idle sockets: players.md §2.6), bytes as they came.

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`timeout: ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

// ---------------------------------------------------------------------------------------------
// XML (fast-xml-parser, the parser reelshelf reads SOAP with; nothing hand-written here).

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) =>
    ['service', 'icon', 'action', 'argument', 'stateVariable', 'container', 'item', 'res'].includes(name),
});

type XmlNode = Record<string, unknown>;

function node(value: unknown): XmlNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as XmlNode) : {};
}

function nodes(value: unknown): XmlNode[] {
  return Array.isArray(value) ? value.map(node) : value === undefined ? [] : [node(value)];
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const inner = node(value)['#text'];
  return typeof inner === 'string' ? inner : '';
}

/** Parses XML that must be well-formed (throws with the validator's reason otherwise). */
function parseXml(source: string, what: string): XmlNode {
  const valid = XMLValidator.validate(source);
  if (valid !== true)
    throw new Error(`${what} is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  return node(xml.parse(source));
}

// ---------------------------------------------------------------------------------------------
// DIDL-Lite

export interface DidlRes {
  protocolInfo: string;
  url: string;
  size?: number;
  duration?: string;
}

export interface DidlObject {
  kind: 'container' | 'item';
  id: string;
  parentID: string;
  refID?: string;
  title: string;
  upnpClass: string;
  childCount?: number;
  res: DidlRes[];
}

export function parseDidl(source: string): DidlObject[] {
  const didl = node(parseXml(source, 'DIDL-Lite')['DIDL-Lite']);
  const read = (kind: 'container' | 'item', entry: XmlNode): DidlObject => {
    const childCount = entry['@_childCount'];
    const refID = entry['@_refID'];
    return {
      kind,
      id: String(entry['@_id'] ?? ''),
      parentID: String(entry['@_parentID'] ?? ''),
      ...(typeof refID === 'string' && refID !== '' ? { refID } : {}),
      title: text(entry.title),
      upnpClass: text(entry.class),
      ...(childCount === undefined ? {} : { childCount: Number(childCount) }),
      res: nodes(entry.res).map((res) => ({
        protocolInfo: String(res['@_protocolInfo'] ?? ''),
        url: text(res),
        ...(res['@_size'] === undefined ? {} : { size: Number(res['@_size']) }),
        ...(res['@_duration'] === undefined ? {} : { duration: String(res['@_duration']) }),
      })),
    };
  };
  const objects = [
    ...nodes(didl.container).map((entry) => read('container', entry)),
    ...nodes(didl.item).map((entry) => read('item', entry)),
  ];
  // The grouped parse puts every container before every item; a listing mixes them (a film with
  // editions is a container among items), so the document's own order is read back too.
  const position = new Map(documentOrder(source).map((id, index) => [id, index]));
  return objects.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
}

const orderedXml = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
});

/** The ids of DIDL-Lite's children in document order. */
function documentOrder(source: string): string[] {
  const top = orderedXml.parse(source) as XmlNode[];
  const didl = top.find((entry) => 'DIDL-Lite' in entry);
  const children = Array.isArray(didl?.['DIDL-Lite']) ? (didl['DIDL-Lite'] as XmlNode[]) : [];
  return children
    .filter((child) => 'container' in child || 'item' in child)
    .map((child) => String(node(child[':@'])['@_id'] ?? ''));
}

// ---------------------------------------------------------------------------------------------
// SOAP through upnp-device-client (a control point no one here wrote).

interface ActionFault {
  fault: { statusCode: number | null; errorCode: string | null; message: string };
}

function callAction(
  client: DeviceClient,
  service: string,
  action: string,
  params: Record<string, string | number>,
): Promise<Record<string, string | undefined>> {
  return new Promise((resolve, reject) =>
    client.callAction(service, action, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

function isFault(answer: Record<string, string | undefined> | ActionFault): answer is ActionFault {
  const fault: unknown = answer.fault;
  return typeof fault === 'object' && fault !== null;
}

async function callOrFault(
  client: DeviceClient,
  service: string,
  action: string,
  params: Record<string, string | number>,
): Promise<Record<string, string | undefined> | ActionFault> {
  try {
    return await callAction(client, service, action, params);
  } catch (err) {
    const e = err as { statusCode?: number; errorCode?: string; message?: string };
    return {
      fault: { statusCode: e.statusCode ?? null, errorCode: e.errorCode ?? null, message: String(e.message) },
    };
  }
}

interface BrowsePage {
  objects: DidlObject[];
  numberReturned: number;
  totalMatches: number;
  updateId: string;
}

async function browse(
  client: DeviceClient,
  objectId: string,
  flag: 'BrowseMetadata' | 'BrowseDirectChildren',
  start: number,
  count: number,
  sort = '',
): Promise<BrowsePage> {
  const result = await callAction(client, 'ContentDirectory', 'Browse', {
    ObjectID: objectId,
    BrowseFlag: flag,
    Filter: '*',
    StartingIndex: start,
    RequestedCount: count,
    SortCriteria: sort,
  });
  return {
    objects: parseDidl(result.Result ?? ''),
    numberReturned: Number(result.NumberReturned),
    totalMatches: Number(result.TotalMatches),
    updateId: result.UpdateID ?? '',
  };
}

/** Runs `check`, turning a throw into `{ error }` so one broken check does not hide the others. */
async function attempt<T extends object>(
  check: () => Promise<T>,
): Promise<T & { error?: string; ms: number }> {
  const started = performance.now();
  try {
    const facts = await check();
    return { ...facts, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    return { error: message, ms: Math.round(performance.now() - started) } as T & {
      error: string;
      ms: number;
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The checks

/**
 * Multicast searches from loopback, from the peer namespace, a unicast search, gssdp-discover. The
 * searches at once: each has a socket (and a port) of its own, so its answers are its own, and each
 * waits its fixed time (one after the other: ~10 s of waiting per target).
 */
export async function checkDiscovery(target: DlnaTarget) {
  const host = new URL(target.location).hostname;
  const peerSearch = async () => {
    const peerArgv = inPeer([
      process.execPath,
      '--import',
      'tsx',
      'server/test/helpers/dlna-peer-search.ts',
      '2500',
      'ssdp:all',
      MEDIA_SERVER,
    ]);
    const peerRun = await run(peerArgv[0] ?? 'nsenter', peerArgv.slice(1), {
      timeout: 30_000,
      env: process.env,
    });
    return JSON.parse(peerRun.stdout.trim().split('\n').pop() ?? '{}') as {
      refused?: string;
      answers: (SearchAnswer & { searched: string })[];
      fetched: Record<string, number>;
    };
  };
  const gssdp = async (argv: string[]) => {
    const { stdout } = await run(argv[0] ?? 'gssdp-discover', argv.slice(1), { timeout: 30_000 });
    return {
      locations: [...stdout.matchAll(/Location:\s*(\S+)/g)].map((m) => m[1] ?? ''),
      usns: [...stdout.matchAll(/USN:\s*(\S+)/g)].map((m) => m[1] ?? ''),
    };
  };
  const gssdpArgs = (iface: string) => ['gssdp-discover', '-i', iface, '-t', MEDIA_SERVER, '-n', '3'];
  const [loopbackAll, loopbackMediaServer, loopbackRoot, unicast, peer] = await Promise.all([
    mSearch({ from: host, st: 'ssdp:all', mx: 1, waitMs: 2500 }),
    mSearch({ from: host, st: MEDIA_SERVER, mx: 1, waitMs: 2500 }),
    mSearch({ from: host, st: 'upnp:rootdevice', mx: 1, waitMs: 2500 }),
    // UDA 1.1: a search sent to the device's own address:1900, no MX, answered at once.
    mSearch({ from: host, st: MEDIA_SERVER, unicastTo: host, waitMs: 1500 }),
    peerSearch(),
  ]);
  // gssdp-discover binds port 1900 itself: run beside the unicast search above, it took that search
  // (a unicast datagram reaches one of the sockets sharing the port). So after them, one at a time.
  const gssdpLo = await gssdp(gssdpArgs('lo'));
  const gssdpPeer = await gssdp(inPeer(gssdpArgs(NETNS_ADDRESSES.peerLink)));
  return { loopbackAll, loopbackMediaServer, loopbackRoot, unicast, peer, gssdpLo, gssdpPeer };
}

export interface DescribedService {
  serviceType: string;
  serviceId: string;
  controlURL: string;
  SCPDURL: string;
  eventSubURL: string;
  scpdStatus: number;
  actions: string[];
}

/** The device description and every SCPD, parsed with fast-xml-parser; URLs made absolute. */
export async function checkDescription(target: DlnaTarget) {
  const res = await httpRequest(target.location);
  const root = node(parseXml(res.body.toString('utf8'), 'the device description').root);
  const device = node(root.device);
  const base = text(root.URLBase) || target.location;
  const services: DescribedService[] = [];
  for (const service of nodes(node(device.serviceList).service)) {
    const absolute = (path: unknown) => new URL(text(path), base).href;
    const scpd = await httpRequest(absolute(service.SCPDURL));
    let actions: string[] = [];
    if (scpd.status === 200) {
      const parsed = node(
        parseXml(scpd.body.toString('utf8'), `the SCPD of ${text(service.serviceType)}`).scpd,
      );
      actions = nodes(node(parsed.actionList).action).map((action) => text(action.name));
    }
    services.push({
      serviceType: text(service.serviceType),
      serviceId: text(service.serviceId),
      controlURL: absolute(service.controlURL),
      SCPDURL: absolute(service.SCPDURL),
      eventSubURL: absolute(service.eventSubURL),
      scpdStatus: scpd.status,
      actions,
    });
  }
  return {
    status: res.status,
    contentType: res.headers['content-type'] ?? '',
    deviceType: text(device.deviceType),
    friendlyName: text(device.friendlyName),
    udn: text(device.UDN),
    dlnaDoc: text(device.X_DLNADOC),
    services,
  };
}

/** The plain actions: what the server says it can do. */
export async function checkActions(client: DeviceClient) {
  const protocolInfo = await callAction(client, 'ConnectionManager', 'GetProtocolInfo', {});
  const source = (protocolInfo.Source ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const updateId = await callAction(client, 'ContentDirectory', 'GetSystemUpdateID', {});
  const searchCaps = await callAction(client, 'ContentDirectory', 'GetSearchCapabilities', {});
  const sortCaps = await callAction(client, 'ContentDirectory', 'GetSortCapabilities', {});
  const root = await browse(client, '0', 'BrowseMetadata', 0, 0);
  return {
    protocolInfoSource: source,
    systemUpdateId: updateId.Id ?? '',
    searchCaps: searchCaps.SearchCaps ?? '',
    sortCaps: sortCaps.SortCaps ?? '',
    rootMetadata: {
      numberReturned: root.numberReturned,
      totalMatches: root.totalMatches,
      objects: root.objects.map(({ kind, id, parentID, upnpClass, childCount }) => ({
        kind,
        id,
        parentID,
        upnpClass,
        childCount,
      })),
    },
  };
}

export interface WalkedItem {
  /** refID when the item refers to another, else its own id. */
  canonical: string;
  title: string;
  ids: string[];
  res: DidlRes[];
}

export interface Walk {
  browseCalls: number;
  containers: { id: string; title: string; totalMatches: number; childCount?: number; items: number }[];
  itemEntries: number;
  items: WalkedItem[];
  /** Title → distinct objects (after merging by refID). */
  byTitle: Record<string, number>;
  /** Paging inconsistencies seen while walking (empty when the server pages right). */
  pageIssues: string[];
  /** refIDs that point at no item the walk found. */
  danglingRefs: string[];
}

/** The whole tree from 0, page by page (`pageSize`), following every container once. */
export async function walkTree(client: DeviceClient, pageSize: number): Promise<Walk> {
  const queue = ['0'];
  const seen = new Set(queue);
  const containers: Walk['containers'] = [];
  const byCanonical = new Map<string, WalkedItem>();
  const ownIds = new Set<string>();
  const refs = new Set<string>();
  const pageIssues: string[] = [];
  let browseCalls = 0;
  let itemEntries = 0;
  const titles = new Map<string, string>([['0', 'root']]);
  const childCounts = new Map<string, number | undefined>();
  while (queue.length > 0) {
    const id = queue.shift() ?? '';
    let start = 0;
    let total: number | null = null;
    let items = 0;
    for (;;) {
      const page = await browse(client, id, 'BrowseDirectChildren', start, pageSize);
      browseCalls += 1;
      if (browseCalls > 20_000) throw new Error('the walk did not end (over 20,000 Browse calls)');
      if (total !== null && page.totalMatches !== total)
        pageIssues.push(`${id}: TotalMatches ${total} then ${page.totalMatches} at ${start}`);
      total = page.totalMatches;
      if (page.numberReturned !== page.objects.length)
        pageIssues.push(
          `${id}@${start}: NumberReturned ${page.numberReturned}, ${page.objects.length} objects`,
        );
      if (page.objects.length > pageSize)
        pageIssues.push(`${id}@${start}: ${page.objects.length} > ${pageSize}`);
      const expected = Math.min(pageSize, Math.max(0, total - start));
      if (page.objects.length !== expected)
        pageIssues.push(`${id}@${start}: ${page.objects.length} objects, expected ${expected} of ${total}`);
      for (const object of page.objects) {
        if (object.parentID !== id) pageIssues.push(`${object.id}: parentID ${object.parentID} under ${id}`);
        if (object.kind === 'container') {
          titles.set(object.id, object.title);
          childCounts.set(object.id, object.childCount);
          if (!seen.has(object.id)) {
            seen.add(object.id);
            queue.push(object.id);
          }
          continue;
        }
        items += 1;
        itemEntries += 1;
        const canonical = object.refID ?? object.id;
        if (object.refID === undefined) ownIds.add(object.id);
        else refs.add(object.refID);
        const entry = byCanonical.get(canonical) ?? {
          canonical,
          title: object.title,
          ids: [],
          res: object.res,
        };
        entry.ids.push(object.id);
        byCanonical.set(canonical, entry);
      }
      start += page.objects.length;
      if (page.objects.length === 0 || start >= total) break;
    }
    containers.push({
      id,
      title: titles.get(id) ?? '',
      totalMatches: total ?? 0,
      childCount: childCounts.get(id),
      items,
    });
  }
  const items = [...byCanonical.values()];
  const byTitle: Record<string, number> = {};
  for (const item of items) byTitle[item.title] = (byTitle[item.title] ?? 0) + 1;
  return {
    browseCalls,
    containers,
    itemEntries,
    items,
    byTitle,
    pageIssues,
    danglingRefs: [...refs].filter((ref) => !ownIds.has(ref)),
  };
}

/** The container with the most items (All films / All Video): where paging and sorting are tried. */
function fullestContainer(walk: Walk): string {
  return [...walk.containers].sort((a, b) => b.items - a.items)[0]?.id ?? '0';
}

/** Paging of the fullest container in pages of 2 against one unpaged Browse of it. */
export async function checkPaging(client: DeviceClient, walk: Walk) {
  const container = fullestContainer(walk);
  const whole = await browse(client, container, 'BrowseDirectChildren', 0, 0);
  const pages: { start: number; numberReturned: number; totalMatches: number; ids: string[] }[] = [];
  for (let start = 0; start < whole.totalMatches; start += 2) {
    const page = await browse(client, container, 'BrowseDirectChildren', start, 2);
    pages.push({
      start,
      numberReturned: page.numberReturned,
      totalMatches: page.totalMatches,
      ids: page.objects.map((object) => object.id),
    });
  }
  const beyond = await browse(client, container, 'BrowseDirectChildren', whole.totalMatches + 5, 2);
  return {
    container,
    total: whole.totalMatches,
    wholeReturned: whole.numberReturned,
    wholeIds: whole.objects.map((object) => object.id),
    pages,
    beyondEnd: { numberReturned: beyond.numberReturned, totalMatches: beyond.totalMatches },
  };
}

/** `+dc:title` / `-dc:title` on the fullest container, when the server claims dc:title sorting. */
export async function checkSort(client: DeviceClient, walk: Walk, sortCaps: string) {
  const claimed = sortCaps === '*' || sortCaps.split(',').some((cap) => cap.trim() === 'dc:title');
  if (!claimed) return { claimed, container: '', ascending: [], descending: [] };
  const container = fullestContainer(walk);
  const titlesOf = async (sort: string) =>
    (await browse(client, container, 'BrowseDirectChildren', 0, 0, sort)).objects
      .filter((object) => object.kind === 'item')
      .map((object) => object.title);
  return {
    claimed,
    container,
    ascending: await titlesOf('+dc:title'),
    descending: await titlesOf('-dc:title'),
  };
}

/** An ObjectID the server never gave: UPnP 701 "No such object" with HTTP 500. */
export async function checkUnknownObject(client: DeviceClient) {
  const outcome = await callOrFault(client, 'ContentDirectory', 'Browse', {
    ObjectID: 'no-such-object-4711',
    BrowseFlag: 'BrowseDirectChildren',
    Filter: '*',
    StartingIndex: 0,
    RequestedCount: 10,
    SortCriteria: '',
  });
  const numeric = await callOrFault(client, 'ContentDirectory', 'Browse', {
    ObjectID: '4711',
    BrowseFlag: 'BrowseMetadata',
    Filter: '*',
    StartingIndex: 0,
    RequestedCount: 0,
    SortCriteria: '',
  });
  const facts = (
    answer: Record<string, string | undefined> | ActionFault,
  ): ActionFault['fault'] | { answered: string } =>
    isFault(answer) ? answer.fault : { answered: answer.NumberReturned ?? '' };
  return { opaque: facts(outcome), numeric: facts(numeric) };
}

/** A SOAP body cut short, and one that is no XML at all: a SOAP fault, never 200. */
export async function checkMalformedSoap(controlURL: string) {
  const headers = {
    'content-type': 'text/xml; charset="utf-8"',
    soapaction: `"${CONTENT_DIRECTORY}#Browse"`,
  };
  const cut =
    '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' +
    `<u:Browse xmlns:u="${CONTENT_DIRECTORY}"><ObjectID>0</ObjectID><BrowseFlag>BrowseDirect`;
  const answers = [];
  for (const body of [cut, 'this is not xml']) {
    const res = await httpRequest(controlURL, { method: 'POST', headers, body });
    const text = res.body.toString('utf8');
    answers.push({
      status: res.status,
      fault: /<(\w+:)?Fault\b/.test(text),
      errorCode: /<errorCode>(\d+)<\/errorCode>/.exec(text)?.[1] ?? null,
      stackTrace: /\bat \S+ \(|node:internal|Error: /.test(text),
    });
  }
  return { cut: answers[0], notXml: answers[1] };
}

/** Search, where the server claims search capabilities: by class and by title word. */
export async function checkSearch(client: DeviceClient, searchCaps: string, word: string) {
  const caps = searchCaps.split(',').map((cap) => cap.trim());
  const claimed = searchCaps === '*' || (caps.includes('upnp:class') && caps.includes('dc:title'));
  if (!claimed) return { claimed };
  const search = async (criteria: string) => {
    const result = await callAction(client, 'ContentDirectory', 'Search', {
      ContainerID: '0',
      SearchCriteria: criteria,
      Filter: '*',
      StartingIndex: 0,
      RequestedCount: 0,
      SortCriteria: '',
    });
    const objects = parseDidl(result.Result ?? '');
    const distinct = new Map<string, string>();
    for (const object of objects)
      if (object.kind === 'item') distinct.set(object.refID ?? object.id, object.title);
    return {
      numberReturned: Number(result.NumberReturned),
      totalMatches: Number(result.TotalMatches),
      entries: objects.length,
      nonVideoItems: objects.filter(
        (object) => object.kind === 'item' && !object.upnpClass.startsWith('object.item.videoItem'),
      ).length,
      titles: [...distinct.values()].sort(),
    };
  };
  return {
    claimed,
    videoItems: await search('upnp:class derivedfrom "object.item.videoItem"'),
    titleContains: await search(`dc:title contains "${word}"`),
  };
}

/** The first http-get video res of the item titled `title` in the walk. */
export function videoRes(
  walk: Walk,
  title: string,
  which: 'first' | 'conversion' = 'first',
): DidlRes | undefined {
  const item = walk.items.find((entry) => entry.title === title);
  const video = (item?.res ?? []).filter((res) => /^http-get:[^:]*:video\//.test(res.protocolInfo));
  // A conversion says so in its 4th field: DLNA.ORG_CI=1 (transcoded).
  return which === 'first' ? video[0] : video.find((res) => /DLNA\.ORG_CI=1/.test(res.protocolInfo));
}

/** The res URL of a direct file: bytes, ranges, HEAD, DLNA headers, ffprobe. */
export async function checkDirectRes(walk: Walk, target: DlnaTarget) {
  const res = videoRes(walk, target.directTitle);
  if (res === undefined) throw new Error(`no video res for "${target.directTitle}"`);
  const file = readFileSync(target.directFile);
  const full = await httpRequest(res.url);
  const range = await httpRequest(res.url, { headers: { range: 'bytes=100-199' } });
  const head = await httpRequest(res.url, { method: 'HEAD' });
  const dlna = await httpRequest(res.url, {
    method: 'HEAD',
    headers: { 'transferMode.dlna.org': 'Streaming', 'getcontentFeatures.dlna.org': '1' },
  });
  const probe = await run(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name:format=duration', '-of', 'json', res.url],
    { timeout: 60_000 },
  );
  const probed = JSON.parse(probe.stdout) as {
    streams?: { codec_type: string; codec_name: string }[];
    format?: { duration?: string };
  };
  return {
    url: res.url,
    protocolInfo: res.protocolInfo,
    resSize: res.size ?? null,
    fileSize: statSync(target.directFile).size,
    full: { status: full.status, length: full.body.length, equal: full.body.equals(file) },
    range: {
      status: range.status,
      contentRange: String(range.headers['content-range'] ?? ''),
      length: range.body.length,
      equal: range.body.equals(file.subarray(100, 200)),
    },
    head: {
      status: head.status,
      contentLength: Number(head.headers['content-length'] ?? -1),
      bodyLength: head.body.length,
      acceptRanges: String(head.headers['accept-ranges'] ?? ''),
    },
    transferMode: String(dlna.headers['transfermode.dlna.org'] ?? ''),
    contentFeatures: String(dlna.headers['contentfeatures.dlna.org'] ?? ''),
    ffprobe: {
      streams: (probed.streams ?? []).map((stream) => `${stream.codec_type}:${stream.codec_name}`).sort(),
      duration: Number(probed.format?.duration ?? 0),
    },
  };
}

/** VLC's own noise when it runs headless as nobody (no D-Bus, no config dir, no interface). */
const VLC_NOISE = [/dbus/i, /interface/i, /vlcrc/i, /config file/i, /globalhotkeys/i];

/**
 * VLC (cvlc as nobody, a throwaway HOME) plays `url` for `seconds`, twice. First as a TV would,
 * dummy outputs: its log must hold no error line and it must keep playing for the time asked
 * (exit 0 after ~`seconds`, not an early bail-out). Then the same with VLC's scene filter saving
 * every 25th decoded picture: distinct pictures are frames VLC itself decoded, one a second at
 * 25 fps, the evidence plain playback leaves none of. (That filter's own chroma converter lines
 * are why the error lines come from the first run only: Debian's VLC 3.0.24 logs "Failed to
 * create video converter" for the scene filter even while it writes the pictures.)
 */
export async function checkVlcPlays(url: string, seconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-judge-vlc-'));
  try {
    chmodSync(dir, 0o777);
    const vlc = async (args: string[]) => {
      const started = performance.now();
      try {
        const { stderr } = await run(
          'setpriv',
          [
            ...['--reuid=65534', '--regid=65534', '--clear-groups', 'cvlc', '-I', 'dummy', '-v'],
            ...['--no-video-title-show', '--play-and-exit', '--vout', 'dummy', '--aout', 'dummy'],
            // FFmpeg's decoders first (Debian's VLC hands AC-3 to S/PDIF pass-through otherwise).
            '--codec=avcodec,all',
            `--run-time=${seconds}`,
            ...args,
            url,
          ],
          { timeout: (seconds + 60) * 1000, env: { ...process.env, HOME: dir } },
        );
        return { code: 0 as number | null, stderr, wallMs: Math.round(performance.now() - started) };
      } catch (err) {
        const e = err as { code?: number; stderr?: string };
        return {
          code: typeof e.code === 'number' ? e.code : null,
          stderr: e.stderr ?? String(err),
          wallMs: Math.round(performance.now() - started),
        };
      }
    };
    const played = await vlc([]);
    const pictures = join(dir, 'pictures');
    mkdirSync(pictures);
    chmodSync(pictures, 0o777);
    const filtered = await vlc([
      ...['--video-filter=scene', '--scene-format=png', '--scene-ratio=25', '--scene-prefix=picture'],
      ...[`--scene-path=${pictures}`, '--no-scene-replace'],
    ]);
    const files = readdirSync(pictures).filter((name) => name.endsWith('.png'));
    const distinct = new Set(
      files.map((name) =>
        createHash('sha256')
          .update(readFileSync(join(pictures, name)))
          .digest('hex'),
      ),
    );
    const errors = played.stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /error|invalid|corrupt|missing picture|concealing|non-existing/i.test(line))
      .filter((line) => !VLC_NOISE.some((pattern) => pattern.test(line)));
    return {
      url,
      played: { code: played.code, wallMs: played.wallMs, errors },
      pictures: {
        code: filtered.code,
        wallMs: filtered.wallMs,
        saved: files.length,
        distinct: distinct.size,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every check against one target, in order; each check's facts or its error. */
export async function judgeDlnaServer(target: DlnaTarget, options: JudgeOptions) {
  provePrivateNetns();
  const client = new DeviceClient(target.location);
  const discovery = await attempt(() => checkDiscovery(target));
  const description = await attempt(() => checkDescription(target));
  const actions = await attempt(() => checkActions(client));
  const walked = await attempt(() => walkTree(client, options.pageSize));
  const walk = 'items' in walked ? (walked as Walk) : null;
  const needWalk = () => {
    if (walk === null) throw new Error('no walk');
    return walk;
  };
  const paging = await attempt(() => checkPaging(client, needWalk()));
  const sort = await attempt(() =>
    checkSort(client, needWalk(), 'sortCaps' in actions ? actions.sortCaps : ''),
  );
  const unknownObject = await attempt(() => checkUnknownObject(client));
  const control = ('services' in description ? description.services : []).find(
    (service) => service.serviceType === CONTENT_DIRECTORY,
  )?.controlURL;
  const malformed = await attempt(() => checkMalformedSoap(control ?? `${target.location}/no-control-url`));
  const search = await attempt(() =>
    checkSearch(client, 'searchCaps' in actions ? actions.searchCaps : '', target.titleWord),
  );
  const direct = await attempt(() => checkDirectRes(needWalk(), target));
  // VLC on the direct file and on the conversion at once: each plays its own URL for vlcSeconds of
  // real time (twice), so one after the other they only waited twice as long.
  const conversionTitle = target.conversionTitle;
  const [vlcDirect, vlcConversion] = await Promise.all([
    attempt(async () => {
      const res = videoRes(needWalk(), target.directTitle);
      if (res === undefined) throw new Error(`no video res for "${target.directTitle}"`);
      return checkVlcPlays(res.url, options.vlcSeconds);
    }),
    conversionTitle === undefined
      ? null
      : attempt(async () => {
          const res = videoRes(needWalk(), conversionTitle, 'conversion');
          if (res === undefined) throw new Error(`no conversion res for "${conversionTitle}"`);
          return checkVlcPlays(res.url, options.vlcSeconds);
        }),
  ]);
  return {
    target: target.name,
    discovery,
    description,
    actions,
    walk: walked,
    paging,
    sort,
    unknownObject,
    malformed,
    search,
    direct,
    vlcDirect,
    vlcConversion,
  };
}

export type JudgeFacts = Awaited<ReturnType<typeof judgeDlnaServer>>;
