import { DynamicModule, Global, Module } from '@nestjs/common';
import { ControllerConfig } from './controller-config.js';

/** Makes the validated ControllerConfig injectable everywhere by its class. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: ControllerConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ControllerConfig, useValue: config }],
      exports: [ControllerConfig],
    };
  }
}
