import { Body, Controller, Delete, HttpCode, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from './admin.guard.js';
import { CreateFleetKeyDto, FleetKeyCreatedDto } from './dto/create-fleet-key.dto.js';
import { FleetKeysService } from './fleet-keys.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/fleet-keys')
export class FleetKeysController {
  constructor(private readonly fleetKeys: FleetKeysService) {}

  @Post()
  @ApiCreatedResponse({ type: FleetKeyCreatedDto })
  @ApiOperation({ summary: 'Create a group-scoped fleet key (shown once, stored hashed)' })
  create(@Body() dto: CreateFleetKeyDto): Promise<FleetKeyCreatedDto> {
    return this.fleetKeys.create(dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a fleet key' })
  remove(@Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    return this.fleetKeys.remove(id);
  }
}
