import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminGuard } from './admin.guard.js';
import { FleetKeyEntity } from './fleet-key.entity.js';
import { FleetKeyGuard } from './fleet-key.guard.js';
import { FleetKeysController } from './fleet-keys.controller.js';
import { FleetKeysService } from './fleet-keys.service.js';

/** Fleet keys and the two guards; global so any feature can @UseGuards(FleetKeyGuard | AdminGuard). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([FleetKeyEntity])],
  controllers: [FleetKeysController],
  providers: [FleetKeysService, FleetKeyGuard, AdminGuard],
  exports: [FleetKeysService, FleetKeyGuard, AdminGuard],
})
export class AuthModule {}
