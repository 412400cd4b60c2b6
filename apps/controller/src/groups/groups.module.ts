import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FleetGroupEntity } from './fleet-group.entity.js';
import { FleetGroupsService } from './fleet-groups.service.js';
import { GroupsController } from './groups.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([FleetGroupEntity])],
  controllers: [GroupsController],
  providers: [FleetGroupsService],
  exports: [FleetGroupsService],
})
export class GroupsModule {}
