// Jellyfin UDP discovery (REELSHELF_JELLYFIN_DISCOVERY_PORT) end to end, ONLY inside a network
// namespace this test creates (players.md §2.6): `unshare --net` gives a namespace with nothing but
// its own loopback; a veth pair joins it to a second, peer namespace (198.18.77.1 ↔ 198.18.77.2).
// The questions are unicast; nothing is ever sent on a real interface, and the script inside
// (helpers/jellyfin-discovery-netns.ts) refuses to send anything until it has proved where it runs.
// Where namespaces cannot be made (not root, no unshare), the test is skipped with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cannotMakeNetns, runInPrivateNetns } from '../helpers/netns.ts';

interface Seen {
  refused?: string;
  publicId: string;
  jellyfinPort: number;
  mainPort: number;
  mainOnlyPublicId: string;
  fromLoopback: string | null;
  notAQuestion: string | null;
  fromPeer: string;
  mainOnlyAnswer: string | null;
  mainOnlyInfo: { Id?: string } | null;
}

const reason = cannotMakeNetns();

describe('jellyfin discovery over UDP, in a private network namespace', () => {
  it(
    'answers on the interface the question came in on, with the public server id, under 1 KB',
    { skip: reason ?? false },
    async () => {
      const { code, out } = await runInPrivateNetns([
        process.execPath,
        '--import',
        'tsx',
        'server/test/helpers/jellyfin-discovery-netns.ts',
      ]);
      const line = out.split('\n').find((l) => l.startsWith('{"'));
      assert.ok(line !== undefined, `no result (exit ${code}):\n${out}`);
      const seen = JSON.parse(line) as Seen;
      assert.equal(seen.refused, undefined, seen.refused);
      assert.equal(code, 0, out);
      assert.match(seen.publicId, /^[0-9a-f]{32}$/);

      // From loopback: 127.0.0.1 and the Jellyfin port's root.
      const local = JSON.parse(seen.fromLoopback ?? 'null') as Record<string, unknown>;
      assert.deepEqual(local, {
        Address: `http://127.0.0.1:${seen.jellyfinPort}`,
        Id: seen.publicId,
        Name: local.Name,
        EndpointAddress: null,
      });
      assert.match(String(local.Name), /^reelshelf on /);
      assert.ok(Buffer.byteLength(seen.fromLoopback ?? '') < 1024);
      assert.equal(seen.notAQuestion, null, 'anything but the question goes unanswered');

      // From the peer namespace across the veth pair: the veth address, reachable from the asker.
      const peer = JSON.parse(seen.fromPeer) as {
        answer: string;
        bytes: number;
        from: string;
        info: { Id: string };
      };
      const answer = JSON.parse(peer.answer) as { Address: string; Id: string };
      assert.equal(answer.Address, `http://198.18.77.1:${seen.jellyfinPort}`);
      assert.equal(answer.Id, seen.publicId);
      assert.ok(peer.bytes < 1024, String(peer.bytes));
      assert.equal(peer.from, '198.18.77.1', 'answered unicast, from the address asked');
      assert.equal(peer.info.Id, seen.publicId, 'the Address it gave serves System/Info/Public to the asker');

      // Jellyfin port off: the main port under /jellyfin.
      const main = JSON.parse(seen.mainOnlyAnswer ?? 'null') as { Address: string; Id: string };
      assert.equal(main.Address, `http://127.0.0.1:${seen.mainPort}/jellyfin`);
      assert.equal(main.Id, seen.mainOnlyPublicId);
      assert.equal(seen.mainOnlyInfo?.Id, seen.mainOnlyPublicId);
    },
  );
});
