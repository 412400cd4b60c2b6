import { dedupe, OutboxConsumers } from '../../apps/controller/src/outbox/outbox-consumers.js';
import type { ControlEvent } from '@recloser/control';
import { mathRng } from '@recloser/core';
import { BreakerStateService } from '../../apps/controller/src/breakers/breaker-state.service.js';
import { VerdictsRepository } from '../../apps/controller/src/breakers/verdicts.repository.js';
import { CONTROL_CLOCK } from '../../apps/controller/src/control/clock.js';
import { RedisWatchStore } from '../../apps/controller/src/control/watch.store.js';
import { FleetGroupsService } from '../../apps/controller/src/groups/fleet-groups.service.js';
import { OutboxService } from '../../apps/controller/src/outbox/outbox.service.js';
import { PoolsService } from '../../apps/controller/src/pools/pools.service.js';
import { ProbeLeaseStore } from '../../apps/controller/src/probes/probe-lease.store.js';
import { AllowanceDivisionCache } from '../../apps/controller/src/ramp/allowance-division.cache.js';
import { RampEvidenceStore } from '../../apps/controller/src/ramp/ramp-evidence.store.js';
import { bootTestApp } from '../support/test-app.js';
import { CONTRACT_SETTINGS, portContract } from './support/port-contract.js';

portContract('Postgres and Redis (the controller)', async () => {
  const t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(CONTRACT_SETTINGS.heartbeatIntervalMs),
    RECLOSER_HEARTBEAT_TTL_MS: String(CONTRACT_SETTINGS.heartbeatTtlMs),
    RECLOSER_ISOLATION_AFTER_MS: String(CONTRACT_SETTINGS.isolationAfterMs),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Nest's get takes any class
  const get = <T>(type: new (...args: any[]) => T): T => t.app.get(type, { strict: false });
  const seen: ControlEvent[] = [];
  get(OutboxConsumers).register(
    'contract-observer',
    dedupe((e) => {
      seen.push(e);
    }),
  );
  return {
    ports: {
      presence: get(VerdictsRepository),
      breakers: get(BreakerStateService),
      groups: get(FleetGroupsService),
      pools: get(PoolsService),
      leases: get(ProbeLeaseStore),
      evidence: get(RampEvidenceStore),
      divisions: get(AllowanceDivisionCache),
      watches: get(RedisWatchStore),
      events: get(OutboxService),
      clock: t.app.get(CONTROL_CLOCK, { strict: false }),
      rng: mathRng,
    },
    settings: CONTRACT_SETTINGS,
    async putPool(id, body) {
      const res = await t.admin('PUT', `/v1/admin/pools/${id}`, body);
      if (res.status !== 200) throw new Error(`PUT pool: ${res.status} ${res.text}`);
    },
    seen: () => seen,
    close: () => t.close(),
  };
});
