// The evidence of one ramp step, summed across the fleet. Heartbeats report counts of their last
// window; the step's gates need the whole step's sample (a small step may see one call a second,
// and a sample of minSample calls takes many windows). Each heartbeat adds its window here; the
// ramp tick reads the sum for the step the breaker is on. Keyed by (breaker, epoch, step, stepSince),
// so a new step starts from nothing; and a window counts only if it ran wholly under the step
// (core `countsTowardStep` on the instance's previous heartbeat, kept here per breaker and instance).
import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { StepEvidenceStore, StepKey } from '@recloser/control';
import type { Redis } from 'ioredis';
import {
  addEvidenceWindow,
  emptyStepWindows,
  MAX_STEP_WINDOWS,
  stepSample,
  type Evidence,
  type RampSample,
  type WindowPercentile,
} from '@recloser/core';
import { ControllerConfig } from '../config/controller-config.js';
import { LuaScript } from '../redis/lua-script.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

// a step's evidence outlives any dwell an operator would configure, then Redis drops it
const KEEP_MS = 30 * 60_000;

/**
 * KEYS[1]: the breaker's hash of previous heartbeat times (instance → ms); KEYS[2..]: step keys.
 * ARGV: keep ms, windows kept per figure, and the windows as one JSON array (one argument: an
 * argument per figure cost the replica more than the script), each [instance, at, step key index,
 * stepSince, has attempts ('1'/'0'), attempts, successes, rate limited, latency, ttft, queue age
 * entries ('' for none), timed out], every figure a string. A window counts when the previous time
 * is strictly after stepSince and it has attempts (core countsTowardStep). Returns 1/0 per window,
 * in order.
 */
const ADD_WINDOWS = new LuaScript(`
local keep = tonumber(ARGV[1])
local maxWindows = tonumber(ARGV[2])
local windows = cjson.decode(ARGV[3])
local figures = { 'latency', 'ttft', 'queueAge' }
local out = {}
local touched = {}
local lists = {}
for _, w in ipairs(windows) do
  local instance = w[1]
  local previous = redis.call('HGET', KEYS[1], instance)
  redis.call('HSET', KEYS[1], instance, w[2])
  local step = KEYS[tonumber(w[3])]
  if previous and tonumber(previous) > tonumber(w[4]) and w[5] == '1' then
    redis.call('HINCRBY', step, 'attempts', w[6])
    redis.call('HINCRBY', step, 'successes', w[7])
    redis.call('HINCRBY', step, 'rateLimited', w[8])
    redis.call('HINCRBY', step, 'timedOut', w[12])
    touched[step] = true
    for f = 1, 3 do
      local value = w[8 + f]
      if value ~= '' then
        local list = step .. ':' .. figures[f]
        redis.call('RPUSH', list, value)
        lists[list] = true
      end
    end
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
redis.call('PEXPIRE', KEYS[1], keep)
for step in pairs(touched) do redis.call('PEXPIRE', step, keep) end
for list in pairs(lists) do
  redis.call('LTRIM', list, -maxWindows, -1)
  redis.call('PEXPIRE', list, keep)
end
return out
`);

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
 * or while a write runs) are written together; the control plane does not wait for them (a crash
 * may lose the windows of the batch being written, a few milliseconds' worth). A sample waits only
 * for windows accepted before it: under steady heartbeats, waiting until nothing is pending could
 * hold the ramp tick back indefinitely. One round trip per batch whatever its size: a script per breaker
 * (ADD_WINDOWS) swaps each instance's previous heartbeat time and adds the windows that count, so a
 * RAMPING heartbeat costs the replica a share of one command, not two round trips and about ten
 * commands of its own. Windows of one instance keep their order within a batch.
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

  /**
   * One script per breaker in the batch (its keys together; several breakers' run back to back): a
   * round trip per batch. Each window's contribution is core's (addEvidenceWindow on an empty step);
   * the script swaps the instance's previous heartbeat time and applies the contribution when core
   * countsTowardStep would (the one comparison it restates; the batch property test pins it).
   */
  private async write(batch: PendingWindow[]): Promise<boolean[]> {
    const byBreaker = new Map<string, number[]>();
    batch.forEach((w, i) => {
      const list = byBreaker.get(w.key.breakerId);
      if (list) list.push(i);
      else byBreaker.set(w.key.breakerId, [i]);
    });
    const counted = batch.map(() => false);
    await Promise.all(
      [...byBreaker].map(async ([breakerId, indices]) => {
        const stepKeys: string[] = [];
        const windows: string[][] = [];
        for (const i of indices) {
          const w = batch[i]!;
          const stepKey = this.key(w.key);
          let k = stepKeys.indexOf(stepKey);
          if (k < 0) k = stepKeys.push(stepKey) - 1;
          const delta = emptyStepWindows();
          addEvidenceWindow(delta, w.evidence);
          windows.push([
            w.instanceId,
            String(w.at),
            String(k + 2), // KEYS[1] is the breaker's hash of previous times
            String(w.key.stepSince),
            w.evidence.attempts > 0 ? '1' : '0',
            String(delta.attempts),
            String(delta.successes),
            String(delta.rateLimited),
            entry(delta.latency),
            entry(delta.ttft),
            entry(delta.queueAge),
            String(delta.timedOut),
          ]);
        }
        const args = [KEEP_MS, MAX_STEP_WINDOWS, JSON.stringify(windows)];
        const reply = (await ADD_WINDOWS.run(
          this.redis,
          [this.lastKey(breakerId), ...stepKeys],
          args,
        )) as number[];
        indices.forEach((i, j) => (counted[i] = reply[j] === 1));
      }),
    );
    return counted;
  }

  private lastKey(breakerId: string): string {
    return `${this.prefix}last:${breakerId}`;
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
    const sample = stepSample({
      attempts: Number(counts.attempts ?? 0),
      successes: Number(counts.successes ?? 0),
      rateLimited: Number(counts.rateLimited ?? 0),
      timedOut: Number(counts.timedOut ?? 0),
      latency: parse(latency),
      ttft: parse(ttft),
      queueAge: parse(queueAge),
    });
    if (counts.attempts === undefined || counts.timedOut !== undefined) return sample;
    // counts written before timeouts were counted: leave them uncounted (RampSample.timedOut absent),
    // so no shedding is learned from them (ramp/Shedding.ts)
    const { timedOut: _uncounted, ...uncounted } = sample;
    return uncounted;
  }
}

/** A figure's window as its list keeps it ("value:weight"), '' when the window has none. */
function entry(windows: readonly WindowPercentile[]): string {
  const w = windows[0];
  return w ? `${w.value}:${w.weight}` : '';
}

function parse(entries: string[]): WindowPercentile[] {
  return entries.map((s) => {
    const [value, weight] = s.split(':');
    return { value: Number(value), weight: Number(weight) };
  });
}
