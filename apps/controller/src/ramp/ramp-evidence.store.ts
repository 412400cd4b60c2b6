// The evidence of one ramp step, summed across the fleet. Heartbeats report counts of their last
// window; the step's gates need the whole step's sample (a small step may see one call a second,
// and a sample of minSample calls takes many windows). Each heartbeat adds its window here; the
// ramp tick reads the sum for the step the breaker is on. Keyed by (breaker, epoch, step, stepSince),
// so a new step starts from nothing; and a window counts only if it ran wholly under the step
// (core `countsTowardStep` on the instance's previous heartbeat, kept here per breaker and instance).
import { Inject, Injectable } from '@nestjs/common';
import type { StepEvidenceStore, StepKey } from '@recloser/control';
import type { ChainableCommander, Redis } from 'ioredis';
import {
  countsTowardStep,
  MAX_STEP_WINDOWS,
  stepSample,
  type Evidence,
  type RampSample,
  type WindowPercentile,
} from '@recloser/core';
import { ControllerConfig } from '../config/controller-config.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

// a step's evidence outlives any dwell an operator would configure, then Redis drops it
const KEEP_MS = 30 * 60_000;

interface PendingWindow {
  key: StepKey;
  instanceId: string;
  at: number;
  evidence: Evidence;
  settle: (counted: boolean) => void;
  fail: (err: unknown) => void;
}

@Injectable()
/**
 * The control layer's StepEvidenceStore on Redis. Windows arriving together (one event-loop turn,
 * or while a write runs) are written together: one pipeline swaps every instance's previous
 * heartbeat time, core decides which windows count, one MULTI adds those. Two round trips per batch
 * instead of two per RAMPING heartbeat; windows of one instance keep their order within a batch.
 */
export class RampEvidenceStore implements StepEvidenceStore {
  private readonly prefix: string;
  private pending: PendingWindow[] = [];
  private writing: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.prefix = `${config.redisPrefix}:ramp:`;
  }

  private key(k: StepKey): string {
    return `${this.prefix}${k.breakerId}:${k.epoch}:${k.step}:${k.stepSince}`;
  }

  /**
   * Adds one heartbeat window of an instance's evidence to the step's sample, if the window ran
   * wholly under the step: the instance's previous heartbeat (swapped for this one's time) must have
   * come after stepSince. Resolves, once its batch is written, with whether it counted.
   */
  add(key: StepKey, heartbeat: { instanceId: string; at: number }, evidence: Evidence): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      this.pending.push({ key, instanceId: heartbeat.instanceId, at: heartbeat.at, evidence, settle, fail });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return; // a running write starts the next batch when it ends
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.writeBatch();
    });
  }

  private async writeBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const run = this.write(batch).then(
      (counted) => batch.forEach((w, i) => w.settle(counted[i]!)),
      (err: unknown) => batch.forEach((w) => w.fail(err)),
    );
    this.writing = run;
    await run;
    this.writing = null;
    if (this.pending.length > 0) this.schedule();
  }

  private async write(batch: PendingWindow[]): Promise<boolean[]> {
    const swap = this.redis.pipeline();
    for (const w of batch)
      swap.set(`${this.prefix}last:${w.key.breakerId}:${w.instanceId}`, String(w.at), 'PX', KEEP_MS, 'GET');
    const previous = (await swap.exec()) ?? [];
    const m = this.redis.multi();
    const counted = batch.map((w, i) => {
      const [err, value] = previous[i] ?? [new Error('no reply')];
      if (err) throw err;
      const before = value === null || value === undefined ? null : Number(value);
      if (!countsTowardStep(before, w.key.stepSince) || !(w.evidence.attempts > 0)) return false;
      this.addTo(m, w.key, w.evidence);
      return true;
    });
    if (counted.some(Boolean)) await m.exec();
    else m.discard();
    return counted;
  }

  private addTo(m: ChainableCommander, k: StepKey, e: Evidence): void {
    const key = this.key(k);
    m.hincrby(key, 'attempts', Math.round(e.attempts));
    m.hincrby(key, 'successes', Math.round(e.successes));
    m.hincrby(key, 'rateLimited', Math.round(e.byClass?.rate_limited ?? 0));
    m.pexpire(key, KEEP_MS);
    const windows: [string, number | null][] = [
      ['latency', e.latencyP95Ms],
      ['ttft', e.ttftP95Ms],
      ['queueAge', e.queueAgeMs],
    ];
    for (const [figure, value] of windows) {
      if (value === null || value === undefined || !Number.isFinite(value)) continue;
      const list = `${key}:${figure}`;
      m.rpush(list, `${value}:${Math.round(e.attempts)}`);
      m.ltrim(list, -MAX_STEP_WINDOWS, -1);
      m.pexpire(list, KEEP_MS);
    }
  }

  /** Waits for windows this process has accepted to be written (a sample read after sees them). */
  private async settled(): Promise<void> {
    while (this.writing || this.pending.length > 0 || this.scheduled) {
      await (this.writing ?? new Promise<void>((resolve) => setImmediate(resolve)));
    }
  }

  /** The step's sample so far (core `stepSample` combines the windows). */
  async sample(k: StepKey): Promise<RampSample> {
    await this.settled();
    const key = this.key(k);
    const [counts, latency, ttft, queueAge] = await Promise.all([
      this.redis.hgetall(key),
      this.redis.lrange(`${key}:latency`, 0, -1),
      this.redis.lrange(`${key}:ttft`, 0, -1),
      this.redis.lrange(`${key}:queueAge`, 0, -1),
    ]);
    return stepSample({
      attempts: Number(counts.attempts ?? 0),
      successes: Number(counts.successes ?? 0),
      rateLimited: Number(counts.rateLimited ?? 0),
      latency: parse(latency),
      ttft: parse(ttft),
      queueAge: parse(queueAge),
    });
  }
}

function parse(entries: string[]): WindowPercentile[] {
  return entries.map((s) => {
    const [value, weight] = s.split(':');
    return { value: Number(value), weight: Number(weight) };
  });
}
