import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { identifierParam } from '../common/input-rules.js';
import { GroupIdentityDto, SetIdentityDto } from './dto/identity.dto.js';
import { VerdictIdentityService } from './verdict-identity.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/groups')
export class GroupIdentityController {
  constructor(private readonly identity: VerdictIdentityService) {}

  @Put(':group/identity')
  @ApiOkResponse({ type: GroupIdentityDto })
  @ApiOperation({ summary: "Set whether a group's instances sign their verdicts: off, optional or required" })
  set(
    @Param('group', identifierParam('group')) group: string,
    @Body() dto: SetIdentityDto,
  ): Promise<GroupIdentityDto> {
    return this.identity.setMode(group, dto.mode);
  }

  @Get(':group/identity')
  @ApiOkResponse({ type: GroupIdentityDto })
  async get(@Param('group', identifierParam('group')) group: string): Promise<GroupIdentityDto> {
    return { group, identity: await this.identity.mode(group) };
  }
}
