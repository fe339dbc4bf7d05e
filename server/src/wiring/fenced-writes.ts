// A piece of the composition root (services/index.ts, at its size bound): the transactions in which a
// job ends what it built (the rename into place and its row), fenced by the job's epoch
// (docs/cluster.md "Fencing").
import type { Db } from '../db/database.ts';
import { ArtifactRepository } from '../repositories/artifact.repository.ts';
import { JobRepository } from '../repositories/job.repository.ts';
import { TrickplayRepository } from '../repositories/trickplay.repository.ts';
import { kyselyUnitOfWork, type UnitOfWork } from '../repositories/unit-of-work.ts';
import type { ArtifactFencedWrites } from '../services/playback/artifact.service.ts';
import type { TrickplayFencedWrites } from '../services/trickplay/trickplay.service.ts';

/**
 * A fencing transaction (a job's check and its write together) whose process froze in the middle is
 * ended by PostgreSQL after this long, so the job row it locked does not hold take-overs up: below the
 * 5-s lease (a take-over waits for that anyway), above a slow rename on a network share in between.
 */
const FENCED_WRITE_FROZEN_MS = 3_000;

/** A progressive artifact's build: its row and its job's fence. */
export function fencedArtifactWrites(db: Db): UnitOfWork<ArtifactFencedWrites> {
  return kyselyUnitOfWork(
    db,
    (trx) => ({ records: new ArtifactRepository(trx), jobs: new JobRepository(trx) }),
    { frozenAfterMs: FENCED_WRITE_FROZEN_MS },
  );
}

/** A set of seek thumbnails: its row and its job's fence. */
export function fencedTrickplayWrites(db: Db): UnitOfWork<TrickplayFencedWrites> {
  return kyselyUnitOfWork(
    db,
    (trx) => ({ rows: new TrickplayRepository(trx), jobs: new JobRepository(trx) }),
    { frozenAfterMs: FENCED_WRITE_FROZEN_MS },
  );
}
