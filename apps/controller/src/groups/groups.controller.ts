import { Body, Controller, Inject, Param, Put, UseGuards } from '@nestjs/common';
import type { Clock } from '@recloser/core';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { identifierParam } from '../common/input-rules.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { GroupQuorumDto, SetQuorumDto } from './dto/set-quorum.dto.js';
import { FleetGroupsService } from './fleet-groups.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/groups')
export class GroupsController {
  constructor(
    private readonly groups: FleetGroupsService,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  @Put(':group/quorum')
  @ApiOkResponse({ type: GroupQuorumDto })
  @ApiOperation({ summary: "Set a group's quorum policy: K = max(minOpen, ceil(fraction × live))" })
  async setQuorum(
    @Param('group', identifierParam('group')) group: string,
    @Body() dto: SetQuorumDto,
  ): Promise<GroupQuorumDto> {
    const view = await this.groups.setQuorum(
      group,
      { fraction: dto.fraction, minOpen: dto.minOpen },
      this.clock.now(),
    );
    return { group: view.group, ...view.quorum };
  }
}
