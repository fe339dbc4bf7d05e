import type { JobKindName, JobStatusName, JobView } from '@reelshelf/contract';
import type { JobRunner } from '../../jobs/job-runner.ts';

/**
 * What GET /api/jobs reads: every long-running job in one shape. Routes go through services, not
 * the runner (a database-backed layer); the runner answers running jobs from memory so an import's
 * progress stays readable while its transaction holds the database.
 */
export class JobService {
  constructor(private readonly runner: JobRunner) {}

  /** The newest jobs first, optionally of one kind and/or in one status. */
  list(filter: { kind?: JobKindName; status?: JobStatusName; limit?: number }): Promise<JobView[]> {
    return this.runner.list(filter);
  }

  /** One job; 404 `not_found` when there is none. */
  describe(id: number): Promise<JobView> {
    return this.runner.describe(id);
  }
}
