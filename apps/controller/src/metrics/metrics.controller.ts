import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { metricsText } from './metrics-access.js';
import { MetricsGuard } from './metrics.guard.js';

@ApiTags('metrics')
@ApiBearerAuth()
@Controller('metrics')
@UseGuards(MetricsGuard)
export class MetricsController {
  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({
    summary: 'Prometheus text from the OpenTelemetry SDK (admin or metrics token unless public)',
  })
  async metrics(): Promise<string> {
    return metricsText();
  }
}
