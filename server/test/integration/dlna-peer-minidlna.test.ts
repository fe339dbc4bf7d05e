// The DLNA acceptance judge (helpers/dlna-judge.ts) against minidlna 1.3.0, Debian's DLNA server
// in countless NAS boxes: proof that the judge itself judges a real server right before it judges
// reelshelf's (integration/dlna-peer-reelshelf.test.ts). Everything runs ONLY inside a private
// network namespace this test creates (helpers/netns.ts: lo plus a veth pair to a peer namespace,
// players.md §2.6); minidlna multicasts from its first second, so it never starts anywhere else.
// The script inside (helpers/dlna-peer-minidlna-netns.ts) prints the facts; this file asserts them.
// Skipped, with the reason, where namespaces cannot be made or minidlna is not installed.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  assertActions,
  assertDescription,
  assertDirectRes,
  assertDiscovery,
  assertFaults,
  assertPaging,
  assertSearch,
  assertSort,
  assertVlcPlays,
  assertWalk,
  type TargetExpectations,
} from '../helpers/dlna-judge-asserts.ts';
import type { JudgeFacts } from '../helpers/dlna-judge.ts';
import { cannotMakeNetns, NETNS_ADDRESSES, runInPrivateNetns } from '../helpers/netns.ts';
import { minidlnaMissing } from '../helpers/minidlna.ts';

const reason = cannotMakeNetns() ?? minidlnaMissing();

describe('the DLNA judge against minidlna, in a private network namespace', { skip: reason ?? false }, () => {
  let facts: JudgeFacts;
  let expects: TargetExpectations;

  before(async () => {
    const run = await runInPrivateNetns(
      ['node', '--import', 'tsx', 'server/test/helpers/dlna-peer-minidlna-netns.ts'],
      { timeoutMs: 170_000 },
    );
    const result = run.json.find((line) => 'facts' in line || 'refused' in line);
    assert.ok(result !== undefined, `no result (exit ${run.code}):\n${run.out.slice(-6000)}`);
    assert.equal(result.refused, undefined, String(result.refused));
    assert.equal(run.code, 0, run.out.slice(-6000));
    facts = result.facts as JudgeFacts;
    expects = {
      films: result.films as Record<string, number>,
      titleWord: 'Fargo',
      location: 'http://127.0.0.1:8200/rootDesc.xml',
      peerHost: NETNS_ADDRESSES.own,
      // Excused (players.md §2.4): UPnP/1.0, its socket bound to the multicast group.
      unicastSearch: false,
      // minidlna hands every TV the file as it is: there is no conversion to play.
      conversion: false,
      directSeconds: 12,
      vlcSeconds: 10,
    };
  });

  it('is found by multicast M-SEARCH from loopback and from the peer, and by gssdp-discover', () =>
    assertDiscovery(facts, expects));
  it('serves a MediaServer:1 description and the SCPDs of ContentDirectory and ConnectionManager', () =>
    assertDescription(facts));
  it('answers GetProtocolInfo, GetSystemUpdateID, the capabilities and BrowseMetadata of 0', () =>
    assertActions(facts));
  it('a walk of the whole tree, 7 at a time, finds every film exactly once after merging by refID', () =>
    assertWalk(facts, expects));
  it('pages consistently (StartingIndex, RequestedCount, TotalMatches)', () => assertPaging(facts));
  it('sorts by +dc:title and -dc:title, which it claims', () => assertSort(facts));
  it('answers an unknown ObjectID with UPnP 701 (HTTP 500) and a malformed body with a SOAP fault', () =>
    assertFaults(facts));
  it('searches by class and by title word', () => assertSearch(facts, expects));
  it('serves a file byte-exact, with ranges, HEAD and the DLNA headers; ffprobe reads it', () =>
    assertDirectRes(facts, expects));
  it('VLC plays a res URL for 10 s', () => assertVlcPlays(facts, expects));
});
