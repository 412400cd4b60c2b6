// The evidence of one ramp step, summed across the fleet. Heartbeats report counts of their last
// window; the step's gates need the whole step's sample (a small step may see one call a second,
// and a sample of minSample calls takes many windows). Each heartbeat adds its window here; the
// ramp tick reads the sum for the step the breaker is on. Keyed by (breaker, epoch, step, stepSince),
// so a new step starts from nothing; and a window counts only if it ran wholly under the step
// (core `countsTowardStep` on the instance's previous heartbeat, kept here per breaker and instance).
import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { StepEvidenceStore, StepKey } from '@recloser/control';
import type { ChainableCommander, Redis } from 'ioredis';
import {
  addEvidenceWindow,
  countsTowardStep,
  emptyStepWindows,
  MAX_STEP_WINDOWS,
  stepSample,
  type Evidence,
  type RampSample,
  type StepWindows,
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
 * or while a write runs) are written together, and each heartbeat's answer waits for its batch (a
 * crash loses no answered window). Per batch, two round trips whatever its size: one MULTI swaps
 * every instance's previous heartbeat time (a hash per breaker), core decides which windows count
 * (countsTowardStep) and sums them per step (addEvidenceWindow), and one MULTI adds each step's
 * sums and pushes its windows — a few commands per breaker and step, not several per window.
 * Windows of one instance keep their order within a batch.
 */
export class RampEvidenceStore implements StepEvidenceStore, BeforeApplicationShutdown {
  private readonly prefix: string;
  private pending: PendingWindow[] = [];
  private writing: Promise<void> | null = null;
  private scheduled: NodeJS.Immediate | null = null;
  /** windows accepted, and windows whose batch ended (written or failed), since this store began */
  private accepted = 0;
  private ended = 0;

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
      this.accepted += 1;
      this.schedule();
    });
  }

  /** Writes whatever was accepted (on shutdown: before the Redis connection closes). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return; // a running write starts the next batch when it ends
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
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
    this.ended += batch.length;
    this.writing = null;
    if (this.pending.length > 0) this.schedule();
  }

  private async write(batch: PendingWindow[]): Promise<boolean[]> {
    const previous = await this.swapPrevious(batch);
    // the batch's counted windows summed per step, by core (as the in-memory store sums them)
    const steps = new Map<string, StepWindows>();
    const counted = batch.map((w, i) => {
      if (!countsTowardStep(previous[i], w.key.stepSince) || !(w.evidence.attempts > 0)) return false;
      const key = this.key(w.key);
      let windows = steps.get(key);
      if (!windows) steps.set(key, (windows = emptyStepWindows()));
      addEvidenceWindow(windows, w.evidence);
      return true;
    });
    if (steps.size > 0) {
      const m = this.redis.multi();
      for (const [key, windows] of steps) this.addTo(m, key, windows);
      await m.exec();
    }
    return counted;
  }

  /**
   * Each window's previous heartbeat time of its instance on its breaker (null: none known), as a
   * SET … GET per window in batch order would give, and the batch's times stored in its place: one
   * hash per breaker (instance → time), read and replaced in one MULTI (three commands per breaker
   * in the batch, not one per window). A hash lives KEEP_MS after its breaker's last write.
   */
  private async swapPrevious(batch: readonly PendingWindow[]): Promise<(number | null)[]> {
    // per breaker, each instance's last time in the batch: what the hash holds after it
    const latest = new Map<string, Map<string, string>>();
    for (const w of batch) {
      let times = latest.get(w.key.breakerId);
      if (!times) latest.set(w.key.breakerId, (times = new Map()));
      times.set(w.instanceId, String(w.at));
    }
    const m = this.redis.multi();
    for (const [breakerId, times] of latest) {
      const key = this.lastKey(breakerId);
      m.hmget(key, ...times.keys());
      m.hset(key, ...[...times].flat());
      m.pexpire(key, KEEP_MS);
    }
    const replies = (await m.exec()) ?? [];
    const known = new Map<string, string | null>();
    [...latest].forEach(([breakerId, times], b) => {
      const [err, values] = replies[3 * b] ?? [new Error('no reply')];
      if (err) throw err;
      [...times.keys()].forEach((instanceId, j) =>
        known.set(`${breakerId}\u0000${instanceId}`, (values as (string | null)[])[j] ?? null),
      );
    });
    return batch.map((w) => {
      const k = `${w.key.breakerId}\u0000${w.instanceId}`;
      const before = known.get(k) ?? null;
      known.set(k, String(w.at)); // the next window of this instance in the batch follows this one
      return before === null ? null : Number(before);
    });
  }

  private lastKey(breakerId: string): string {
    return `${this.prefix}last:${breakerId}`;
  }

  /** One step's sums and windows of a batch: three counters, and each figure's windows in one push. */
  private addTo(m: ChainableCommander, key: string, w: StepWindows): void {
    m.hincrby(key, 'attempts', w.attempts);
    m.hincrby(key, 'successes', w.successes);
    m.hincrby(key, 'rateLimited', w.rateLimited);
    m.pexpire(key, KEEP_MS);
    const lists: [string, WindowPercentile[]][] = [
      ['latency', w.latency],
      ['ttft', w.ttft],
      ['queueAge', w.queueAge],
    ];
    for (const [figure, windows] of lists) {
      if (windows.length === 0) continue;
      const list = `${key}:${figure}`;
      m.rpush(list, ...windows.map((p) => `${p.value}:${p.weight}`));
      m.ltrim(list, -MAX_STEP_WINDOWS, -1);
      m.pexpire(list, KEEP_MS);
    }
  }

  /**
   * Waits until the windows this process accepted before the call are written (a sample read after
   * sees them); windows arriving meanwhile do not hold it up.
   */
  private async settled(): Promise<void> {
    const target = this.accepted;
    while (this.ended < target) {
      if (this.writing) {
        await this.writing;
        // writeBatch counts the batch as ended right after; let it run
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else {
        if (this.scheduled) clearImmediate(this.scheduled);
        this.scheduled = null;
        await this.writeBatch();
      }
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
