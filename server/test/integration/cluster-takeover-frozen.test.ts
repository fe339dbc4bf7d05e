// SIGSTOP of the node running a scan, on PostgreSQL: its process lives, so only its lease's end lets
// another node take the scan over (within lease + 5 s); the scan commits once and the thawed zombie
// writes nothing (helpers/lost-node-suite.ts).
import { lostNodeSuite } from '../helpers/lost-node-suite.ts';

lostNodeSuite('SIGSTOP');
