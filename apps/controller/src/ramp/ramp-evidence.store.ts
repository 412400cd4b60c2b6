// The evidence of one ramp step, summed across the fleet. Heartbeats report counts of their last
// window; the step's gates need the whole step's sample (a small step may see one call a second,
// and a sample of minSample calls takes many windows). Each heartbeat adds its window here; the
// ramp tick reads the sum for the step the breaker is on. Keyed by (breaker, epoch, step, stepSince),
// so a new step starts from nothing; and a window counts only if it ran wholly under the step
// (core `countsTowardStep` on the instance's previous heartbeat, kept here per breaker and instance).
import { Inject, Injectable } from '@nestjs/common';
import type { StepEvidenceStore, StepKey } from '@recloser/control';
import type { Redis } from 'ioredis';
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

@Injectable()
/** The control layer's StepEvidenceStore on Redis. */
export class RampEvidenceStore implements StepEvidenceStore {
  private readonly prefix: string;

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
   * wholly under the step: the instance's previous heartbeat (swapped for this one's time in one
   * round trip) must have come after stepSince. Returns whether it counted.
   */
  async add(k: StepKey, heartbeat: { instanceId: string; at: number }, e: Evidence): Promise<boolean> {
    const last = `${this.prefix}last:${k.breakerId}:${heartbeat.instanceId}`;
    const previous = await this.redis.set(last, String(heartbeat.at), 'PX', KEEP_MS, 'GET');
    if (!countsTowardStep(previous === null ? null : Number(previous), k.stepSince)) return false;
    if (!(e.attempts > 0)) return false;
    const key = this.key(k);
    const m = this.redis.multi();
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
    await m.exec();
    return true;
  }

  /** The step's sample so far (core `stepSample` combines the windows). */
  async sample(k: StepKey): Promise<RampSample> {
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
