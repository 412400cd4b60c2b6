import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FencingRepository } from './fencing.repository.js';
import { PoolDependencyEntity } from './pool-dependency.entity.js';
import { PoolEntity } from './pool.entity.js';
import { PoolsController } from './pools.controller.js';
import { PoolsService } from './pools.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([PoolEntity, PoolDependencyEntity])],
  controllers: [PoolsController],
  providers: [PoolsService, FencingRepository],
  exports: [PoolsService, FencingRepository],
})
export class PoolsModule {}
