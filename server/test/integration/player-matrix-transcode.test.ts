// The player matrix (issue 21) on a transcoded film (MPEG-2 to H.264): see helpers/player-matrix-suite.ts.
import { playerMatrixSuite } from '../helpers/player-matrix-suite.ts';

playerMatrixSuite('transcode');
