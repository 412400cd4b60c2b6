import { Controller, Get, HttpException, HttpStatus } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { httpErrorBody } from '../common/http-error-body.js';
import { type DependencyCheck, HealthService } from './health.service.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Postgres and Redis answer (503 otherwise)' })
  async ready(): Promise<{ status: 'ok'; postgres: DependencyCheck; redis: DependencyCheck }> {
    const [postgres, redis] = await Promise.all([this.health.checkPostgres(), this.health.checkRedis()]);
    if (postgres.status === 'down' || redis.status === 'down') {
      const down = [
        postgres.status === 'down' ? `postgres: ${postgres.error}` : null,
        redis.status === 'down' ? `redis: ${redis.error}` : null,
      ];
      throw new HttpException(
        httpErrorBody(503, `not ready: ${down.filter(Boolean).join('; ')}`, { postgres, redis }),
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    }
    return { status: 'ok', postgres, redis };
  }
}
