// The REST wire types of docs/api.md, shared by the controller, the SDK and the simulator so all
// three speak exactly one contract. Field names are public: add, never rename or remove.
import type { BreakerHealthSignature } from './region/HealthSignature.js';
import type { RegionalVerdictKind } from './region/RegionalVerdict.js';
import type { InstanceShift } from './region/RegionShift.js';

/** The classified result of one call (see outcome/Outcome.ts for the classification table). */
export type Outcome =
  'success' | 'slow' | 'overload' | 'network' | 'rate_limited' | 'auth' | 'client_error' | 'cancelled';

/** Every outcome, for validation at the edge. */
export const OUTCOMES: readonly Outcome[] = [
  'success',
  'slow',
  'overload',
  'network',
  'rate_limited',
  'auth',
  'client_error',
  'cancelled',
];

/** Outcomes counted per class in a verdict's evidence (success and cancelled are not failures). */
export type EvidenceClass = 'overload' | 'network' | 'rate_limited' | 'auth' | 'client_error' | 'slow';
export const EVIDENCE_CLASSES: readonly EvidenceClass[] = [
  'overload',
  'network',
  'rate_limited',
  'auth',
  'client_error',
  'slow',
];

/** An instance's local state as reported in a heartbeat. */
export type ReportedState = 'closed' | 'open' | 'half_open' | 'paused' | 'fallback';
export const REPORTED_STATES: readonly ReportedState[] = [
  'closed',
  'open',
  'half_open',
  'paused',
  'fallback',
];

/** The controller's global state of a breaker. */
export type GlobalState = 'closed' | 'open' | 'probing' | 'ramping';

/** Traffic class names are free-form strings; `probe` is reserved for probe calls. */
export type TrafficClass = string;

export interface Evidence {
  attempts: number;
  successes: number;
  byClass: Record<EvidenceClass, number>;
  latencyP95Ms: number | null;
  ttftP95Ms: number | null;
  queueAgeMs: number | null;
}

export interface BreakerVerdict {
  dependency: string;
  state: ReportedState;
  since?: string;
  evidence: Evidence;
  /** requests/s wanted per traffic class */
  demand?: Record<TrafficClass, number>;
  /** this verdict signed by the instance (a DSSE envelope of receipts' VerdictStatement) */
  envelope?: { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
  /** what the instance did in FALLBACK, sent on the heartbeats after control returned (fallback/FallbackReport.ts) */
  fallback?: FallbackReport;
  /**
   * requests/s this instance moved to each other region over its last window (breaker.route under a
   * shift plan; InputRules routedRatesProblem bounds it). Absent: it moved nothing.
   */
  routed?: Record<string, number>;
}

/** An instance's account of a spell in FALLBACK (the controller unreachable), per breaker. */
export interface FallbackReport {
  /** how long the spell lasted, ms of the instance's own clock */
  durationMs: number;
  /** calls it made during the spell (any admission) */
  attempts: number;
  /** fallback probes among them (a probe owner's, or a late join after the maximum isolation) */
  probes: number;
  /** fallback probes that succeeded */
  probeSuccesses: number;
  /** the allowance it holds now, requests/s per class (none once the last one's validity ran out) */
  holding?: Record<TrafficClass, number>;
}

export interface HeartbeatRequest {
  instanceId: string;
  group: string;
  region: string;
  breakers: BreakerVerdict[];
}

export interface QuorumFiguresWire {
  open: number;
  live: number;
  threshold: number;
}

export interface ClassAllowance {
  ratePerSec: number;
  burst: number;
  concurrency: number;
}

/** An allowance announced ahead: it replaces the plan's `classes` `inMs` after the plan was sent. */
export interface NextAllowance {
  /** ms after the heartbeat was sent (the origin of `validForMs`) */
  inMs: number;
  classes: Record<TrafficClass, ClassAllowance>;
}

export interface ProbeGrant {
  token: string;
  fencing: number;
  validForMs: number;
}

export interface BreakerPlan {
  dependency: string;
  breakerId: string;
  global: {
    state: GlobalState;
    epoch: number;
    /** the ramp's moves in this epoch while RAMPING (0, 1, 2, …; not an index into the pool's steps) */
    step: number | null;
    steps: number;
    /** while RAMPING: the fraction of each admitted class's capacity the ramp admits now; else null */
    level?: number | null;
    quorum: QuorumFiguresWire;
  };
  allowance: {
    validForMs: number;
    classes: Record<TrafficClass, ClassAllowance>;
    /**
     * issue 13, only in the last heartbeat interval before the admission window moves: what this
     * instance holds from then on (`classes` empty = not admitted), so the old window stops and the
     * new one starts at one moment. Absent from older controllers; older SDKs ignore it and hear the
     * new window at their next heartbeat.
     */
    next?: NextAllowance;
  } | null;
  probe: ProbeGrant | null;
  fallback: {
    probeOwner: boolean;
    regionShare: { ratePerSec: number };
    regionLive: number;
    /** how many probe owners the region has (they split its share); absent from older controllers */
    owners?: number;
  } | null;
  /**
   * issue 14, only on the plan of an instance whose region breaker is not CLOSED: which regions may
   * receive this instance's calls and at most how many requests/s each (core planShift, this
   * instance's share)
   */
  shift?: InstanceShift | null;
}

export interface HeartbeatResponse {
  serverTime: string;
  heartbeatIntervalMs: number;
  leaseTtlMs: number;
  breakers: BreakerPlan[];
}

export interface ProbeResultRequest {
  outcome: Exclude<Outcome, 'cancelled'>;
  latencyMs: number;
  ttftMs?: number;
  retryAfterMs?: number;
}

export interface BreakerSummary {
  breakerId: string;
  group: string;
  dependency: string;
  region: string | null;
  pool: string;
  state: GlobalState;
  epoch: number;
  quorum: QuorumFiguresWire;
  step: number | null;
  steps: number;
  /**
   * the health signature (error rate and saturation of the breaker's region and of every live
   * instance reporting on it), on GET /v1/breakers and the admin detail
   */
  health?: BreakerHealthSignature;
  /**
   * the regional verdict of a group's breaker, per region, from live heartbeat rows (per-region
   * quorum; `region_open` when one region reached it while the rest of the pool is healthy)
   */
  regions?: RegionVerdictWire[];
  /**
   * issue 14, on a group's breaker: each region's shift plan as stored (the source region, its
   * phase, who may receive at what rate, and the rate actually moved into each receiver)
   */
  shifts?: ShiftWire[];
}

export interface RegionVerdictWire {
  region: string;
  verdict: RegionalVerdictKind;
  quorum: QuorumFiguresWire;
  errorRate: number;
  saturation: number;
  /** requests/s moved into this region from others now (live heartbeats' routed rates) */
  routedInRate?: number;
  /** requests/s the shift plans in force allow into this region */
  shiftAllowedRate?: number;
}

/** A source region's shift as shown (GET /v1/breakers, the admin detail, the dashboard). */
export interface ShiftWire {
  source: string;
  /** the source region's breaker */
  breakerId: string;
  mode: 'idle' | 'shifting' | 'frozen' | 'reversing';
  reason: string;
  deficitPerSec: number;
  receivers: {
    region: string;
    /** requests/s the plan allows now */
    allowedPerSec: number;
    /** requests/s moved into it now, from every source (live heartbeats' routed rates) */
    movedPerSec: number;
    /** whether the region receives faster than the plans allow (its verdict is shift_throttled) */
    throttled: boolean;
  }[];
  expiresAt: string | null;
  updatedAt: string;
}
