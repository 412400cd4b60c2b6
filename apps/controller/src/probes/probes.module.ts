import { Module } from '@nestjs/common';
import { LeaseExpiryHandler } from './lease-expiry.handler.js';
import { ProbesController } from './probes.controller.js';
import { ProbesService } from './probes.service.js';

/** Probe endpoints and the lease expiry job (the lease store is a port, in ControlModule). */
@Module({
  controllers: [ProbesController],
  providers: [ProbesService, LeaseExpiryHandler],
})
export class ProbesModule {}
