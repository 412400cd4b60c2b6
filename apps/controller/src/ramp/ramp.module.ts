import { Module } from '@nestjs/common';
import { RampTickHandler } from './ramp-tick.handler.js';

/** The lifecycle tick job (the step evidence and allowance stores are ports, in ControlModule). */
@Module({
  providers: [RampTickHandler],
})
export class RampModule {}
