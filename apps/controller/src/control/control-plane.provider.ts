// The control plane the controller runs: libs/control's ControlPlane over the Postgres and Redis
// adapters. Every fleet endpoint, job and operator action goes through this one object.
import { Logger, type Provider } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import { mathRng, type Clock } from '@recloser/core';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { OutboxService } from '../outbox/outbox.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { ProbeLeaseStore } from '../probes/probe-lease.store.js';
import { AllowanceDivisionCache } from '../ramp/allowance-division.cache.js';
import { RampEvidenceStore } from '../ramp/ramp-evidence.store.js';
import { RedisChangeFeed } from './change-feed.js';
import { CONTROL_CLOCK } from './clock.js';
import { RedisWatchStore } from './watch.store.js';
import { RegionShiftsStore } from './region-shifts.store.js';

export const controlPlaneProvider: Provider = {
  provide: ControlPlane,
  inject: [
    VerdictsRepository,
    BreakerStateService,
    FleetGroupsService,
    PoolsService,
    ProbeLeaseStore,
    RampEvidenceStore,
    AllowanceDivisionCache,
    RedisWatchStore,
    OutboxService,
    RedisChangeFeed,
    CONTROL_CLOCK,
    ControllerConfig,
    RegionShiftsStore,
  ],
  useFactory: (
    presence: VerdictsRepository,
    breakers: BreakerStateService,
    groups: FleetGroupsService,
    pools: PoolsService,
    leases: ProbeLeaseStore,
    evidence: RampEvidenceStore,
    divisions: AllowanceDivisionCache,
    watches: RedisWatchStore,
    events: OutboxService,
    changes: RedisChangeFeed,
    clock: Clock,
    config: ControllerConfig,
    shifts: RegionShiftsStore,
  ) => {
    const logger = new Logger(ControlPlane.name);
    return new ControlPlane(
      {
        presence,
        breakers,
        groups,
        pools,
        leases,
        evidence,
        divisions,
        watches,
        events,
        changes,
        clock,
        rng: mathRng,
        shifts,
      },
      {
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        heartbeatTtlMs: config.heartbeatTtlMs,
        isolationAfterMs: config.isolationAfterMs,
        maxBreakersPerGroup: config.maxBreakersPerGroup,
        maxInstancesPerGroup: config.maxInstancesPerGroup,
        quorumNearFraction: config.quorumNearFraction,
        breakerViewMs: config.breakerViewMs,
      },
      { warn: (message) => logger.warn(message) },
    );
  },
};
