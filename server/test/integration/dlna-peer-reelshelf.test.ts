// The DLNA acceptance judge (helpers/dlna-judge.ts) against reelshelf's own MediaServer: the same
// checks minidlna passes (integration/dlna-peer-minidlna.test.ts), with no excuses — unicast
// M-SEARCH answered (UDA 1.1), a conversion VLC plays — and a child's DLNA view without the R film.
// Only inside a private network namespace this test creates (helpers/netns.ts). Skipped until the
// DLNA parts of issue 24 are merged (server/src/http/dlna/dlna.routes.ts exists): the lead's switch.
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
import { R_FILM, REELSHELF_FILMS, reelshelfDlnaMissing } from '../helpers/dlna-reelshelf-target.ts';
import { cannotMakeNetns, NETNS_ADDRESSES, runInPrivateNetns } from '../helpers/netns.ts';

const reason = cannotMakeNetns() ?? reelshelfDlnaMissing();

describe(
  'the DLNA judge against reelshelf, in a private network namespace',
  { skip: reason ?? false },
  () => {
    let facts: JudgeFacts;
    let expects: TargetExpectations;
    let child: { byTitle: Record<string, number>; pageIssues: string[] };

    before(async () => {
      const run = await runInPrivateNetns(
        ['node', '--import', 'tsx', 'server/test/helpers/dlna-peer-reelshelf-netns.ts'],
        { timeoutMs: 170_000 },
      );
      const result = run.json.find((line) => 'facts' in line || 'refused' in line);
      assert.ok(result !== undefined, `no result (exit ${run.code}):\n${run.out.slice(-6000)}`);
      assert.equal(result.refused, undefined, String(result.refused));
      assert.equal(run.code, 0, run.out.slice(-6000));
      facts = result.facts as JudgeFacts;
      child = result.child as typeof child;
      expects = {
        films: REELSHELF_FILMS,
        titleWord: 'Fargo',
        location: String(result.location),
        peerHost: NETNS_ADDRESSES.own,
        unicastSearch: true,
        conversion: true,
        directSeconds: 12,
        vlcSeconds: 10,
      };
    });

    it('is found by multicast and unicast M-SEARCH, from loopback and the peer, and by gssdp-discover', () =>
      assertDiscovery(facts, expects));
    it('serves a MediaServer:1 description and the SCPDs of ContentDirectory and ConnectionManager', () =>
      assertDescription(facts));
    it('answers GetProtocolInfo, GetSystemUpdateID, the capabilities and BrowseMetadata of 0', () =>
      assertActions(facts));
    it('a walk of the whole tree, 7 at a time, finds every film exactly once after merging by refID', () =>
      assertWalk(facts, expects));
    it('pages consistently (StartingIndex, RequestedCount, TotalMatches)', () => assertPaging(facts));
    it('sorts by +dc:title and -dc:title when it claims to', () => assertSort(facts));
    it('answers an unknown ObjectID with UPnP 701 (HTTP 500) and a malformed body with a SOAP fault', () =>
      assertFaults(facts));
    it('searches by class and by title word', () => assertSearch(facts, expects));
    it('serves a file byte-exact, with ranges, HEAD and the DLNA headers; ffprobe reads it', () =>
      assertDirectRes(facts, expects));
    it('VLC plays the res of a direct file and of a conversion for 10 s', () =>
      assertVlcPlays(facts, expects));
    it("a PG child's DLNA view has every film but the R-rated one", () => {
      assert.deepEqual(child.pageIssues, []);
      const { [R_FILM.title]: _hidden, ...visible } = REELSHELF_FILMS;
      assert.deepEqual(child.byTitle, visible);
    });
  },
);
