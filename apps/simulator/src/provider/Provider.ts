// The provider being recovered: a capacity pool (requests/s and concurrency) shared by the regions
// named in `regions`, or one pool per region. Requests beyond the free concurrency wait in a FIFO
// queue; a full queue answers 503, a burst beyond the rate limit answers 429 with Retry-After, and
// latency grows with utilisation. An outage switch answers every call with 503; after an outage
// the provider can come back at a fraction of its capacity.
import type { Simulation } from '../engine/Simulation.js';

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
  const serviceMs = (options.concurrency / options.ratePerSec) * 1000;
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
}

class Pool {
  busy = 0;
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
  private capacityFraction = 1;
  private readonly queuedByRegion = new Map<string, number>();
  /** the deepest queue each region has seen since the last takeMaxQueueDepths() */
  private maxQueuedByRegion = new Map<string, number>();
  private readonly runMaxByRegion = new Map<string, number>();

  constructor(
    private readonly sim: Simulation,
    readonly options: ProviderOptions,
  ) {}

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

  /** Requests/s the provider can serve now. */
  servableRatePerSec(regionCount: number): number {
    return this.outage ? 0 : this.ratePerSecAt(this.capacityFraction, regionCount);
  }

  setOutage(on: boolean): void {
    this.outage = on;
    if (on) for (const pool of this.pools.values()) this.failQueued(pool, 503);
  }

  /** 1 = full capacity; 0.1 = the provider came back serving 10 %. */
  setCapacityFraction(fraction: number): void {
    this.capacityFraction = fraction;
  }

  call(region: string, done: AnswerCallback): void {
    const now = this.sim.now();
    if (this.outage) {
      this.answer(done, { status: 503, latencyMs: this.options.outageLatencyMs });
      return;
    }
    const pool = this.pool(region);
    const second = Math.floor(now / 1000);
    if (second !== pool.windowSecond) {
      pool.windowSecond = second;
      pool.arrivalsThisSecond = 0;
    }
    pool.arrivalsThisSecond += 1;
    const rate = this.options.ratePerSec * this.capacityFraction;
    if (pool.arrivalsThisSecond > rate * this.options.rateLimitFactor) {
      const retryAfterMs = (second + 1) * 1000 - now;
      this.answer(done, { status: 429, latencyMs: 5, retryAfterMs: Math.max(1000, retryAfterMs) });
      return;
    }
    if (pool.busy < this.slots()) {
      this.serve(pool, now, done);
      return;
    }
    if (pool.queued() >= Math.max(1, Math.round(this.options.maxQueue * this.capacityFraction))) {
      this.answer(done, { status: 503, latencyMs: 5 });
      return;
    }
    const waiting: Waiting = { region, enqueuedAt: now, done };
    pool.queue.push(waiting);
    this.countQueued(region, 1);
    this.sim.after(this.options.queueTimeoutMs, () => {
      if (waiting.done === null) return;
      const cb = waiting.done;
      waiting.done = null;
      this.countQueued(region, -1);
      cb({ status: 504, latencyMs: this.options.queueTimeoutMs });
    });
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
    return Math.max(1, Math.round(this.options.concurrency * this.capacityFraction));
  }

  private serviceMs(): number {
    return (this.options.concurrency / this.options.ratePerSec) * 1000;
  }

  private serve(pool: Pool, enqueuedAt: number, done: AnswerCallback): void {
    pool.busy += 1;
    const now = this.sim.now();
    const service = this.serviceMs();
    // the slot is held for the service time; the caller sees more as the pool fills up
    const utilisation = pool.busy / this.slots();
    const latencyMs = now - enqueuedAt + service * (1 + utilisation);
    this.sim.after(service, () => {
      pool.busy -= 1;
      this.next(pool);
    });
    this.sim.after(latencyMs - (now - enqueuedAt), () => {
      done(this.outage ? { status: 503, latencyMs } : { status: 200, latencyMs });
    });
  }

  private next(pool: Pool): void {
    while (pool.queued() > 0 && pool.busy < this.slots()) {
      const waiting = pool.queue[pool.head++]!;
      if (pool.head > 1024 && pool.head * 2 > pool.queue.length) {
        pool.queue = pool.queue.slice(pool.head);
        pool.head = 0;
      }
      if (waiting.done === null) continue;
      const cb = waiting.done;
      waiting.done = null;
      this.countQueued(waiting.region, -1);
      this.serve(pool, waiting.enqueuedAt, cb);
    }
  }

  private failQueued(pool: Pool, status: number): void {
    while (pool.queued() > 0) {
      const waiting = pool.queue[pool.head++]!;
      if (waiting.done === null) continue;
      const cb = waiting.done;
      waiting.done = null;
      this.countQueued(waiting.region, -1);
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
