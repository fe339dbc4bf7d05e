// Runs in the PEER namespace of runInPrivateNetns (through inPeer: "another box on the LAN",
// 198.18.77.2 on rsdl1) for the DLNA judge: proves where it is before the first datagram, sends a
// multicast M-SEARCH per search target given in argv, fetches every LOCATION answered (reachable
// from here?) and prints one JSON line: { answers: [...], fetched: { url: status } }.
import { readlinkSync } from 'node:fs';
import { linkNames, NETNS_ADDRESSES } from './netns.ts';
import { mSearch, type SearchAnswer } from './ssdp-search.ts';

const refuse = (reason: string): never => {
  process.stdout.write(`${JSON.stringify({ refused: reason })}\n`);
  process.exit(3);
};
const ownNs = readlinkSync('/proc/self/ns/net');
if (ownNs === (process.env.REELSHELF_HOST_NETNS ?? ownNs))
  refuse(`peer search outside a private namespace (${ownNs})`);
const links = linkNames();
if (links.some((name) => name !== 'lo' && name !== NETNS_ADDRESSES.peerLink))
  refuse(`peer search: unexpected links ${links.join(', ')}`);

const waitMs = Number(process.argv[2] ?? '2500');
const targets = process.argv.slice(3);
const answers: (SearchAnswer & { searched: string })[] = [];
for (const st of targets) {
  for (const answer of await mSearch({ from: NETNS_ADDRESSES.peer, st, mx: 1, waitMs })) {
    answers.push({ ...answer, searched: st });
  }
}
const fetched: Record<string, number> = {};
for (const location of new Set(answers.map((answer) => answer.location))) {
  try {
    fetched[location] = (await fetch(location, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    fetched[location] = 0;
  }
}
process.stdout.write(`${JSON.stringify({ answers, fetched })}\n`);
