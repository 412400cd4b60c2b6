import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Length,
} from 'class-validator';
import { IsFreeText } from '../../common/input-rules.js';
import { PageQuery } from '../../common/paging.js';
import { WEBHOOK_EVENTS, type WebhookEventType } from '../webhook-events.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookFormat } from '../webhooks.repository.js';

export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://hooks.example.com/recloser',
    description:
      'http(s); private, loopback and link-local targets are refused unless RECLOSER_WEBHOOK_ALLOW_HOSTS names the host',
  })
  @IsFreeText(2048)
  @Length(1, 2048)
  @IsString()
  url: string;

  @ApiProperty({
    description: 'signs each delivery (HMAC-SHA256); never returned',
    example: 'a-long-random-secret',
  })
  @IsFreeText(256)
  @Length(8, 256, { message: 'secret must be 8 to 256 characters' })
  @IsString()
  secret: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true })
  @IsIn(WEBHOOK_EVENTS, { each: true, message: `events must be among ${WEBHOOK_EVENTS.join(', ')}` })
  @ArrayUnique({ message: 'events must not repeat' })
  @ArrayMaxSize(WEBHOOK_EVENTS.length)
  @ArrayMinSize(1, { message: 'events must name at least one event' })
  @IsArray({ message: 'events must be an array' })
  events: WebhookEventType[];

  @ApiPropertyOptional({
    enum: ['json', 'slack'],
    default: 'json',
    description: '`slack`: a Slack-compatible incoming-webhook body',
  })
  @IsOptional()
  @IsIn(['json', 'slack'], { message: 'format must be json or slack' })
  format?: WebhookFormat;

  @ApiPropertyOptional({ example: 'on-call channel' })
  @IsOptional()
  @IsFreeText(200)
  @Length(0, 200)
  @IsString()
  description?: string;
}

export class WebhookDto {
  @ApiProperty() id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true }) events: string[];
  @ApiProperty({ enum: ['json', 'slack'] }) format: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty() createdAt: string;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookDto] }) webhooks: WebhookDto[];
  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true }) events: string[];
}

export class DeliveryDto {
  @ApiProperty() id: string;
  @ApiProperty() subscriptionId: string;
  @ApiProperty({ description: 'the event id receivers deduplicate on' }) eventId: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS }) eventType: string;
  @ApiProperty({ nullable: true, type: String }) breakerId: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty() attempts: number;
  @ApiProperty({ nullable: true, type: Number }) lastStatusCode: number | null;
  @ApiProperty({ nullable: true, type: String }) lastError: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
  @ApiProperty({ nullable: true, type: String }) deliveredAt: string | null;
  @ApiProperty({ description: 'the body sent (each attempt is signed afresh)' }) payload: object;
}

export class DeliveryListDto {
  @ApiProperty({ type: [DeliveryDto] }) deliveries: DeliveryDto[];
  @ApiProperty({ nullable: true, type: String }) next: string | null;
  @ApiProperty({ description: 'deliveries by status, over all of them' }) counts: object;
}

export class DeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;

  @ApiPropertyOptional()
  @IsOptional()
  @IsUUID('all', { message: 'subscriptionId must be a webhook id' })
  subscriptionId?: string;
}
