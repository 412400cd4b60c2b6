// One Recloser per worker process: it owns the breakers of every dependency, and its ticker
// posts ONE heartbeat per tick carrying all of them, so the controller's load follows the number
// of instances, not the request rate.
import {
  controlLost,
  DEFAULT_LOST_AFTER_BEATS,
  DEFAULT_MAX_ISOLATION_MS,
  mathRng,
  systemClock,
  type Clock,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type ProbeGrant,
  type ProbeResultRequest,
  type Rng,
} from '@recloser/core';
import { Breaker, type BreakerFetchInit, type BreakerHost, type BreakerOptions } from './breaker/Breaker.js';
import { EventEmitter, type Event } from './common/Event.js';
import { TransportError } from './errors/Errors.js';
import { SdkTelemetry } from './telemetry/SdkTelemetry.js';
import { HttpTransport } from './transport/HttpTransport.js';
import type { Transport } from './transport/Transport.js';
import { VerdictSigner } from './identity/VerdictSigner.js';

interface CommonOptions {
  instanceId: string;
  group: string;
  region: string;
  /** until the controller says otherwise; default 1000 */
  heartbeatIntervalMs?: number;
  clock?: Clock;
  rng?: Rng;
  /** start the built-in ticker (default true); the simulator passes false and calls tick() itself */
  autoStart?: boolean;
  /** the fetch that `recloser.fetch()` and `breaker.fetch()` call; default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /**
   * Sign locally open verdicts with a key pair made at start and registered under the fleet key
   * (groups with identity optional or required); default false. Closed verdicts are never signed.
   */
  signVerdicts?: boolean;
  /** when the controller counts as lost, and how long an ordinary instance waits before probing itself */
  fallback?: FallbackOptions;
}

export interface FallbackOptions {
  /**
   * heartbeats failing this many intervals in a row mean control is lost (FALLBACK), unless the last
   * plan's validity ran out first; default DEFAULT_LOST_AFTER_BEATS
   */
  lostAfterBeats?: number;
  /**
   * an instance that is not a probe owner and stays cut off this long joins its region's probing at
   * share ÷ region live count (so nothing stays isolated forever); default DEFAULT_MAX_ISOLATION_MS
   */
  maxIsolationMs?: number;
}

export interface CloseOptions {
  /**
   * How long close() lets probe calls in flight finish and their results reach the controller
   * (which releases their tokens) before it aborts what is left; default 0: abort at once.
   */
  graceMs?: number;
}

/** Either the controller's URL and a fleet key (HTTP), or a transport of your own. */
export type RecloserOptions = CommonOptions &
  (
    | { url: string; key: string; transport?: undefined; requestTimeoutMs?: number }
    | { transport: Transport; url?: string; key?: string }
  );

export interface ReachabilityEvent {
  reachable: boolean;
  error?: unknown;
}

export interface TickResult {
  /** the controller answered this round */
  reachable: boolean;
  request: HeartbeatRequest;
  response: HeartbeatResponse | null;
  error?: unknown;
}

export function createRecloser(options: RecloserOptions): Recloser {
  return new Recloser(options);
}

export class Recloser {
  readonly instanceId: string;
  readonly group: string;
  readonly region: string;
  readonly clock: Clock;
  readonly rng: Rng;
  private readonly transport: Transport;
  private readonly breakers = new Map<string, Breaker>();
  private intervalMs: number;
  private lastTickAt: number;
  private isUnreachable = false;
  /** heartbeats failed in a row, and the local time control counted as lost (Infinity while not) */
  private failedBeats = 0;
  private lostAt = Number.POSITIVE_INFINITY;
  private readonly lostAfterBeats: number;
  private round: Promise<TickResult> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private unref = false;
  private closed = false;
  private readonly aborter = new AbortController();
  private readonly pendingPosts = new Set<Promise<void>>();
  private readonly reachability = new EventEmitter<ReachabilityEvent>();
  private readonly host: BreakerHost;
  private readonly telemetry: SdkTelemetry;
  private readonly signer: VerdictSigner | null;

  /** fires when the controller stops or starts answering */
  readonly onFallback: Event<ReachabilityEvent> = this.reachability.event;

  constructor(options: RecloserOptions) {
    this.instanceId = options.instanceId;
    this.group = options.group;
    this.region = options.region;
    this.clock = options.clock ?? systemClock;
    this.rng = options.rng ?? mathRng;
    this.intervalMs = options.heartbeatIntervalMs ?? 1_000;
    this.lastTickAt = this.clock.now();
    this.lostAfterBeats = options.fallback?.lostAfterBeats ?? DEFAULT_LOST_AFTER_BEATS;
    this.host = {
      clock: this.clock,
      rng: this.rng,
      heartbeatIntervalMs: () => this.intervalMs,
      controlLostAt: () => this.lostAt,
      maxIsolationMs: options.fallback?.maxIsolationMs ?? DEFAULT_MAX_ISOLATION_MS,
      postProbeResult: (grant, body) => this.postProbe(grant, body),
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      region: options.region,
    };
    if (options.transport !== undefined) this.transport = options.transport;
    else {
      const http = { url: options.url, key: options.key };
      this.transport = new HttpTransport(
        options.requestTimeoutMs === undefined ? http : { ...http, timeoutMs: options.requestTimeoutMs },
      );
    }
    this.telemetry = new SdkTelemetry({
      instanceId: this.instanceId,
      group: this.group,
      isReachable: () => this.reachable,
      breakersNow: () => this.breakers.values(),
    });
    this.signer = options.signVerdicts
      ? new VerdictSigner(this.instanceId, this.group, this.transport)
      : null;
    if (options.autoStart ?? true) this.start();
  }

  /** The breaker for a dependency; the same one on every call with the same name. */
  breaker(dependency: string, options: BreakerOptions = {}): Breaker {
    let breaker = this.breakers.get(dependency);
    if (breaker === undefined) {
      breaker = new Breaker(dependency, options, this.host);
      this.breakers.set(dependency, breaker);
      this.telemetry.watch(breaker);
    }
    return breaker;
  }

  /**
   * fetch() through the dependency's breaker (see Breaker.fetch): refused with a BreakerOpenError,
   * without touching the network, when the breaker does not admit the call.
   */
  fetch(dependency: string, input: string | URL | Request, init?: BreakerFetchInit): Promise<Response> {
    return this.breaker(dependency).fetch(input, init);
  }

  /** The breakers made so far, by dependency. */
  get dependencies(): string[] {
    return [...this.breakers.keys()];
  }

  get reachable(): boolean {
    return !this.isUnreachable;
  }

  get heartbeatIntervalMs(): number {
    return this.intervalMs;
  }

  /**
   * One round: close every breaker's tick, post one heartbeat with all of them, apply the plans.
   * Concurrent calls share the round in progress. Never rejects: an unreachable controller puts
   * the breakers in fallback.
   */
  tick(): Promise<TickResult> {
    if (this.round === null) {
      this.round = this.telemetry
        .round(() => this.runRound())
        .finally(() => {
          this.round = null;
        });
    }
    return this.round;
  }

  /** Starts the built-in ticker (the first beat is jittered so a fleet started together spreads out). */
  start(): void {
    if (this.timer !== null || this.closed) return;
    this.schedule(this.rng.next() * this.intervalMs);
  }

  /**
   * Lets the process exit while the ticker is running. Risky: a worker that exits this way stops
   * heartbeating silently and drops out of the controller's view after the TTL.
   */
  dangerouslyUnref(): void {
    this.unref = true;
    this.timer?.unref?.();
  }

  /** Waits for probe results still being posted. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pendingPosts]);
  }

  /**
   * Stops the ticker (no heartbeat leaves after this), lets probe calls in flight finish and post
   * their results for up to `graceMs`, then aborts requests in flight and waits for them to settle.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const drained = Promise.all([...this.breakers.values()].map((b) => b.probeSettled())).then(() =>
        this.flush(),
      );
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([drained, late]);
      clearTimeout(timer);
    }
    this.aborter.abort();
    await Promise.allSettled([this.round, ...this.pendingPosts]);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // keep beating even if a listener threw during the round
      const next = () => this.schedule(this.intervalMs);
      void this.tick().then(next, next);
    }, delayMs);
    if (this.unref) this.timer.unref?.();
  }

  private async runRound(): Promise<TickResult> {
    const now = this.clock.now();
    const elapsed = now - this.lastTickAt;
    this.lastTickAt = now;
    const request: HeartbeatRequest = {
      instanceId: this.instanceId,
      group: this.group,
      region: this.region,
      breakers: [...this.breakers.values()].map((b) => b.closeTick(elapsed)),
    };
    this.telemetry.tickClosed(request.breakers, this.breakers.values());
    if (this.signer) await this.signer.signOpen(request.breakers, this.aborter.signal);
    const sentAt = this.clock.now();
    let response: HeartbeatResponse;
    try {
      response = await this.transport.heartbeat(request, this.aborter.signal);
    } catch (error) {
      // refused for a signed verdict's epoch: the next heartbeat signs the epoch the refusal names
      if (this.signer && error instanceof TransportError && error.status === 409)
        this.signer.refused(error.message, request.breakers);
      // close() aborted the request: that is not the controller going away
      if (!this.closed) this.setReachable(false, error);
      return { reachable: false, request, response: null, error };
    }
    if (typeof response !== 'object' || response === null || !Array.isArray(response.breakers)) {
      const error = new TransportError(
        'the controller answered the heartbeat without a breakers array',
        null,
      );
      this.setReachable(false, error);
      return { reachable: false, request, response: null, error };
    }
    for (const plan of response.breakers) {
      this.breakers.get(plan.dependency)?.applyPlan(plan, sentAt, response.leaseTtlMs);
    }
    this.signer?.learnEpochs(response.breakers);
    if (response.heartbeatIntervalMs > 0) this.intervalMs = response.heartbeatIntervalMs;
    this.setReachable(true);
    return { reachable: true, request, response };
  }

  private setReachable(reachable: boolean, error?: unknown): void {
    const now = this.clock.now();
    this.failedBeats = reachable ? 0 : this.failedBeats + 1;
    if (reachable) this.lostAt = Number.POSITIVE_INFINITY;
    else if (
      this.lostAt === Number.POSITIVE_INFINITY &&
      controlLost({
        failedBeats: this.failedBeats,
        lostAfterBeats: this.lostAfterBeats,
        now,
        planValidUntil: Number.POSITIVE_INFINITY,
      })
    )
      this.lostAt = now;
    const changed = this.isUnreachable === reachable;
    this.isUnreachable = !reachable;
    if (!changed) return;
    if (!reachable) this.telemetry.fellBack();
    for (const breaker of this.breakers.values()) breaker.refreshState();
    this.reachability.fire(error === undefined ? { reachable } : { reachable, error });
  }

  private postProbe(grant: ProbeGrant, body: ProbeResultRequest): Promise<void> {
    const post = this.transport.probeResult(grant.token, body, this.aborter.signal);
    this.pendingPosts.add(post);
    const forget = () => void this.pendingPosts.delete(post);
    post.then(forget, forget);
    return post;
  }
}
