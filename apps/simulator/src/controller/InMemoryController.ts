// The controller's side of a simulated fleet: the control plane the NestJS controller runs
// (libs/control), on its in-memory ports. This file only adapts it to the SDK's Transport, so the
// real SDK talks to it exactly as it talks HTTP, and runs the controller's periodic jobs on the
// simulated clock. No rule of the controller lives here.
import { TransportError, type ProbeLeaseRequest, type Transport } from '@recloser/client';
import {
  ControlPlane,
  createMemoryControlPlane,
  isControlError,
  type ControlEvent,
  type MemoryControl,
  transitionRecordOf,
} from '@recloser/control';
import {
  initialGlobalState,
  type Clock,
  type GlobalBreakerState,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type PoolConfig,
  type ProbeGrant,
  type ProbeResultRequest,
  type QuorumPolicy,
  type Rng,
  type TransitionRecord,
} from '@recloser/core';

export interface InMemoryControllerOptions {
  group: string;
  dependency: string;
  pool: PoolConfig;
  quorum: QuorumPolicy;
  heartbeatIntervalMs: number;
  heartbeatTtlMs: number;
  /** an instance open this long while the group is closed is reported isolated (bad node) */
  isolationAfterMs: number;
}

export class InMemoryController implements Transport {
  readonly control: MemoryControl;
  private readonly isolatedEver = new Set<string>();
  private readonly initial: GlobalBreakerState;
  private readonly clock: Clock;
  /** every transition, as it happens (the simulator records them; live mode prints them) */
  onTransition: (t: TransitionRecord) => void = () => undefined;

  constructor(
    clock: Clock,
    rng: Rng,
    readonly options: InMemoryControllerOptions,
  ) {
    this.initial = initialGlobalState(clock.now());
    this.clock = clock;
    this.control = createMemoryControlPlane({
      clock,
      rng,
      pools: [{ ...options.pool, dependencies: [options.dependency] }],
      quorum: options.quorum,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      heartbeatTtlMs: options.heartbeatTtlMs,
      isolationAfterMs: options.isolationAfterMs,
    });
    // what the simulator reports comes off the event seam, as an operator's view would
    this.control.events.subscribe((e) => this.observe(e));
  }

  /** The global state of the simulated breaker (CLOSED until the fleet's first heartbeat creates it). */
  get global(): GlobalBreakerState {
    return this.control.breakers.peek(this.breakerId)?.globalState ?? this.initial;
  }

  get transitions(): TransitionRecord[] {
    return this.control.breakers.log;
  }

  /** instances reported isolated at some point of the run, sorted */
  isolated(): string[] {
    return [...this.isolatedEver].sort();
  }

  /** Live leases now (the budget invariant: never more than pool.probe.concurrency). */
  liveLeases(): number {
    return this.control.leases.live();
  }

  /**
   * A new controller process on the same stores (what a restart after a crash finds): its own
   * caches start empty and it resumes from the stored state, as the real controller does.
   */
  restart(rng: Rng): void {
    const { plane, ...stores } = this.control;
    this.control.plane = new ControlPlane({ ...stores, clock: this.clock, rng }, plane.settings);
  }

  /** The controller's periodic jobs, once: lease expiry, quorum, the lifecycle tick, watches. */
  async tick(): Promise<void> {
    const { plane } = this.control;
    await plane.sweepLeases();
    await plane.evaluateAll();
    await plane.tick();
    await plane.watch();
  }

  // ---- Transport: what the SDK calls --------------------------------------------------------

  heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    return transport(this.control.plane.heartbeat(req));
  }

  lease(req: ProbeLeaseRequest): Promise<ProbeGrant> {
    return transport(this.control.plane.leaseProbe(req));
  }

  async probeResult(token: string, body: ProbeResultRequest): Promise<void> {
    await transport(this.control.plane.probeResult(token, body));
  }

  private get breakerId(): string {
    return `${this.options.group}:${this.options.dependency}`;
  }

  private observe(e: ControlEvent): void {
    if (e.type === 'instance.isolated') this.isolatedEver.add(String(e.data.instanceId));
    if (e.type === 'breaker.transition') this.onTransition(transitionRecordOf(e));
  }
}

/** A use case's refusal as the HTTP transport would report it. */
async function transport<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (isControlError(err)) throw new TransportError(err.message, err.status, err.retryAfterMs ?? null);
    throw err;
  }
}
