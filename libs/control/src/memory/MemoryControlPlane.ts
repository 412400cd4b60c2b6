// The control plane on in-memory ports: what the simulator runs, and the reference side of the
// port contract suite and of the differential test against the real controller.
import { DEFAULT_QUORUM, type Clock, type PoolConfig, type QuorumPolicy, type Rng } from '@recloser/core';
import { ControlPlane, type ControlHooks } from '../ControlPlane.js';
import { Reconciliation } from '../Reconciliation.js';
import type { ControlSettings } from '../ports.js';
import { MemoryBreakers } from './MemoryBreakers.js';
import { MemoryDivisions } from './MemoryDivisions.js';
import { MemoryEventLog } from './MemoryEventLog.js';
import { MemoryGroups } from './MemoryGroups.js';
import { MemoryHistory } from './MemoryHistory.js';
import { MemoryLedger } from './MemoryLedger.js';
import { MemoryLeases } from './MemoryLeases.js';
import { MemoryPools } from './MemoryPools.js';
import { MemoryPresence } from './MemoryPresence.js';
import { MemoryStepEvidence } from './MemoryStepEvidence.js';
import { MemoryWatches } from './MemoryWatches.js';

export interface MemoryControlOptions extends ControlSettings {
  clock: Clock;
  rng: Rng;
  pools?: readonly PoolConfig[];
  /** the quorum policy of groups nobody configured */
  quorum?: QuorumPolicy;
  hooks?: ControlHooks;
}

export interface MemoryControl {
  plane: ControlPlane;
  presence: MemoryPresence;
  breakers: MemoryBreakers;
  groups: MemoryGroups;
  pools: MemoryPools;
  leases: MemoryLeases;
  evidence: MemoryStepEvidence;
  divisions: MemoryDivisions;
  watches: MemoryWatches;
  events: MemoryEventLog;
  /** reconciliation (issue 11) over the memory ledger and the breakers' own history */
  reconciliation: Reconciliation;
  ledger: MemoryLedger;
}

export function createMemoryControlPlane(opts: MemoryControlOptions): MemoryControl {
  const { clock, rng } = opts;
  const settings: ControlSettings = {
    heartbeatIntervalMs: opts.heartbeatIntervalMs,
    heartbeatTtlMs: opts.heartbeatTtlMs,
    isolationAfterMs: opts.isolationAfterMs,
    ...(opts.maxBreakersPerGroup !== undefined ? { maxBreakersPerGroup: opts.maxBreakersPerGroup } : {}),
    ...(opts.maxInstancesPerGroup !== undefined ? { maxInstancesPerGroup: opts.maxInstancesPerGroup } : {}),
    ...(opts.breakerViewMs !== undefined ? { breakerViewMs: opts.breakerViewMs } : {}),
  };
  const events = new MemoryEventLog((err, e) =>
    opts.hooks?.warn?.(`consumer of ${e.type} ${e.id}: ${String(err)}`),
  );
  let breakers: MemoryBreakers | null = null;
  const presence = new MemoryPresence(settings.heartbeatTtlMs, (id) => breakers?.isClosed(id) ?? false);
  breakers = new MemoryBreakers(clock, presence, events);
  const parts = {
    presence,
    breakers,
    groups: new MemoryGroups(opts.quorum ?? DEFAULT_QUORUM),
    pools: new MemoryPools(opts.pools ?? []),
    leases: new MemoryLeases(clock),
    evidence: new MemoryStepEvidence(),
    divisions: new MemoryDivisions(),
    watches: new MemoryWatches(),
    events,
  };
  const plane = new ControlPlane({ ...parts, clock, rng }, settings, opts.hooks ?? {});
  // the control layer's own consumer: tokens of a breaker that left PROBING are released
  events.subscribe((e) => plane.handle(e));
  const ledger = new MemoryLedger(clock);
  const reconciliation = new Reconciliation(
    { ledger, history: new MemoryHistory(breakers, presence), breakers, events, clock },
    settings,
  );
  return { plane, ...parts, reconciliation, ledger };
}
