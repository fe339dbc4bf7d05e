// The player matrix (issue 21) on the prewarmed TV presentation and the progressive file remuxed from it: see helpers/player-matrix-suite.ts.
import { playerMatrixSuite } from '../helpers/player-matrix-suite.ts';

playerMatrixSuite('prewarm');
