import type { JobContext, JobKind } from '../../src/jobs/job-runner.ts';
import { JobCancelledError } from '../../src/jobs/job-runner.ts';
import type { JobRow } from '../../src/repositories/job.repository.ts';

/**
 * An in-memory job runner for unit tests of services: the kinds a service registers, run at once (one
 * at a time per kind, as the real runner's queues of concurrency 1 do), with rows kept in a list.
 * Dedupe keys join the running job; cancel aborts the job's signal.
 */
export class FakeJobRunner {
  readonly rows: JobRow[] = [];
  private readonly kinds = new Map<string, JobKind<unknown>>();
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private tail = Promise.resolve();

  register<P>(name: string, kind: JobKind<P>): void {
    this.kinds.set(name, kind as JobKind<unknown>);
  }

  async enqueue<P>(name: string, payload: P, dedupeKey: string | null = null) {
    const kind = this.kinds.get(name);
    if (kind === undefined) throw new Error(`unknown job kind ${name}`);
    const active = this.rows.find(
      (r) => r.kind === name && r.dedupe_key === dedupeKey && dedupeKey !== null && this.running.has(r.id),
    );
    if (active !== undefined) return { id: active.id, created: false };
    const row: JobRow = {
      id: this.rows.length + 1,
      kind: name,
      dedupe_key: dedupeKey,
      status: 'queued',
      payload_json: JSON.stringify(payload),
      progress_done: 0,
      progress_total: 0,
      result_json: null,
      error: null,
      created_at: new Date(0).toISOString(),
      started_at: null,
      finished_at: null,
      owner_node: null,
      lease_until: null,
      epoch: 1,
      cancel_requested: 0,
      attempts: 1,
    };
    this.rows.push(row);
    const controller = new AbortController();
    const ctx: JobContext<unknown> = {
      jobId: row.id,
      epoch: 1,
      payload,
      signal: controller.signal,
      progress: (done, total) => {
        row.progress_total = total;
        row.progress_done = Math.min(Math.max(done, 0), total);
      },
      report: async (result) => {
        row.result_json = JSON.stringify(result);
      },
    };
    const done = (this.tail = this.tail.then(async () => {
      row.status = 'running';
      try {
        row.result_json = JSON.stringify((await kind.run(ctx)) ?? null);
        row.status = 'succeeded';
      } catch (err) {
        row.status = err instanceof JobCancelledError ? 'cancelled' : 'failed';
        row.error = err instanceof Error ? err.message : String(err);
      } finally {
        this.running.delete(row.id);
      }
    }));
    this.running.set(row.id, { controller, done });
    return { id: row.id, created: true };
  }

  async get(id: number): Promise<JobRow | undefined> {
    return this.rows.find((r) => r.id === id);
  }

  async wait(id: number): Promise<JobRow | undefined> {
    await this.running.get(id)?.done;
    return this.get(id);
  }

  async cancel(id: number): Promise<boolean> {
    const run = this.running.get(id);
    run?.controller.abort(new JobCancelledError('cancelled'));
    return run !== undefined;
  }
}
