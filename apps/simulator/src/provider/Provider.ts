// The provider being recovered: a capacity pool (requests/s and concurrency) shared by the regions
// named in `regions`, or one pool per region. Requests beyond the free concurrency wait in a FIFO
// queue; a full queue answers 503, a burst beyond the rate limit answers 429 with Retry-After, and
// latency grows with utilisation. An outage switch answers every call with 503; after an outage
// the provider can come back at a fraction of its capacity.
//
// Two models (`model`): 'simple' never collapses (rejections cost nothing, service time is fixed,
// recovery is instant); 'collapse' behaves like providers seen in metastable failures (Bronson et
// al., HotOS'21; Huang et al., OSDI'22): every arrival and every rejection costs slot time, callers
// time out before the provider does and the calls they abandoned are still served (wasted work),
// service slows as the queue fills beyond QUEUE_KNEE, and the provider comes back from an outage cold,
// warming up only while its offered load stays below `lowWater` of what it serves now, at a speed
// set by its goodput; overloaded (shedding or wasting a share of its arrivals) it loses health down
// to `minHealth` and stays there until the load falls.
import type { Simulation } from '../engine/Simulation.js';

export type ProviderModel = 'simple' | 'collapse';
export const PROVIDER_MODELS: readonly ProviderModel[] = ['simple', 'collapse'];

export interface CollapseOptions {
  /** callers give up after this (and retry); the provider keeps the call and serves it anyway */
  clientTimeoutMs: number;
  /** slot time every arrival costs (accepting the connection, parsing, auth) */
  connectCostMs: number;
  /** slot time every rejection (429, 503) costs on top */
  rejectCostMs: number;
  /** service time grows by this × the queue's fill beyond QUEUE_KNEE (0..1): contention, GC, cache misses */
  queueSlowdown: number;
  /** health (share of its slots it can use) right after an outage ends */
  coldHealth: number;
  /** the lowest health overload drives it to */
  minHealth: number;
  /** health regained per second at full goodput while not overloaded */
  warmPerSec: number;
  /** health lost per second while overloaded: more than `overloadShare` of its arrivals rejected or wasted (smoothed) */
  decayPerSec: number;
  overloadShare: number;
  /** it only warms up while the offered load is below this share of what it serves now */
  lowWater: number;
}

/** The queue's fill beyond which service slows (collapse model): a busy provider queues, an overloaded one thrashes. */
export const QUEUE_KNEE = 0.8;

export const DEFAULT_COLLAPSE: CollapseOptions = {
  clientTimeoutMs: 1500,
  connectCostMs: 2,
  rejectCostMs: 15,
  queueSlowdown: 1,
  coldHealth: 0.5,
  minHealth: 0.25,
  warmPerSec: 0.1,
  decayPerSec: 0.1,
  overloadShare: 0.1,
  lowWater: 0.9,
};

export interface ProviderOptions {
  /** requests/s the provider serves at full capacity (per pool) */
  ratePerSec: number;
  /** calls served at once (per pool); service time = concurrency / ratePerSec */
  concurrency: number;
  /** calls that may wait for a free slot (per pool), beyond which it answers 503 */
  maxQueue: number;
  /** a queued call older than this is answered 504 */
  queueTimeoutMs: number;
  /** arrivals in one second beyond ratePerSec · rateLimitFactor are answered 429 */
  rateLimitFactor: number;
  /** how fast an outage answers (the provider's front door still responds) */
  outageLatencyMs: number;
  /** 'global': one pool every region shares; 'regional': one pool per region */
  pools: 'global' | 'regional';
  /** 'simple' (default) or 'collapse' (see the head of this file) */
  model?: ProviderModel;
  /** the collapse model's parameters; DEFAULT_COLLAPSE where absent */
  collapse?: Partial<CollapseOptions>;
}

export const DEFAULT_PROVIDER: ProviderOptions = {
  ratePerSec: 600,
  concurrency: 120,
  maxQueue: 300,
  queueTimeoutMs: 2000,
  rateLimitFactor: 2,
  outageLatencyMs: 30,
  pools: 'global',
};

/** How long a call holds its slot on a provider with these options (before the collapse model's stretch). */
export function serviceTimeMs(options: Pick<ProviderOptions, 'concurrency' | 'ratePerSec'>): number {
  return (options.concurrency / options.ratePerSec) * 1000;
}

/**
 * Calls a provider with these options holds in flight, as its callers count them, while it serves
 * `fraction` of its capacity flat out: Little's law, that rate × the latency a caller sees at full
 * utilisation (twice the service time, see Provider.serve). Its slot count is only what it serves
 * at once; the calls waiting behind those slots are in flight too, so a pool limited to the slots
 * cannot reach the rate. This is what a pool's `concurrency` for this provider should say.
 */
export function sustainedInFlight(options: ProviderOptions, fraction: number, regionCount: number): number {
  const pools = options.pools === 'global' ? 1 : regionCount;
  const slots = Math.max(1, Math.round(options.concurrency * fraction));
  const serviceMs = serviceTimeMs(options);
  const ratePerSec = (slots / serviceMs) * 1000;
  const loadedLatencyMs = 2 * serviceMs;
  return Math.ceil(((ratePerSec * loadedLatencyMs) / 1000) * pools - 1e-9);
}

export interface ProviderAnswer {
  status: number;
  latencyMs: number;
  retryAfterMs?: number;
}

export type AnswerCallback = (answer: ProviderAnswer) => void;

interface Waiting {
  region: string;
  enqueuedAt: number;
  done: AnswerCallback | null;
  /** the caller gave up (collapse model): still queued, served as wasted work */
  abandoned: boolean;
  /** left the queue (served, dropped or timed out) */
  taken: boolean;
}

class Pool {
  busy = 0;
  /** slot-ms spent on arrivals and rejections in the current second (collapse model) */
  overheadMs = 0;
  /** that overhead in the last whole second: what stretches service times now */
  lastOverheadMs = 0;
  queue: Waiting[] = [];
  head = 0;
  windowSecond = -1;
  arrivalsThisSecond = 0;

  queued(): number {
    return this.queue.length - this.head;
  }
}

export class Provider {
  private readonly pools = new Map<string, Pool>();
  private outage = false;
  /** regions whose network path to the provider is down, with how long a call takes to fail */
  private readonly faultedRegions = new Map<string, number>();
  private capacityFraction = 1;
  private readonly queuedByRegion = new Map<string, number>();
  /** the deepest queue each region has seen since the last takeMaxQueueDepths() */
  private maxQueuedByRegion = new Map<string, number>();
  private readonly runMaxByRegion = new Map<string, number>();
  private readonly collapse: CollapseOptions | null;
  /** share of its slots the provider can use (collapse model; always 1 in the simple model) */
  private health = 1;
  /** the share of arrivals rejected or wasted, smoothed over the last seconds (collapse model) */
  private overload = 0;
  /** this second's arrivals, rejections, answers delivered and calls served for nobody */
  private second = { arrivals: 0, rejected: 0, good: 0, wasted: 0 };
  /** wasted calls (served after their caller gave up) over the run */
  wastedCalls = 0;

  constructor(
    private readonly sim: Simulation,
    readonly options: ProviderOptions,
  ) {
    this.collapse = options.model === 'collapse' ? { ...DEFAULT_COLLAPSE, ...options.collapse } : null;
  }

  model(): ProviderModel {
    return this.collapse ? 'collapse' : 'simple';
  }

  isHealthy(): boolean {
    return !this.outage && this.capacityFraction >= 1;
  }

  inOutage(): boolean {
    return this.outage;
  }

  /**
   * Requests/s the provider serves at `fraction` of its capacity, summed over the pools serving
   * `regionCount` regions: its slots at that fraction over the service time.
   */
  ratePerSecAt(fraction: number, regionCount: number): number {
    const pools = this.options.pools === 'global' ? 1 : regionCount;
    const slots = Math.max(1, Math.round(this.options.concurrency * fraction));
    return (slots / this.serviceMs()) * 1000 * pools;
  }

  /** Requests/s the provider can serve now (its health included, not its overheads). */
  servableRatePerSec(regionCount: number): number {
    return this.outage ? 0 : this.ratePerSecAt(this.capacityFraction * this.health, regionCount);
  }

  /** Share of its slots it can use now: 1 in the simple model. */
  currentHealth(): number {
    return this.health;
  }

  setOutage(on: boolean): void {
    this.outage = on;
    if (on) for (const pool of this.pools.values()) this.failQueued(pool, 503);
    // the collapse model comes back cold: caches, connection pools and autoscaling start over
    if (!on && this.collapse) this.health = Math.min(this.health, this.collapse.coldHealth);
  }

  /**
   * The end of a simulated second (the runner calls it once a second). Collapse model: overloaded
   * (more than `overloadShare` of its arrivals rejected or served for nobody) it loses health; with
   * its load below `lowWater` of what it serves it regains health at a pace set by its goodput
   * (answers its callers still wanted over all its work); in between it holds. The simple model only
   * resets its counters.
   */
  endSecond(regionCount: number): void {
    const c = this.collapse;
    const { arrivals, rejected, good, wasted } = this.second;
    this.second = { arrivals: 0, rejected: 0, good: 0, wasted: 0 };
    for (const pool of this.pools.values()) {
      pool.lastOverheadMs = pool.overheadMs;
      pool.overheadMs = 0;
    }
    if (!c || this.outage) return;
    const serves = this.servableRatePerSec(regionCount);
    // overload is judged on a smoothed share (half-life one second): one bursty second is not metastability
    const share = arrivals > 0 ? (rejected + wasted) / arrivals : 0;
    this.overload = (this.overload + share) / 2;
    if (this.overload > c.overloadShare) this.health = Math.max(c.minHealth, this.health - c.decayPerSec);
    else if (arrivals <= c.lowWater * serves) {
      const work = good + wasted + rejected;
      const goodput = work > 0 ? good / work : 1;
      this.health = Math.min(1, this.health + c.warmPerSec * goodput);
    }
  }

  /** 1 = full capacity; 0.1 = the provider came back serving 10 %. */
  setCapacityFraction(fraction: number): void {
    this.capacityFraction = fraction;
  }

  /**
   * A region's network path fails (S4, S8): calls to that region's endpoint never reach the
   * provider and fail as a connection timeout after `latencyMs`; other regions are untouched.
   */
  setRegionFault(region: string, on: boolean, latencyMs = 1000): void {
    if (on) this.faultedRegions.set(region, latencyMs);
    else this.faultedRegions.delete(region);
  }

  call(region: string, done: AnswerCallback): void {
    const now = this.sim.now();
    const faultMs = this.faultedRegions.get(region);
    if (faultMs !== undefined) {
      this.answer(done, { status: 0, latencyMs: faultMs });
      return;
    }
    if (this.outage) {
      this.answer(done, { status: 503, latencyMs: this.options.outageLatencyMs });
      return;
    }
    const pool = this.pool(region);
    this.second.arrivals += 1;
    if (this.collapse) pool.overheadMs += this.collapse.connectCostMs;
    const second = Math.floor(now / 1000);
    if (second !== pool.windowSecond) {
      pool.windowSecond = second;
      pool.arrivalsThisSecond = 0;
    }
    pool.arrivalsThisSecond += 1;
    const rate = this.options.ratePerSec * this.capacityFraction;
    if (pool.arrivalsThisSecond > rate * this.options.rateLimitFactor) {
      const retryAfterMs = (second + 1) * 1000 - now;
      this.reject(pool);
      this.answer(done, { status: 429, latencyMs: 5, retryAfterMs: Math.max(1000, retryAfterMs) });
      return;
    }
    if (pool.busy < this.slots()) {
      this.serve(pool, now, done);
      return;
    }
    if (pool.queued() >= this.maxQueue()) {
      this.reject(pool);
      this.answer(done, { status: 503, latencyMs: 5 });
      return;
    }
    const waiting: Waiting = { region, enqueuedAt: now, done, abandoned: false, taken: false };
    pool.queue.push(waiting);
    this.countQueued(region, 1);
    const c = this.collapse;
    if (c && c.clientTimeoutMs < this.options.queueTimeoutMs) {
      // the caller gives up first; its call stays queued and will be served for nobody
      this.sim.after(c.clientTimeoutMs, () => {
        if (waiting.taken || waiting.done === null) return;
        const cb = waiting.done;
        waiting.done = null;
        waiting.abandoned = true;
        cb({ status: 0, latencyMs: c.clientTimeoutMs });
      });
    }
    this.sim.after(this.options.queueTimeoutMs, () => {
      if (waiting.taken) return;
      waiting.taken = true;
      this.countQueued(region, -1);
      const cb = waiting.done;
      waiting.done = null;
      cb?.({ status: 504, latencyMs: this.options.queueTimeoutMs });
    });
  }

  private reject(pool: Pool): void {
    this.second.rejected += 1;
    if (this.collapse) pool.overheadMs += this.collapse.rejectCostMs;
  }

  private maxQueue(): number {
    return Math.max(1, Math.round(this.options.maxQueue * this.capacityFraction));
  }

  /** Deepest queue per region since the last call (for the per-second series), then resets. */
  takeMaxQueueDepths(): Record<string, number> {
    const out = Object.fromEntries(this.maxQueuedByRegion);
    this.maxQueuedByRegion = new Map(this.queuedByRegion);
    return out;
  }

  /** Deepest queue per region over the whole run. */
  maxQueueDepthByRegion(): Record<string, number> {
    return Object.fromEntries([...this.runMaxByRegion].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  private slots(): number {
    return Math.max(1, Math.round(this.options.concurrency * this.capacityFraction * this.health));
  }

  private serviceMs(): number {
    return serviceTimeMs(this.options);
  }

  /** Serves one call; `done` null = its caller is gone (wasted work, the slot is held all the same). */
  private serve(pool: Pool, enqueuedAt: number, done: AnswerCallback | null): void {
    pool.busy += 1;
    const now = this.sim.now();
    const slots = this.slots();
    let service = this.serviceMs();
    const c = this.collapse;
    if (c) {
      // overheads of the last second and a queue filling past its knee stretch every call's service
      const beyondKnee = Math.max(0, pool.queued() / this.maxQueue() - QUEUE_KNEE) / (1 - QUEUE_KNEE);
      service *= 1 + pool.lastOverheadMs / (slots * 1000) + c.queueSlowdown * beyondKnee;
    }
    // the slot is held for the service time; the caller sees more as the pool fills up
    const utilisation = pool.busy / slots;
    const waited = now - enqueuedAt;
    const latencyMs = waited + service * (1 + utilisation);
    this.sim.after(service, () => {
      pool.busy -= 1;
      this.next(pool);
    });
    if (done === null) {
      this.second.wasted += 1;
      this.wastedCalls += 1;
      return;
    }
    if (c && latencyMs > c.clientTimeoutMs) {
      // the caller gives up while the provider still works on it
      this.second.wasted += 1;
      this.wastedCalls += 1;
      this.sim.after(Math.max(0, c.clientTimeoutMs - waited), () =>
        done({ status: 0, latencyMs: c.clientTimeoutMs }),
      );
      return;
    }
    this.sim.after(latencyMs - waited, () => {
      if (this.outage) done({ status: 503, latencyMs });
      else {
        this.second.good += 1;
        done({ status: 200, latencyMs });
      }
    });
  }

  private next(pool: Pool): void {
    while (pool.queued() > 0 && pool.busy < this.slots()) {
      const waiting = pool.queue[pool.head++]!;
      if (pool.head > 1024 && pool.head * 2 > pool.queue.length) {
        pool.queue = pool.queue.slice(pool.head);
        pool.head = 0;
      }
      if (waiting.taken) continue;
      waiting.taken = true;
      const cb = waiting.done;
      waiting.done = null;
      this.countQueued(waiting.region, -1);
      this.serve(pool, waiting.enqueuedAt, cb);
    }
  }

  private failQueued(pool: Pool, status: number): void {
    while (pool.queued() > 0) {
      const waiting = pool.queue[pool.head++]!;
      if (waiting.taken) continue;
      waiting.taken = true;
      this.countQueued(waiting.region, -1);
      const cb = waiting.done;
      waiting.done = null;
      if (cb === null) continue;
      const latencyMs = this.sim.now() - waiting.enqueuedAt;
      this.sim.after(0, () => cb({ status, latencyMs }));
    }
    pool.queue = [];
    pool.head = 0;
  }

  private pool(region: string): Pool {
    const key = this.options.pools === 'global' ? '*' : region;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool();
      this.pools.set(key, pool);
    }
    return pool;
  }

  private countQueued(region: string, delta: number): void {
    const depth = (this.queuedByRegion.get(region) ?? 0) + delta;
    this.queuedByRegion.set(region, depth);
    if (depth > (this.maxQueuedByRegion.get(region) ?? 0)) this.maxQueuedByRegion.set(region, depth);
    if (depth > (this.runMaxByRegion.get(region) ?? 0)) this.runMaxByRegion.set(region, depth);
  }

  private answer(done: AnswerCallback, answer: ProviderAnswer): void {
    this.sim.after(answer.latencyMs, () => done(answer));
  }
}
