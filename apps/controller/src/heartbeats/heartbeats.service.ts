import { Injectable } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import type { HeartbeatResponse } from '@recloser/core';
import { countHeartbeat } from '../telemetry/controller-metrics.js';
import { type HeartbeatDto, toHeartbeatRequest } from './dto/heartbeat.dto.js';

/** One heartbeat: the control plane records it, evaluates quorum and answers with the plan. */
@Injectable()
export class HeartbeatsService {
  constructor(private readonly plane: ControlPlane) {}

  async record(dto: HeartbeatDto): Promise<HeartbeatResponse> {
    const plan = await this.plane.heartbeat(toHeartbeatRequest(dto));
    countHeartbeat();
    return plan;
  }
}
