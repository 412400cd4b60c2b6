import { Injectable } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import type { HeartbeatResponse } from '@recloser/core';
import { countHeartbeat } from '../telemetry/controller-metrics.js';
import { type HeartbeatDto, toHeartbeatRequest } from './dto/heartbeat.dto.js';
import { VerdictIdentityService } from '../receipts/verdict-identity.service.js';

/** One heartbeat: the control plane records it, evaluates quorum and answers with the plan. */
@Injectable()
export class HeartbeatsService {
  constructor(
    private readonly plane: ControlPlane,
    private readonly identity: VerdictIdentityService,
  ) {}

  async record(dto: HeartbeatDto): Promise<HeartbeatResponse> {
    const signed = this.identity.check(dto); // null on the routine path: nothing signed or locally open
    if (signed) await signed;
    const plan = await this.plane.heartbeat(toHeartbeatRequest(dto));
    countHeartbeat();
    return plan;
  }
}
