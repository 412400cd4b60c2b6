import { Injectable, OnModuleInit } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import { OutboxConsumers } from '../outbox/outbox-consumers.js';

/** The control layer's own consumer of the event seam (probe tokens of a breaker that left PROBING). */
@Injectable()
export class ControlConsumer implements OnModuleInit {
  constructor(
    private readonly plane: ControlPlane,
    private readonly consumers: OutboxConsumers,
  ) {}

  onModuleInit(): void {
    this.consumers.register('control', (event) => this.plane.handle(event));
  }
}
