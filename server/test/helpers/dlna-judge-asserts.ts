// The verdict on the DLNA judge's facts (dlna-judge.ts), one function per check, shared by every
// target's test (minidlna now, reelshelf after the merge). What a target is excused from is said
// in its expectations, with the reason, never by loosening a check for everyone.
import assert from 'node:assert/strict';
import { CONNECTION_MANAGER, CONTENT_DIRECTORY, type JudgeFacts, MEDIA_SERVER } from './dlna-judge.ts';

export interface TargetExpectations {
  /** What the judge was told (films by title → objects, the word searched for). */
  films: Record<string, number>;
  titleWord: string;
  /** The description URL reached from loopback, and the host a peer's search must be given. */
  location: string;
  peerHost: string;
  /**
   * Answers a unicast M-SEARCH sent to <host>:1900 (UDA 1.1). minidlna 1.3.0 is excused: it
   * announces UPnP/1.0, which has no unicast search, and binds its socket to 239.255.255.250:1900,
   * so a datagram to its own address never reaches it (players.md §2.4). reelshelf must answer.
   */
  unicastSearch: boolean;
  /** Has a conversion res VLC must play (reelshelf; minidlna only ever hands out the file). */
  conversion: boolean;
  /** The direct film's length in seconds (ffprobe must read about that). */
  directSeconds: number;
  vlcSeconds: number;
}

type Facts = JudgeFacts;

function noError(facts: { error?: string }, check: string): void {
  assert.equal(facts.error, undefined, `${check} failed: ${facts.error}`);
}

function ok<T extends { error?: string }>(facts: T, check: string): T {
  noError(facts, check);
  return facts;
}

const ALL_TYPES = ['upnp:rootdevice', MEDIA_SERVER, CONTENT_DIRECTORY, CONNECTION_MANAGER];

export function assertDiscovery(facts: Facts, expects: TargetExpectations): void {
  const discovery = ok(facts.discovery, 'discovery');
  const description = ok(facts.description, 'description');
  const udn = description.udn;
  // ssdp:all: the root device, the UUID, the device type and every service, each on LOCATION.
  const sts = new Set(discovery.loopbackAll.map((answer) => answer.st));
  for (const st of [...ALL_TYPES, udn])
    assert.ok(sts.has(st), `ssdp:all lacks ${st}: ${[...sts].join(', ')}`);
  for (const answer of [
    ...discovery.loopbackAll,
    ...discovery.loopbackMediaServer,
    ...discovery.loopbackRoot,
  ]) {
    assert.equal(answer.status, 'HTTP/1.1 200 OK');
    assert.ok(answer.ext, 'EXT header');
    assert.match(answer.cacheControl, /max-age\s*=\s*[1-9]\d*/);
    assert.equal(answer.location, expects.location);
    assert.ok(answer.usn.startsWith(udn), `${answer.usn} is not of ${udn}`);
    assert.notEqual(answer.server, '');
  }
  assert.ok(discovery.loopbackMediaServer.length >= 1, 'no answer to a MediaServer:1 search from loopback');
  assert.deepEqual(
    new Set(discovery.loopbackMediaServer.map((answer) => answer.st)),
    new Set([MEDIA_SERVER]),
  );
  assert.deepEqual(
    new Set(discovery.loopbackMediaServer.map((answer) => answer.usn)),
    new Set([`${udn}::${MEDIA_SERVER}`]),
  );
  assert.deepEqual(
    new Set(discovery.loopbackRoot.map((answer) => answer.usn)),
    new Set([`${udn}::upnp:rootdevice`]),
  );

  // From "another box": the answer carries the address of the interface the search came in on.
  assert.equal(discovery.peer.refused, undefined, discovery.peer.refused);
  const peerMediaServer = discovery.peer.answers.filter((answer) => answer.st === MEDIA_SERVER);
  assert.ok(peerMediaServer.length >= 2, 'the peer got MediaServer:1 for ssdp:all and for its own search');
  const peerLocation = new URL(expects.location);
  peerLocation.hostname = expects.peerHost;
  for (const answer of discovery.peer.answers) {
    assert.equal(answer.from, expects.peerHost);
    assert.equal(answer.location, peerLocation.href);
  }
  assert.equal(discovery.peer.fetched[peerLocation.href], 200, 'the peer fetches the LOCATION it was given');

  // UDA 1.1 unicast search (see TargetExpectations.unicastSearch for who is excused).
  if (expects.unicastSearch) {
    assert.ok(
      discovery.unicast.some((answer) => answer.st === MEDIA_SERVER && answer.location === expects.location),
      `no answer to a unicast M-SEARCH: ${JSON.stringify(discovery.unicast)}`,
    );
  } else {
    assert.deepEqual(discovery.unicast, [], 'an excused target answered unicast after all: drop its excuse');
  }

  // gssdp-discover (GUPnP's), from loopback and from the peer.
  assert.ok(discovery.gssdpLo.locations.includes(expects.location), JSON.stringify(discovery.gssdpLo));
  assert.ok(discovery.gssdpPeer.locations.includes(peerLocation.href), JSON.stringify(discovery.gssdpPeer));
  assert.ok(discovery.gssdpLo.usns.includes(`${udn}::${MEDIA_SERVER}`));
}

export function assertDescription(facts: Facts): void {
  const description = ok(facts.description, 'description');
  assert.equal(description.status, 200);
  assert.match(description.contentType, /xml/);
  assert.equal(description.deviceType, MEDIA_SERVER);
  assert.notEqual(description.friendlyName, '');
  assert.match(description.udn, /^uuid:[0-9a-f-]{36}$/i);
  const byType = new Map(description.services.map((service) => [service.serviceType, service]));
  const cds = byType.get(CONTENT_DIRECTORY);
  const cm = byType.get(CONNECTION_MANAGER);
  assert.ok(cds !== undefined && cm !== undefined, 'ContentDirectory:1 and ConnectionManager:1 are listed');
  for (const service of [cds, cm]) {
    assert.equal(service.scpdStatus, 200, `SCPD of ${service.serviceType}`);
    for (const url of [service.controlURL, service.SCPDURL, service.eventSubURL])
      assert.match(url, /^http:\/\//, service.serviceType);
  }
  for (const action of [
    'Browse',
    'Search',
    'GetSearchCapabilities',
    'GetSortCapabilities',
    'GetSystemUpdateID',
  ])
    assert.ok(cds.actions.includes(action), `ContentDirectory SCPD lacks ${action}`);
  for (const action of ['GetProtocolInfo', 'GetCurrentConnectionIDs', 'GetCurrentConnectionInfo'])
    assert.ok(cm.actions.includes(action), `ConnectionManager SCPD lacks ${action}`);
}

export function assertActions(facts: Facts): void {
  const actions = ok(facts.actions, 'actions');
  assert.ok(actions.protocolInfoSource.length > 0, 'GetProtocolInfo Source is empty');
  // protocol:network:contentFormat:additionalInfo; a MIME type may carry parameters (audio/L16;rate=…).
  for (const entry of actions.protocolInfoSource) assert.match(entry, /^http-get:\*:[^:\s/]+\/[^:\s]+:\S+$/);
  assert.ok(actions.protocolInfoSource.some((entry) => entry.startsWith('http-get:*:video/mp4:')));
  assert.match(actions.systemUpdateId, /^\d+$/);
  assert.deepEqual(actions.rootMetadata, {
    numberReturned: 1,
    totalMatches: 1,
    objects: [
      {
        kind: 'container',
        id: '0',
        parentID: '-1',
        upnpClass: actions.rootMetadata.objects[0]?.upnpClass,
        childCount: actions.rootMetadata.objects[0]?.childCount,
      },
    ],
  });
  assert.match(actions.rootMetadata.objects[0]?.upnpClass ?? '', /^object\.container/);
}

export function assertWalk(facts: Facts, expects: TargetExpectations): void {
  const walk = ok(facts.walk, 'walk');
  assert.deepEqual(walk.pageIssues, []);
  assert.deepEqual(walk.danglingRefs, [], 'every refID points at an item of the tree');
  // Every film found, each object exactly once after merging by refID, and nothing else.
  assert.deepEqual(walk.byTitle, expects.films);
  for (const item of walk.items) {
    assert.ok(
      item.res.some((res) => /^http-get:[^:]*:video\//.test(res.protocolInfo) && /^http:\/\//.test(res.url)),
      `${item.title} has no http-get video res`,
    );
  }
  for (const container of walk.containers) {
    if (container.childCount !== undefined) {
      assert.equal(container.childCount, container.totalMatches, `childCount of ${container.id}`);
    }
  }
}

export function assertPaging(facts: Facts): void {
  const paging = ok(facts.paging, 'paging');
  assert.ok(paging.total >= 2, 'a container to page through');
  assert.equal(paging.wholeReturned, paging.total, 'RequestedCount 0 returns everything');
  for (const page of paging.pages) {
    assert.equal(page.totalMatches, paging.total);
    assert.equal(page.numberReturned, Math.min(2, paging.total - page.start));
    assert.equal(page.ids.length, page.numberReturned);
  }
  assert.deepEqual(
    paging.pages.flatMap((page) => page.ids),
    paging.wholeIds,
    'pages in order are the whole list',
  );
  assert.deepEqual(paging.beyondEnd, { numberReturned: 0, totalMatches: paging.total });
}

function byTitle(a: string, b: string): number {
  return a.localeCompare(b, 'en', { sensitivity: 'base', numeric: true });
}

export function assertSort(facts: Facts): void {
  const sort = ok(facts.sort, 'sort');
  if (!sort.claimed) return;
  assert.ok(sort.ascending.length >= 2);
  assert.deepEqual(sort.ascending, [...sort.ascending].sort(byTitle), '+dc:title');
  assert.deepEqual(
    sort.descending,
    [...sort.descending].sort((a, b) => byTitle(b, a)),
    '-dc:title',
  );
  assert.deepEqual([...sort.descending].reverse(), sort.ascending);
}

export function assertFaults(facts: Facts): void {
  const unknown = ok(facts.unknownObject, 'unknown object');
  for (const outcome of [unknown.opaque, unknown.numeric]) {
    assert.deepEqual(
      {
        statusCode: 'statusCode' in outcome ? outcome.statusCode : 200,
        errorCode: 'errorCode' in outcome ? outcome.errorCode : null,
      },
      { statusCode: 500, errorCode: '701' },
      JSON.stringify(outcome),
    );
  }
  const malformed = ok(facts.malformed, 'malformed SOAP');
  for (const answer of [malformed.cut, malformed.notXml]) {
    assert.ok(answer !== undefined);
    assert.equal(answer.status, 500, 'a SOAP fault travels with HTTP 500');
    assert.ok(answer.fault, 'a SOAP Fault body');
    assert.equal(answer.stackTrace, false);
  }
}

export function assertSearch(facts: Facts, expects: TargetExpectations): void {
  const search = ok(facts.search, 'search');
  if (!search.claimed || !('videoItems' in search)) return;
  const titles = Object.entries(expects.films)
    .flatMap(([title, count]) => Array.from({ length: count }, () => title))
    .sort();
  assert.deepEqual(search.videoItems.titles, titles, 'derivedfrom object.item.videoItem: every film, once');
  assert.equal(search.videoItems.nonVideoItems, 0);
  assert.equal(search.videoItems.totalMatches, search.videoItems.numberReturned);
  assert.deepEqual(
    search.titleContains.titles,
    titles.filter((title) => title.includes(expects.titleWord)),
    `dc:title contains "${expects.titleWord}"`,
  );
}

export function assertDirectRes(facts: Facts, expects: TargetExpectations): void {
  const direct = ok(facts.direct, 'direct res');
  assert.deepEqual(direct.full, { status: 200, length: direct.fileSize, equal: true });
  assert.deepEqual(direct.range, {
    status: 206,
    contentRange: `bytes 100-199/${direct.fileSize}`,
    length: 100,
    equal: true,
  });
  assert.equal(direct.head.status, 200);
  assert.equal(direct.head.contentLength, direct.fileSize);
  assert.equal(direct.head.bodyLength, 0);
  assert.equal(direct.head.acceptRanges, 'bytes');
  if (direct.resSize !== null) assert.equal(direct.resSize, direct.fileSize, 'res size');
  assert.equal(direct.transferMode, 'Streaming', 'transferMode.dlna.org echoed');
  // contentFeatures.dlna.org: the 4th field of the res it serves.
  assert.equal(direct.contentFeatures, direct.protocolInfo.split(':')[3]);
  assert.match(direct.protocolInfo, /DLNA\.ORG_OP=01/, 'a whole file seeks by bytes');
  assert.deepEqual(direct.ffprobe.streams, ['audio:aac', 'video:h264']);
  assert.ok(Math.abs(direct.ffprobe.duration - expects.directSeconds) < 0.5, String(direct.ffprobe.duration));
}

function assertVlc(
  vlc: Facts['vlcDirect'] | NonNullable<Facts['vlcConversion']>,
  what: string,
  seconds: number,
): void {
  const facts = ok(vlc, `VLC on the ${what}`);
  assert.equal(facts.played.code, 0, `VLC exit on the ${what}`);
  assert.deepEqual(facts.played.errors, [], `VLC's errors on the ${what}`);
  // It kept playing for the time asked (not an early bail-out); generous: only the lower bound.
  assert.ok(facts.played.wallMs >= (seconds - 2) * 1000, `VLC stopped after ${facts.played.wallMs} ms`);
  assert.equal(facts.pictures.code, 0);
  assert.ok(
    facts.pictures.distinct >= seconds - 2,
    `VLC decoded ${facts.pictures.distinct} distinct pictures`,
  );
}

export function assertVlcPlays(facts: Facts, expects: TargetExpectations): void {
  assertVlc(facts.vlcDirect, 'direct file', expects.vlcSeconds);
  if (expects.conversion) {
    assert.ok(facts.vlcConversion !== null, 'the target has a conversion to play');
    assertVlc(facts.vlcConversion, 'conversion', expects.vlcSeconds);
  } else {
    assert.equal(facts.vlcConversion, null);
  }
}
