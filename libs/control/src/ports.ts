// What the control layer needs from the world, as interfaces. The NestJS controller implements
// them on Postgres and Redis (apps/controller), the simulator and the contract tests in memory
// (./memory). Every port method is a plain read or write: no policy lives behind a port, so the
// two homes cannot decide differently (the contract suite in test/control runs the same cases
// against both). Times are the controller's clock (ms).
import type {
  BreakerVerdict,
  ClassAllowance,
  Clock,
  Decision,
  Evidence,
  GlobalBreakerState,
  PoolConfig,
  ProbeBudget,
  ProbeRefusalReason,
  QuorumFiguresWire,
  QuorumPolicy,
  QuorumRow,
  RampSample,
  Rng,
  ShiftLogStatement,
  ShiftMode,
  ShiftPlan,
  ShiftState,
  ScopeKind,
  TrafficClass,
  TransitionRecord,
} from '@recloser/core';
import type { ControlEventDraft } from './events.js';

/** Timings the control layer runs on (the controller's validated configuration). */
export interface ControlSettings {
  /** the tick instances are told to use */
  heartbeatIntervalMs: number;
  /** a heartbeat older than this no longer counts as live; also the allowance period and the learning period */
  heartbeatTtlMs: number;
  /** an instance open this long while its group is closed is reported isolated (bad node) */
  isolationAfterMs: number;
  /** breakers a group may have (DEFAULT_MAX_BREAKERS_PER_GROUP when absent): heartbeats may not add more */
  maxBreakersPerGroup?: number;
  /** quorum.near's band below the threshold, as a fraction of it (core QUORUM_NEAR_FRACTION when absent) */
  quorumNearFraction?: number;
  /** instances a group may have (DEFAULT_MAX_INSTANCES_PER_GROUP when absent): new ones beyond are refused */
  maxInstancesPerGroup?: number;
  /** routine heartbeats are answered from the view of a breaker this long at most (BREAKER_VIEW_MS when absent) */
  breakerViewMs?: number;
}

/** A breaker as the control layer reads it. */
export interface BreakerRecord {
  id: string;
  group: string;
  dependency: string;
  /** what the breaker covers: the whole group, or one region (later endpoint, model, credential) */
  scopeKind: ScopeKind;
  /** '' for the whole group; the region's (endpoint's, …) name otherwise */
  scopeValue: string;
  /** the region of a region scope, else null (what the API shows) */
  region: string | null;
  poolId: string;
  globalState: GlobalBreakerState;
  /** the figures shown while not CLOSED: those of the decision that opened it */
  quorum: QuorumFiguresWire;
  formedBy: string[];
}

/** Live instances (heartbeat younger than the TTL) and how many of them are locally open. */
export interface LiveCounts {
  live: number;
  open: number;
}

/** One instance's stored verdict on one breaker. */
export interface VerdictRow extends QuorumRow {
  evidence: Evidence;
  /** requests/s wanted per class (only finite, positive figures) */
  demand: Record<TrafficClass, number>;
  reportedSince: string | null;
  /** requests/s the instance moved to each other region over its last window (absent: none reported) */
  routed?: Record<string, number>;
}

export interface LiveDemand {
  instanceId: string;
  demand: Record<TrafficClass, number>;
}

/** Reads of presence that a locked transition may need (through its transaction). */
export interface PresenceReader {
  /** verdicts of a breaker reported after `since` (exclusive), ordered by instance id */
  rows(breakerId: string, since: number): Promise<VerdictRow[]>;
}

/** Heartbeat rows: who is there and what each instance says about each breaker. */
export interface PresenceStore extends PresenceReader {
  /**
   * One heartbeat's writes, atomically: the instance's presence and its verdict on each breaker.
   * `openSince` follows core `nextOpenSince` (kept while the instance stays open and live); a row's
   * time never moves backwards. Resolves once the writes are durable. `routine` says the heartbeat
   * repeats what this replica last stored for the instance on a CLOSED breaker, nothing locally
   * open: a store may then coalesce it with others and write it a little later (the caller does not
   * wait for it); anything else is written before the promise resolves.
   */
  record(
    heartbeat: { group: string; instanceId: string; region: string },
    verdicts: readonly { breakerId: string; verdict: BreakerVerdict }[],
    now: number,
    routine?: boolean,
  ): Promise<void>;
  /**
   * How many instances of the group are stored (heard from within the retention of silent ones),
   * and whether `instanceId` is one of them.
   */
  groupInstances(group: string, instanceId: string): Promise<{ count: number; known: boolean }>;
  /** whether this instance has a live verdict on this breaker */
  isLive(breakerId: string, instanceId: string, now: number): Promise<boolean>;
  /** the live instances' demand (may be a little stale: a fraction of a heartbeat) */
  liveDemand(breakerId: string, now: number): Promise<LiveDemand[]>;
  /** CLOSED breakers with at least one live, locally open verdict: the only ones a quorum could open */
  closedWithLiveTrouble(now: number): Promise<string[]>;
}

/** A core Decision plus what is recorded beside it. */
export interface BreakerDecision extends Decision {
  /** figures shown for the breaker from now on (e.g. the quorum that opened it) */
  quorum?: QuorumFiguresWire;
  /** instances whose verdicts formed the decision; stored on the breaker and on each transition */
  formedBy?: string[];
  /** extra audit figures merged into each transition record (e.g. which trigger evaluated it) */
  figures?: Record<string, unknown>;
  /** a quorum decision: the live rows it counted and the policy (what its certificate is made of) */
  basis?: { rows: readonly VerdictRow[]; policy: QuorumPolicy };
}

/** What `decide` gets inside a locked transition. */
export interface TransitionScope {
  /** the breaker as locked, before the decision */
  breaker: Readonly<BreakerRecord>;
  /** the controller's clock, read after the lock was taken */
  now: number;
  /** presence reads inside the same transaction */
  presence: PresenceReader;
}

export interface CommittedTransition {
  breaker: BreakerRecord;
  transitions: TransitionRecord[];
}

/**
 * Breakers and their global state. The only writer of the state is `transition`. `C` is what a
 * commit returns: a store may add its own rows (the controller's hash-chained log entries).
 */
export interface BreakerStore<C extends CommittedTransition = CommittedTransition> {
  /**
   * The ids of one heartbeat's breakers (whole-group scope), created CLOSED on first sight. Before
   * creating any, the store calls `admit(existing, adding)` with the group's breaker count; it throws
   * (and nothing is created) when the group may not grow by that much.
   */
  idsFor(
    group: string,
    wanted: readonly { dependency: string; poolId: string }[],
    now: number,
    admit?: (existing: number, adding: number) => void,
  ): Promise<Map<string, string>>;
  get(breakerId: string): Promise<BreakerRecord | null>;
  /** the breakers with their live and open verdict counts (liveness as core `isLive`), in one read */
  withCounts(
    breakerIds: readonly string[],
    now: number,
  ): Promise<{ breaker: BreakerRecord; counts: LiveCounts }[]>;
  getMany(breakerIds: readonly string[]): Promise<BreakerRecord[]>;
  /** the whole-group breaker of (group, dependency) */
  find(group: string, dependency: string): Promise<BreakerRecord | null>;
  /** the breaker scoped to one region of (group, dependency), created CLOSED on first sight */
  regionBreaker(
    group: string,
    dependency: string,
    region: string,
    poolId: string,
    now: number,
  ): Promise<BreakerRecord>;
  /** every region-scoped breaker of (group, dependency), whatever its state */
  regionBreakers(group: string, dependency: string): Promise<BreakerRecord[]>;
  /** every breaker that is not CLOSED (the lifecycle tick's work) */
  active(): Promise<BreakerRecord[]>;
  /** how many groups have a breaker drawing on this pool OPEN or PROBING now: they contend for its probe budget */
  contendingGroups(poolId: string): Promise<number>;
  /**
   * Under the breaker's lock: `decide` applies a core decision to the current state; the next state,
   * its transition records and `events(committed)` are stored in one transaction (the outbox), and
   * the events are published after commit. `decide` returning null, or an unchanged state without
   * transitions, writes nothing. Throws ControlError('not_found') for an unknown breaker.
   */
  transition(
    breakerId: string,
    decide: (state: GlobalBreakerState, scope: TransitionScope) => Promise<BreakerDecision | null>,
    events: (committed: CommittedTransition) => ControlEventDraft[],
  ): Promise<C>;
}

export interface GroupView {
  group: string;
  /** when the controller first heard from the group: its learning period starts then */
  firstSeenAt: number;
  quorum: QuorumPolicy;
}

export interface GroupStore {
  /** the group, recorded as first seen at `now` if never heard from */
  seen(group: string, now: number): Promise<GroupView>;
  get(group: string): Promise<GroupView | null>;
}

export interface PoolResolver {
  /**
   * The pool `group`'s breaker of `dependency` draws on (core poolForGroup): the configured one,
   * unless it is bound to other groups, else the dependency's own pool with the defaults. Without
   * a group: the configured pool, whatever its binding (views).
   */
  resolve(dependency: string, group?: string): Promise<PoolConfig>;
}

export interface LeaseRequest {
  pool: string;
  budget: Pick<ProbeBudget, 'concurrency' | 'ratePerSec' | 'leaseTtlMs'>;
  breakerId: string;
  /** the breaker's group: the unit the pool's fair share is counted in */
  group: string;
  instanceId: string;
  /** the breaker's epoch at the grant: a result of an older epoch is stale */
  epoch: number;
  /** the most live leases the group may hold in the pool (core probeFairShare); absent: the whole budget */
  fairShareCap?: number;
}

export type LeaseOutcome =
  /** a new token, or (held) the live token this instance already holds for this breaker */
  | { kind: 'granted' | 'held'; token: string; fencing: number; expiresAt: number; validForMs: number }
  | { kind: 'refused'; reason: ProbeRefusalReason; retryAfterMs: number }
  /** `held` asked, and the instance holds nothing */
  | { kind: 'none' };

export interface LeaseInfo {
  token: string;
  pool: string;
  breakerId: string;
  instanceId: string;
  fencing: number;
  epoch: number;
  expiresAt: number;
  validForMs: number;
}

/** Probe tokens of a pool, under core `decideProbeGrant`, fenced. */
export interface LeaseStore {
  grant(req: LeaseRequest): Promise<LeaseOutcome>;
  /** only the token this instance already holds for this breaker: never a new grant */
  held(req: LeaseRequest): Promise<LeaseOutcome>;
  check(token: string): Promise<LeaseInfo | null>;
  /** gives a token back; null when it was no longer valid */
  release(token: string): Promise<LeaseInfo | null>;
  /** gives back every live token of a breaker (it left PROBING); returns how many */
  releaseBreaker(pool: string, breakerId: string): Promise<number>;
  /** drops the pool's expired leases, excluding their holders for the epoch; returns how many */
  sweep(pool: string): Promise<number>;
  /** pools that may hold leases (the expiry sweep visits these) */
  pools(): Promise<string[]>;
  /** instances whose lease for this breaker expired unused in this epoch */
  excluded(breakerId: string, epoch: number): Promise<string[]>;
}

/** A ramp step as its evidence is keyed: a new (epoch, step, stepSince) starts from nothing. */
export interface StepKey {
  breakerId: string;
  epoch: number;
  step: number;
  stepSince: number;
}

export interface StepEvidenceStore {
  /**
   * Adds one heartbeat window if it ran wholly under the step (core `countsTowardStep` on the
   * instance's previous heartbeat, which this call records). Returns whether it counted.
   */
  add(key: StepKey, heartbeat: { instanceId: string; at: number }, evidence: Evidence): Promise<boolean>;
  sample(key: StepKey): Promise<RampSample>;
}

/** One allowance period of a ramp step. */
export interface DivisionKey {
  breakerId: string;
  epoch: number;
  step: number;
  /**
   * the allowance period, floor(now / period length); also the first period of the next admission
   * window, asked for ahead of it when a move is announced (core rotationAt): a store keeps that
   * division for its period
   */
  period: number;
}

export type Allowance = Record<TrafficClass, ClassAllowance>;
export type Division = Map<string, Allowance>;

/** One division per allowance period, shared by every heartbeat (and every replica) of the period. */
export interface DivisionStore {
  /** the instance's share; `divide` runs only when the period has no division yet; absent → {} */
  allowanceOf(
    key: DivisionKey,
    instanceId: string,
    periodMs: number,
    divide: () => Promise<Division>,
  ): Promise<Allowance>;
}

/**
 * What was last announced per (breaker, watch), so a condition is announced when it starts and when
 * it ends, not on every evaluation (isolated instances, a quorum near its threshold).
 */
export interface WatchStore {
  /** stores the set; returns who joined and who left it since the last swap */
  swap(
    breakerId: string,
    watch: string,
    members: readonly string[],
  ): Promise<{ joined: string[]; left: string[] }>;
  /** breakers with a non-empty set under some watch (they are evaluated until it empties) */
  watched(): Promise<string[]>;
}

/** Events that are not born in a transition's transaction (published at least once). */
export interface EventSink {
  publish(events: readonly ControlEventDraft[]): Promise<void>;
}

/**
 * Tells the other replicas that a breaker's state changed, so their views read it again (the
 * controller: Redis pub/sub). Absent with one process (the simulator): its own view is kept current.
 */
export interface ChangeFeed {
  announce(breakerId: string): void;
  /** `listener` hears every breaker another replica announces */
  listen(listener: (breakerId: string) => void): void;
}

/**
 * A region breaker's shift as stored (issue 14): what core planShift carries from one step to the
 * next, the latest plan, what it allows into each receiver (core allowedRates), the receivers last
 * judged shift_throttled, and how many phase changes were logged.
 */
export interface ShiftRecord {
  /** the source region's breaker */
  breakerId: string;
  groupBreakerId: string;
  source: string;
  mode: ShiftMode;
  state: ShiftState;
  plan: ShiftPlan;
  allowed: Record<string, number>;
  throttled: string[];
  seq: number;
  updatedAt: number;
}

/** What one shift step stores, announces and logs (in one transaction where the store has them). */
export interface ShiftStepWrite {
  record: ShiftRecord;
  events: ControlEventDraft[];
  /** a phase change's log leaf (its seq is record.seq) */
  leaf: ShiftLogStatement | null;
}

/**
 * The one authoritative shift state per region breaker, whichever replica steps it. `step` runs
 * `next` under the record's lock with the stored record (null before the first) and the other
 * records of the same group breaker, and stores what it returns (null: nothing changes).
 */
export interface ShiftStore {
  step(
    breakerId: string,
    groupBreakerId: string,
    next: (prev: ShiftRecord | null, others: readonly ShiftRecord[]) => ShiftStepWrite | null,
  ): Promise<ShiftRecord | null>;
  /** the shifts of these group breakers */
  ofGroups(groupBreakerIds: readonly string[]): Promise<ShiftRecord[]>;
}

export interface ControlPorts<C extends CommittedTransition = CommittedTransition> {
  presence: PresenceStore;
  breakers: BreakerStore<C>;
  groups: GroupStore;
  pools: PoolResolver;
  leases: LeaseStore;
  evidence: StepEvidenceStore;
  divisions: DivisionStore;
  watches: WatchStore;
  events: EventSink;
  clock: Clock;
  rng: Rng;
  changes?: ChangeFeed;
  /** where shift states live (absent: in this process's memory, MemoryShifts) */
  shifts?: ShiftStore;
}
