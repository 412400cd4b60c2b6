// Probe tokens on demand (POST /v1/probes/lease) and probe results (POST /v1/probes/{token}/result),
// through the control plane: the budget is the pool's (the lease store applies core decideProbeGrant),
// the result feeds core onProbeResult under the breaker's lock.
import { Injectable } from '@nestjs/common';
import { ControlPlane, isControlError } from '@recloser/control';
import { countProbeTokens } from '../telemetry/controller-metrics.js';
import { assertGroupAllowed, type FleetPrincipal } from '../auth/fleet-principal.js';
import type { LeaseProbeDto, ProbeLeaseDto } from './dto/lease-probe.dto.js';
import type { ProbeResultAcceptedDto, ProbeResultDto } from './dto/probe-result.dto.js';

@Injectable()
export class ProbesService {
  constructor(private readonly plane: ControlPlane) {}

  async lease(dto: LeaseProbeDto): Promise<ProbeLeaseDto> {
    try {
      return await this.plane.leaseProbe(dto);
    } catch (err) {
      if (isControlError(err)) countProbeTokens('denied', 1, err.kind);
      throw err;
    }
  }

  /** A token of another group's breaker is refused (403) before anything changes. */
  reportResult(
    principal: FleetPrincipal,
    token: string,
    dto: ProbeResultDto,
  ): Promise<ProbeResultAcceptedDto> {
    return this.plane.probeResult(token, dto, (group) => assertGroupAllowed(principal, group));
  }
}
