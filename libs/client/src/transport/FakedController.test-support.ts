// A faked controller for unit tests (the end-to-end suites use the real one): it records
// heartbeats and probe results and answers with plans the test sets.
import type {
  BreakerPlan,
  ClassAllowance,
  GlobalState,
  HeartbeatRequest,
  HeartbeatResponse,
  ProbeResultRequest,
} from '@recloser/core';
import { TransportError } from '../errors/Errors.js';
import type { ProbeLeaseRequest, Transport } from './Transport.js';

export class FakedController implements Transport {
  heartbeats: HeartbeatRequest[] = [];
  probeResults: { token: string; body: ProbeResultRequest }[] = [];
  plans = new Map<string, BreakerPlan>();
  leaseTtlMs = 5_000;

  setPlan(
    dependency: string,
    state: GlobalState,
    extra: { probeToken?: string; allowance?: Record<string, ClassAllowance> } = {},
  ): void {
    this.plans.set(dependency, {
      dependency,
      breakerId: `b-${dependency}`,
      global: {
        state,
        epoch: 1,
        step: state === 'ramping' ? 0 : null,
        steps: 3,
        quorum: { open: 0, live: 1, threshold: 2 },
      },
      allowance: state === 'ramping' ? { validForMs: 60_000, classes: extra.allowance ?? {} } : null,
      probe:
        extra.probeToken === undefined ? null : { token: extra.probeToken, fencing: 1, validForMs: 60_000 },
      fallback: null,
    });
  }

  /** the state the instance reported for `dependency` in its last heartbeat */
  lastReported(dependency: string): string | undefined {
    return this.heartbeats.at(-1)?.breakers.find((b) => b.dependency === dependency)?.state;
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    this.heartbeats.push(structuredClone(req));
    return {
      serverTime: new Date(0).toISOString(),
      heartbeatIntervalMs: 1_000,
      leaseTtlMs: this.leaseTtlMs,
      breakers: req.breakers
        .map((b) => this.plans.get(b.dependency))
        .filter((p): p is BreakerPlan => p !== undefined),
    };
  }

  async probeResult(token: string, body: ProbeResultRequest): Promise<void> {
    this.probeResults.push({ token, body });
  }

  async lease(_req: ProbeLeaseRequest): Promise<never> {
    throw new TransportError('faked: no leases', 429, 1_000);
  }
}
