import { claimLost, claimReason, firstMissingFrom } from '../../../domain/hls/run-ownership.ts';
import { chooseSegmentSource } from '../../../domain/playback/segment-source.ts';
import type { HlsRunRow } from '../../../repositories/hls-run.repository.ts';
import type { ConversionSlot, ConversionSlots } from '../conversion-slots.ts';
import { type HlsOwnership, rowView } from './hls-ownership.ts';
import type { HlsRuns } from './hls-runs.ts';
import { hasEvery, isRunning, type Presentation } from './presentation.ts';
import type { PresentationRegistry } from './presentation-registry.ts';

export interface HlsClaimsDeps {
  ownership: HlsOwnership;
  runs: HlsRuns;
  presentations: PresentationRegistry;
  slots: ConversionSlots;
  /** A run no player asked anything of for this long is not worth taking over. */
  idleMs: number;
  now: () => number;
  log?: { warn(obj: unknown, msg: string): void };
}

/**
 * The cluster side of this node's HLS runs (docs/cluster.md "HLS across nodes"), on the jobs'
 * timings: every second the owner renews its claims (a claim found taken over stops its run at once),
 * learns that players on other nodes still watch (the idle clock), that a prewarm pins the run, or
 * that a player sought elsewhere (restarted there on the same slot, unless the run gets there soon);
 * a node that converts looks every 500 ms (and at once on a NOTIFY) for runs to claim: asked for by a
 * node that does not convert, or left by a node that died (from the first missing segment on).
 */
export class HlsClaims {
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: () => void = () => undefined;
  private beating: Promise<void> | null = null;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private closed = false;

  constructor(private readonly deps: HlsClaimsDeps) {}

  start(): void {
    const { ownership } = this.deps;
    const every = (ms: number, tick: () => void) => {
      const timer = setInterval(tick, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(ownership.heartbeatMs, () => this.heartbeat());
    // The role is known once the node joined: a node that does not convert finds nothing to claim.
    every(ownership.pollMs, () => this.poll());
    this.unsubscribe = ownership.subscribe((key) => this.heard(key));
  }

  /** Stops looking (the runs themselves stop with HlsRuns.close). */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.unsubscribe();
    await Promise.all([this.beating, this.polling]);
  }

  /** Another node changed a presentation: read its announcements, a seek asked of this owner, claims. */
  private heard(key: string): void {
    if (this.closed) return;
    const { ownership, presentations } = this.deps;
    const heard = key === '' ? [...presentations.all()] : [presentations.get(key)];
    for (const p of heard) {
      if (p === undefined) continue;
      ownership.refresh(p, true).catch(() => undefined);
      if (p.claim !== null) void this.lookAt(p);
    }
    if (ownership.converts()) this.poll();
  }

  private async lookAt(p: Presentation): Promise<void> {
    try {
      const row = await this.deps.ownership.repo.get(p.key);
      if (row !== undefined && p.claim !== null && row.epoch === p.claim.epoch) this.applyRow(p, row);
    } catch (err) {
      this.deps.log?.warn({ err, key: p.key }, 'HLS run row not read');
    }
  }

  private heartbeat(): void {
    if (this.beating !== null || this.closed) return;
    this.beating = this.renew()
      .catch((err: unknown) => this.deps.log?.warn({ err }, 'HLS claims not renewed'))
      .finally(() => {
        this.beating = null;
      });
  }

  /** Renews this node's claims; a claim taken over stops its run; what the row says is applied. */
  private async renew(): Promise<void> {
    const { ownership, presentations, runs } = this.deps;
    // The claims as they are before the renewal: one given back or made again meanwhile is not judged.
    const held: { p: Presentation; claim: NonNullable<Presentation['claim']> }[] = [];
    for (const p of presentations.all()) if (p.claim !== null) held.push({ p, claim: p.claim });
    if (held.length === 0 || !ownership.joined()) return;
    const rows = await ownership.repo.renew(ownership.node().id, this.deps.now() + ownership.leaseMs);
    const byKey = new Map(rows.map((r) => [r.presentation_key, r]));
    for (const { p, claim } of held) {
      if (p.claim !== claim) continue;
      const row = byKey.get(p.key);
      // Taken over: this node was presumed dead (frozen, cut off); its run stops writing at once.
      if (claimLost(row, claim.epoch)) runs.claimLost(p);
      else if (row !== undefined) this.applyRow(p, row);
    }
  }

  /** What the owner learns from its row: players elsewhere, a prewarm's pin, a seek. */
  private applyRow(p: Presentation, row: HlsRunRow): void {
    const claim = p.claim;
    if (claim === null) return;
    p.lastRequest = Math.max(p.lastRequest, row.last_request_at);
    const job = p.job;
    if (job === null || job.ended || job.replaced !== null) return;
    if (row.pinned === 1) job.pinned = true;
    if (row.wanted_seq <= claim.handledSeq) return;
    const index = row.wanted_index;
    let next = Infinity;
    for (const r of p.renditions) next = Math.min(next, job.next.get(r) ?? job.start);
    const choice = chooseSegmentSource({
      stored: hasEvery(p, index),
      index,
      run: { ...job, next: Number.isFinite(next) ? next : job.start },
      startOf: (i) => p.segments[i]?.start,
    });
    // Another player here waits for this run: the seek is looked at again at the next heartbeat.
    if (choice === 'take_turn') return;
    claim.handledSeq = row.wanted_seq;
    if (choice === 'restart' && index >= 0 && index < p.segments.length) {
      this.deps.runs.restart(p, index).catch((err: unknown) => {
        this.deps.log?.warn({ err, key: p.key, index }, 'HLS run not restarted for a seek');
      });
    }
  }

  /** Looks for runs to claim (coalesced: one look at a time, another after it when asked meanwhile). */
  private poll(): void {
    if (this.closed || !this.deps.ownership.converts()) return;
    if (this.polling !== null) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.claimWhatFits()
      .catch((err: unknown) => this.deps.log?.warn({ err }, 'HLS runs not claimed'))
      .finally(() => {
        this.polling = null;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.poll();
        }
      });
  }

  private async claimWhatFits(): Promise<void> {
    const { ownership, presentations, slots } = this.deps;
    if (slots.inUse >= slots.max) return;
    const now = this.deps.now();
    const node = ownership.node();
    for (const row of await ownership.repo.claimable(now, now - this.deps.idleMs)) {
      if (this.closed) return;
      const here = presentations.get(row.presentation_key);
      const owner = ownership.ownerOf(row);
      const reason = claimReason(
        { ...rowView(row), asked: row.asked === 1, lastRequestAt: row.last_request_at },
        now,
        {
          nodeId: node.id,
          host: node.host,
          runsIt: here !== undefined && (isRunning(here) || here.claiming !== null),
          idleMs: this.deps.idleMs,
        },
        owner === undefined ? undefined : { host: owner.host, pid: owner.pid },
        (pid) => ownership.pidAlive(pid),
      );
      if (reason === null) continue;
      const slot = slots.tryTake();
      if (slot === null) return;
      await this.takeOver(row, slot, reason === 'process_gone' ? row.owner_node : null);
    }
  }

  /**
   * Claims a run asked for or left by a dead node and starts it at the first segment missing at or
   * after the one players want (a take-over goes on where the dead run stopped).
   */
  private async takeOver(row: HlsRunRow, slot: ConversionSlot, takeFrom: string | null): Promise<void> {
    const { ownership, presentations, runs } = this.deps;
    let p: Presentation;
    try {
      p = await presentations.of(row.file_id, row.device, row.for_prewarm === 1, row.burn ?? undefined);
    } catch (err) {
      slot.release();
      await this.refuse(row, err instanceof Error ? err.message : String(err), takeFrom);
      return;
    }
    if (p.key !== row.presentation_key) {
      // This node plans the film differently (another ffmpeg build): it cannot make these segments.
      slot.release();
      this.deps.log?.warn(
        { key: row.presentation_key, here: p.key },
        'HLS run not claimed: this node plans the presentation differently',
      );
      return;
    }
    await ownership.refresh(p, true);
    const from = firstMissingFrom(p.segments.length, row.wanted_index, (i) => hasEvery(p, i));
    if (from === null && p.renditions.every((r) => p.inits.has(r))) {
      // Everything is there already: nothing to convert; a claim given back at once settles the ask.
      slot.release();
      if (await ownership.claim(p, row.wanted_index, takeFrom)) {
        const claim = p.claim;
        p.claim = null;
        if (claim !== null) ownership.release(p, claim.epoch, null);
      }
      return;
    }
    await runs.claimAndStart(p, from ?? 0, row.pinned === 1, slot, takeFrom);
  }

  /** A run this node cannot make (the file is missing here…): the ask ends with the reason. */
  private async refuse(row: HlsRunRow, reason: string, takeFrom: string | null): Promise<void> {
    const { ownership } = this.deps;
    const now = this.deps.now();
    const claimed = await ownership.repo.claim(
      {
        key: row.presentation_key,
        fileId: row.file_id,
        device: row.device,
        burn: row.burn,
        forPrewarm: row.for_prewarm === 1,
      },
      ownership.node().id,
      now,
      now + ownership.leaseMs,
      row.wanted_index,
      takeFrom,
    );
    if (claimed !== undefined) await ownership.repo.release(row.presentation_key, claimed.epoch, reason, now);
    this.deps.log?.warn({ key: row.presentation_key, reason }, 'HLS run refused');
  }
}
