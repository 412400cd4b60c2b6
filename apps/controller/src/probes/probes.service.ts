// Probe tokens on demand (POST /v1/probes/lease) and probe results (POST /v1/probes/{token}/result),
// through the control plane: the budget is the pool's (the lease store applies core decideProbeGrant),
// the result feeds core onProbeResult under the breaker's lock.
import { Injectable } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import { assertGroupAllowed, type FleetPrincipal } from '../auth/fleet-principal.js';
import type { LeaseProbeDto, ProbeLeaseDto } from './dto/lease-probe.dto.js';
import type { ProbeResultAcceptedDto, ProbeResultDto } from './dto/probe-result.dto.js';

@Injectable()
export class ProbesService {
  constructor(private readonly plane: ControlPlane) {}

  lease(dto: LeaseProbeDto): Promise<ProbeLeaseDto> {
    return this.plane.leaseProbe(dto);
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
