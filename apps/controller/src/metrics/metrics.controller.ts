import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { prometheusText } from '../telemetry/telemetry.js';

@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus text from the OpenTelemetry SDK' })
  async metrics(): Promise<string> {
    return (await prometheusText()) ?? '# telemetry is not started in this process\n';
  }
}
