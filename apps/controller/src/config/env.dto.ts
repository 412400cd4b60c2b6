import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};

// Decorators register bottom-up: the type check sits nearest the property so it is reported first.
/** The controller's environment, as docs/api.md's Operations section lists it. Validated once at boot. */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'test', 'production'])
  NODE_ENV?: 'development' | 'test' | 'production';

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(65535)
  @IsInt({ message: 'PORT must be an integer between 0 and 65535' })
  PORT?: number;

  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\/.+\/[^/?]+/, {
    message: 'DATABASE_URL must look like postgres://user@host:5432/database',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must look like redis://host:6379' })
  REDIS_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'RECLOSER_ADMIN_TOKEN must be at least 16 characters' })
  RECLOSER_ADMIN_TOKEN?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'RECLOSER_MIGRATE_ON_BOOT must be true or false' })
  RECLOSER_MIGRATE_ON_BOOT?: boolean;

  @IsOptional()
  @IsString()
  RECLOSER_WEBHOOK_ALLOW_HOSTS?: string;

  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\s*\d*\.?\d+\s*$/.test(value) ? Number(value) : value,
  )
  @Max(1, { message: 'RECLOSER_QUORUM_NEAR_FRACTION must be a number in [0, 1]' })
  @Min(0, { message: 'RECLOSER_QUORUM_NEAR_FRACTION must be a number in [0, 1]' })
  @IsNumber({}, { message: 'RECLOSER_QUORUM_NEAR_FRACTION must be a number in [0, 1]' })
  RECLOSER_QUORUM_NEAR_FRACTION?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'RECLOSER_WEBHOOK_ATTEMPTS must be an integer between 1 and 100' })
  RECLOSER_WEBHOOK_ATTEMPTS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_WEBHOOK_BACKOFF_MS must be an integer number of milliseconds' })
  RECLOSER_WEBHOOK_BACKOFF_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @Max(300_000)
  @IsInt({ message: 'RECLOSER_WEBHOOK_TIMEOUT_MS must be an integer number of milliseconds' })
  RECLOSER_WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @IsInt({ message: 'RECLOSER_HEARTBEAT_INTERVAL_MS must be an integer number of milliseconds' })
  RECLOSER_HEARTBEAT_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @IsInt({ message: 'RECLOSER_HEARTBEAT_TTL_MS must be an integer number of milliseconds' })
  RECLOSER_HEARTBEAT_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @IsInt({ message: 'RECLOSER_ISOLATION_AFTER_MS must be an integer number of milliseconds' })
  RECLOSER_ISOLATION_AFTER_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_MAX_BREAKERS_PER_GROUP must be a whole number' })
  RECLOSER_MAX_BREAKERS_PER_GROUP?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_MAX_INSTANCES_PER_GROUP must be a whole number' })
  RECLOSER_MAX_INSTANCES_PER_GROUP?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @IsInt({ message: 'RECLOSER_BREAKER_VIEW_MS must be an integer number of milliseconds' })
  RECLOSER_BREAKER_VIEW_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_ARCHIVE_AFTER_MS must be an integer number of milliseconds' })
  RECLOSER_ARCHIVE_AFTER_MS?: number;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9:_-]+$/, { message: 'RECLOSER_REDIS_PREFIX may hold letters, digits, : _ -' })
  RECLOSER_REDIS_PREFIX?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(10)
  @IsInt({ message: 'RECLOSER_OUTBOX_POLL_MS must be an integer number of milliseconds' })
  RECLOSER_OUTBOX_POLL_MS?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'RECLOSER_OUTBOX_RELAY must be true or false' })
  RECLOSER_OUTBOX_RELAY?: boolean;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_RATE_LIMIT_WRITES_PER_MIN must be a positive integer' })
  RECLOSER_RATE_LIMIT_WRITES_PER_MIN?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN must be a positive integer' })
  RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN?: number;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'RECLOSER_METRICS_TOKEN must be at least 16 characters' })
  RECLOSER_METRICS_TOKEN?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'RECLOSER_METRICS_PUBLIC must be true or false' })
  RECLOSER_METRICS_PUBLIC?: boolean;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @Max(65535)
  @IsInt({ message: 'RECLOSER_METRICS_PORT must be an integer between 1 and 65535' })
  RECLOSER_METRICS_PORT?: number;

  @IsOptional()
  @IsString()
  @Matches(/^(true|false|\d+|[0-9A-Fa-f:./]+(\s*,\s*[0-9A-Fa-f:./]+)*)$/, {
    message:
      'RECLOSER_TRUST_PROXY must be true, false, a hop count or a comma-separated list of proxy addresses/CIDRs',
  })
  RECLOSER_TRUST_PROXY?: string;
}
