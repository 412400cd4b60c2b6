import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FleetKeyGuard } from '../auth/fleet-key.guard.js';
import { Fleet, type FleetPrincipal } from '../auth/fleet-principal.js';
import { InstanceKeyDto, RegisterInstanceKeyDto } from './dto/identity.dto.js';
import { VerdictIdentityService } from './verdict-identity.service.js';

@ApiTags('fleet')
@ApiBearerAuth()
@UseGuards(FleetKeyGuard)
@Controller('v1/instance-keys')
export class InstanceKeysController {
  constructor(private readonly identity: VerdictIdentityService) {}

  @Post()
  @HttpCode(201)
  @ApiOkResponse({ type: InstanceKeyDto })
  @ApiOperation({ summary: "Register an instance's Ed25519 public key (it signs its verdicts with it)" })
  async register(
    @Fleet() principal: FleetPrincipal,
    @Body() dto: RegisterInstanceKeyDto,
  ): Promise<InstanceKeyDto> {
    const { keyId } = await this.identity.register(principal, dto);
    return { keyId };
  }
}
