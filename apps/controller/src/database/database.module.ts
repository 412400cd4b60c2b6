import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { dataSourceOptions } from './data-source-options.js';

/** TypeORM on Postgres; entities come from each feature's TypeOrmModule.forFeature. Schema changes only by migrations. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [ControllerConfig],
      useFactory: (config: ControllerConfig) => ({
        ...dataSourceOptions(config.databaseUrl),
        autoLoadEntities: true,
        retryAttempts: 0,
      }),
    }),
  ],
})
export class DatabaseModule {}
