// SSDP of the DLNA MediaServer end to end, ONLY inside a private network namespace this test creates
// (netns.ts; players.md §2.6): loopback plus a veth pair to a peer namespace (198.18.77.1 ↔ 198.18.77.2).
// The script inside (helpers/dlna-ssdp-netns.ts) proves where it runs before its first datagram, starts
// the SSDP service alone on UDP 1900 and reports what control points saw; the judging is here. Where
// namespaces cannot be made (not root, no unshare), the test is skipped with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Answer, StepResult } from '../helpers/dlna-ssdp-peer.ts';
import { cannotMakeNetns, runInPrivateNetns } from '../helpers/netns.ts';

const reason = cannotMakeNetns();

const ALL = [
  'upnp:rootdevice',
  'UDN',
  'urn:schemas-upnp-org:device:MediaServer:1',
  'urn:schemas-upnp-org:service:ContentDirectory:1',
  'urn:schemas-upnp-org:service:ConnectionManager:1',
  'urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1',
];

interface Searches {
  steps: StepResult[];
  locationStatus?: number;
}

interface Seen {
  refused?: string;
  udn: string;
  httpPort: number;
  server: string;
  bootId: number;
  aliveOnLoopback: boolean;
  aliveInPeer: boolean;
  fromLoopbackMulticast: Searches;
  fromLoopbackUnicast: Searches;
  fromPeerMulticast: Searches;
  fromPeerUnicast: Searches;
  aliveOnAddedAddress: boolean;
  fromAddedSubnet: Searches;
  periodicAlive: boolean;
  gssdp: { code: number | null; out: string };
  byebyeOnLoopback: boolean;
  byebyeInPeer: boolean;
  byebyeOnAddedAddress: boolean;
}

/** Every answer well-formed, from `device`, with LOCATION on `device`; the STs in order of arrival. */
function judgeAnswers(seen: Seen, answers: Answer[], device: string): string[] {
  for (const answer of answers) {
    assert.equal(answer.from, device, 'answered from the address searched on');
    assert.equal(answer.location, `http://${device}:${seen.httpPort}/dlna/description.xml`);
    assert.equal(answer.cacheControl, 'max-age=1800');
    assert.equal(answer.ext, '');
    assert.equal(answer.server, seen.server);
    assert.match(seen.server, /^[^/ ]+\/[^ ]+ UPnP\/1\.1 reelshelf\/0\.1\.0$/);
    assert.ok(answer.date !== null && !Number.isNaN(Date.parse(answer.date)), String(answer.date));
    assert.equal(answer.bootId, String(seen.bootId));
    assert.equal(answer.configId, '1');
    const st = answer.st ?? '';
    assert.equal(answer.usn, st === seen.udn ? seen.udn : `${seen.udn}::${st}`);
  }
  return answers.map((a) => (a.st === seen.udn ? 'UDN' : (a.st ?? '')));
}

function judgeSearches(seen: Seen, searches: Searches, device: string): void {
  const byName = new Map(searches.steps.map((s) => [s.name, s]));
  for (const step of searches.steps) assert.equal(step.timedOut, false, `${step.name}: timed out`);
  assert.deepEqual(
    judgeAnswers(seen, byName.get('ssdp:all')?.answers ?? [], device).sort(),
    [...ALL].sort(),
    'ssdp:all: the 6 targets, once each',
  );
  for (const name of ALL) {
    const st = name === 'UDN' ? seen.udn : name;
    assert.deepEqual(judgeAnswers(seen, byName.get(st)?.answers ?? [], device), [name], `${st}: one answer`);
  }
  for (const ignored of ['MediaServer:2', 'garbage', 'no MAN']) {
    assert.deepEqual(byName.get(ignored)?.answers, [], `${ignored}: no answer`);
  }
}

describe('DLNA SSDP, in a private network namespace', () => {
  it(
    'announces, answers multicast and unicast M-SEARCH on the interface asked, follows a new address, says byebye',
    { skip: reason ?? false },
    async () => {
      const run = await runInPrivateNetns(
        ['node', '--import', 'tsx', 'server/test/helpers/dlna-ssdp-netns.ts'],
        {
          timeoutMs: 150_000,
        },
      );
      const seen = run.json.find((line) => 'udn' in line || 'refused' in line) as Seen | undefined;
      assert.ok(seen !== undefined, `no result (exit ${run.code}):\n${run.out}`);
      assert.equal(seen.refused, undefined, seen.refused);
      assert.equal(run.code, 0, run.out);

      assert.equal(
        seen.aliveOnLoopback,
        true,
        'NOTIFY ssdp:alive for every target on lo, LOCATION 127.0.0.1',
      );
      assert.equal(
        seen.aliveInPeer,
        true,
        'NOTIFY ssdp:alive for every target across the veth, LOCATION 198.18.77.1',
      );

      judgeSearches(seen, seen.fromLoopbackMulticast, '127.0.0.1');
      judgeSearches(seen, seen.fromLoopbackUnicast, '127.0.0.1');
      judgeSearches(seen, seen.fromPeerMulticast, '198.18.77.1');
      judgeSearches(seen, seen.fromPeerUnicast, '198.18.77.1');
      assert.equal(seen.fromLoopbackMulticast.locationStatus, 200, 'LOCATION serves the description');
      assert.equal(seen.fromPeerMulticast.locationStatus, 200, 'LOCATION reachable from the peer');

      assert.equal(seen.aliveOnAddedAddress, true, 'an address added while running is announced on');
      const added = seen.fromAddedSubnet.steps[0];
      assert.equal(added?.timedOut, false);
      assert.deepEqual(judgeAnswers(seen, added?.answers ?? [], '198.18.78.1').sort(), [...ALL].sort());
      assert.equal(seen.fromAddedSubnet.locationStatus, 200);

      assert.equal(seen.periodicAlive, true, 'announced again after the interval');

      assert.equal(seen.gssdp.code, 0, seen.gssdp.out);
      assert.match(
        seen.gssdp.out,
        new RegExp(`USN:\\s+${seen.udn}::urn:schemas-upnp-org:device:MediaServer:1`),
        seen.gssdp.out,
      );
      assert.match(
        seen.gssdp.out,
        new RegExp(`http://127\\.0\\.0\\.1:${seen.httpPort}/dlna/description\\.xml`),
      );

      assert.equal(seen.byebyeOnLoopback, true, 'ssdp:byebye for every target on lo at stop');
      assert.equal(seen.byebyeInPeer, true, 'ssdp:byebye for every target across the veth at stop');
      assert.equal(seen.byebyeOnAddedAddress, true, 'ssdp:byebye on the added address too');
    },
  );
});
