import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import {
  CreateWebhookDto,
  DeliveriesQuery,
  DeliveryDto,
  DeliveryListDto,
  WebhookDto,
  WebhookListDto,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(`${what} not found`) });

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiCreatedResponse({ type: WebhookDto })
  @ApiOperation({
    summary: 'Subscribe a URL to alert events (signed with the secret; see docs/api.md for verification)',
  })
  subscribe(@Body() dto: CreateWebhookDto): Promise<WebhookDto> {
    return this.webhooks.subscribe(dto);
  }

  @Get()
  @ApiOkResponse({ type: WebhookListDto })
  @ApiOperation({ summary: 'Subscriptions (without secrets) and the events one may subscribe to' })
  list(): Promise<WebhookListDto> {
    return this.webhooks.list();
  }

  @Get('deliveries')
  @ApiOkResponse({ type: DeliveryListDto })
  @ApiOperation({ summary: 'Recent deliveries, newest first, by status (dead = the dead letters)' })
  deliveries(@Query() q: DeliveriesQuery): Promise<DeliveryListDto> {
    return this.webhooks.recent(q);
  }

  @Post('deliveries/:id/retry')
  @HttpCode(202)
  @ApiOkResponse({ type: DeliveryDto })
  @ApiOperation({ summary: 'Retry a dead (or retrying) delivery now, with a fresh run of attempts' })
  retry(@Param('id', uuid('delivery')) id: string): Promise<DeliveryDto> {
    return this.webhooks.retry(id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unsubscribe (its deliveries stay listed)' })
  remove(@Param('id', uuid('webhook')) id: string): Promise<void> {
    return this.webhooks.remove(id);
  }
}
