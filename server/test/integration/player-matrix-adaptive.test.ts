// The player matrix (issue 21) on an adaptive film (H.264 copied, cut at its keyframes): see helpers/player-matrix-suite.ts.
import { playerMatrixSuite } from '../helpers/player-matrix-suite.ts';

playerMatrixSuite('adaptive');
