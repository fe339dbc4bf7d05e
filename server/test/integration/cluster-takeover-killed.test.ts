// kill -9 of the node running a scan, on PostgreSQL: another node takes it over (its process is gone:
// at its next sweep, well within lease + 5 s) and the scan commits once (helpers/lost-node-suite.ts).
import { lostNodeSuite } from '../helpers/lost-node-suite.ts';

lostNodeSuite('SIGKILL');
